/**
 * `npm run docs`: dist/docs/index.html, one self-contained Redoc page of the bundled
 * contract (the Redoc script inlined, nothing loaded from another host), with the base-URL
 * table, code samples and decision marks added (see decorate.ts), and beside it dist/docs/decisions.html
 * (DECISIONS.md rendered, see decisions-html.ts) and the contract it renders (openapi.yaml, openapi.json). The title (`seo.title`) and the
 * Redoc options and theme (`openapi`) come from redocly.yaml.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { bundledContractPath, loadBundledContract } from '../../lib/contract/bundled.js';
import { decisionsHtml } from './decisions-html.js';
import { decisionsPage, decorateForDocs } from './decorate.js';

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
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
    );
  } finally {
    rmSync(spec, { force: true });
  }
  writeFileSync(output, selfContained(readFileSync(output, 'utf8')));
  // The contract the page renders, where its download links point (redocly.yaml `downloadUrls`) when
  // the page is opened from disk; the server serves the same files at /docs/openapi.yaml and .json.
  copyFileSync(bundledContractPath, join(dir, 'openapi.yaml'));
  writeFileSync(join(dir, 'openapi.json'), JSON.stringify(contract));
  writeFileSync(join(dir, decisionsPage), decisionsHtml(decisions, String((contract.info as { title?: string }).title ?? 'API')));
  // An older build's copy of the Markdown; the server now redirects that address to the page.
  rmSync(join(dir, 'DECISIONS.md'), { force: true });
  return output;
}

/** A plain word mark in place of Redoc's attribution logo, which it loads from its CDN. */
const attributionMark =
  'data:image/svg+xml,' +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="16"><text x="0" y="12" font-family="sans-serif" font-size="12" fill="#555">Redoc</text></svg>',
  );

/**
 * `--inlineBundle` inlines Redoc's script, but two things still leave the host: the
 * attribution logo (from Redocly's CDN) and the browser's favicon request. The page keeps
 * the attribution with a local mark and declares an empty icon, so it works with no network.
 */
export function selfContained(html: string): string {
  return html
    .replaceAll('https://cdn.redoc.ly/redoc/logo-mini-full.svg', attributionMark)
    .replaceAll('https://cdn.redoc.ly/redoc/logo-mini.svg', attributionMark)
    .replace('<head>', '<head><link rel="icon" href="data:,">');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const output = buildDocs();
  process.stdout.write(`Docs written to ${output}\n`);
}
