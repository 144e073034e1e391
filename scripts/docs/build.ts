/**
 * `npm run docs`: dist/docs/index.html, one self-contained Redoc page of the bundled
 * contract (the Redoc script inlined, nothing loaded from another host), with the base-URL
 * table, code samples and decision marks added (see decorate.ts), and beside it dist/docs/decisions.html
 * (DECISIONS.md rendered, see decisions-html.ts), dist/docs/integrating.html (the integrator's guide, rendered the same way) and the contract it renders (openapi.yaml, openapi.json). The title (`seo.title`) and the
 * Redoc options and theme (`openapi`) come from redocly.yaml.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { bundledContractPath, loadBundledContract } from '../../lib/contract/bundled.js';
import { sourcesUnder, upToDate, writeStamp } from '../build-stamp.mjs';
import { decisionsHtml } from './decisions-html.js';
import { decisionsPage, decorateForDocs, guidePage } from './decorate.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** Where the page is written unless told (the sandbox package's build writes its own copy, scripts/build-sandbox.mjs). */
export const docsDir = join(root, 'dist', 'docs');

export function buildDocs(dir: string = docsDir): string {
  mkdirSync(dir, { recursive: true });
  const decisions = readFileSync(join(root, 'openapi', 'DECISIONS.md'), 'utf8');
  const config = parse(readFileSync(join(root, 'redocly.yaml'), 'utf8')) as { seo?: { title?: string } };
  const contract = loadBundledContract();
  const spec = join(dir, 'openapi.docs.json');
  writeFileSync(spec, JSON.stringify(decorateForDocs(contract, decisions)));
  const output = join(dir, 'index.html');
  try {
    execFileSync(
      join(root, 'node_modules', '.bin', 'redocly'),
      [
        'build-docs',
        spec,
        '--output',
        output,
        '--inlineBundle',
        '--config',
        join(root, 'redocly.yaml'),
        ...(config.seo?.title ? ['--title', config.seo.title] : []),
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
    );
  } catch (error) {
    process.stderr.write(withoutNotices(String((error as { stderr?: unknown }).stderr ?? '')));
    throw error;
  } finally {
    rmSync(spec, { force: true });
  }
  writeFileSync(output, selfContained(readFileSync(output, 'utf8')));
  // The contract the page renders, where its download links point (redocly.yaml `downloadUrls`) when
  // the page is opened from disk; the server serves the same files at /docs/openapi.yaml and .json.
  copyFileSync(bundledContractPath, join(dir, 'openapi.yaml'));
  writeFileSync(join(dir, 'openapi.json'), JSON.stringify(contract));
  const apiTitle = String((contract.info as { title?: string }).title ?? 'API');
  writeFileSync(join(dir, decisionsPage), decisionsHtml(decisions, apiTitle));
  // The integrator's guide, which the page's introduction links, rendered the same way.
  writeFileSync(join(dir, guidePage), decisionsHtml(readFileSync(join(root, 'docs', 'integrating.md'), 'utf8'), apiTitle));
  // An older build's copy of the Markdown; the server now redirects that address to the page.
  rmSync(join(dir, 'DECISIONS.md'), { force: true });
  return output;
}

/**
 * Redocly's output without its boxed notices (issue 39): on Node 20 it says "Node.js 20 reached
 * end-of-life… Future Redocly CLI releases require Node.js 22.12.0", which contradicts the
 * README's supported versions (this Redocly release runs on Node 20), and on every build that
 * build-docs now renders with Redoc 3. It has no setting to hide them; what is not in a box (a
 * warning, an error) is kept.
 */
export function withoutNotices(output: string): string {
  const kept: string[] = [];
  let inBox = false;
  for (const line of output.split('\n')) {
    const mark = line.trimStart()[0];
    if (mark === '╔' || mark === '┌' || mark === '╭') inBox = true;
    if (!inBox) kept.push(line);
    if (mark === '╚' || mark === '└' || mark === '╰') inBox = false;
  }
  return kept
    .join('\n')
    .replace(/^\s+$/, '')
    .replace(/\n{3,}/g, '\n\n');
}

/** A plain word mark in place of Redoc's attribution logo, which it loads from its CDN. */
const attributionMark =
  'data:image/svg+xml,' +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="16"><text x="0" y="12" font-family="sans-serif" font-size="12" fill="#555">Redoc</text></svg>',
  );

/**
 * Code (the curl and TypeScript samples, the payloads) wraps at the panel's edge instead of
 * running past it, where Redoc's panel cut it off (issue 39): a long line goes on under itself.
 */
export const wrappedCode = 'pre, pre code { white-space: pre-wrap !important; overflow-wrap: anywhere; }';

/**
 * `--inlineBundle` inlines Redoc's script, but two things still leave the host: the
 * attribution logo (from Redocly's CDN) and the browser's favicon request. The page keeps
 * the attribution with a local mark and declares an empty icon, so it works with no network;
 * the code samples' style is added here too.
 */
export function selfContained(html: string): string {
  return html
    .replaceAll('https://cdn.redoc.ly/redoc/logo-mini-full.svg', attributionMark)
    .replaceAll('https://cdn.redoc.ly/redoc/logo-mini.svg', attributionMark)
    .replace('<head>', `<head><link rel="icon" href="data:,"><style>${wrappedCode}</style>`);
}

/** Where the last build recorded what it was made from (scripts/build-stamp.mjs). */
const stamp = 'dist/docs/.stamp.json';
const outputs = ['index.html', decisionsPage, guidePage, 'openapi.yaml', 'openapi.json'].map((name) => `dist/docs/${name}`);

/** What the page is made from: the contract, its decisions, Redocly's configuration and version, this script and what it imports. */
function docsInputs(): string[] {
  const files = [
    'generated/openapi.yaml',
    'openapi/DECISIONS.md',
    'docs/integrating.md',
    'redocly.yaml',
    'package.json',
    'package-lock.json',
    'scripts/build-stamp.mjs',
  ];
  return [...files, ...sourcesUnder('scripts/docs'), ...sourcesUnder('lib'), ...sourcesUnder('client')];
}

// `npm run docs` (and `npm start`, first): builds the page unless nothing it is made from changed
// since the last build; `--force` builds it all the same.
/**
 * The docs as `buildDocs` makes them, built only when an input changed since the last build (or
 * an output is missing), or always with `force`: what `npm start`, the test run's global setup
 * and `npm run test:operation` call.
 */
export function buildDocsIfChanged({ force = false } = {}): { output: string; built: boolean } {
  const output = join(docsDir, 'index.html');
  const inputs = docsInputs();
  if (!force && upToDate(stamp, inputs, outputs)) return { output, built: false };
  buildDocs();
  writeStamp(stamp, inputs);
  return { output, built: true };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { output, built } = buildDocsIfChanged({ force: process.argv.includes('--force') });
  if (built) process.stdout.write(`Docs written to ${output}\n`);
}
