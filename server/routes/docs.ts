import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { Hono, type Context } from 'hono';
import { cors } from 'hono/cors';
import { bundledContractPath } from '../../lib/contract/bundled.js';
import type { AppEnv, Deps } from '../deps.js';
import { ProblemError } from '../http/problems.js';
import { pageHeaders, redocCsp, staticPageCsp } from '../http/security-headers.js';

/** Any origin may read the contract files with GET or HEAD; no credentials (cookies, auth) are ever allowed. */
const contractCors = cors({ origin: '*', allowMethods: ['GET', 'HEAD'], maxAge: 86_400, credentials: false });

/** Where `npm run docs` (run by `npm start` and by the tests' global setup) writes the page. */
export const defaultDocsDir = fileURLToPath(new URL('../../dist/docs/', import.meta.url));

/**
 * The docs and the contract, for readers and tools, without an API key: `/` (a redirect to the
 * docs), `/docs` (Redoc, self-contained), `/docs/decisions.html`, `/docs/integrating.html` (the guide), `/openapi.yaml` and `/openapi.json` (the bundle),
 * also beside the page as `/docs/openapi.yaml` and `/docs/openapi.json`, where its download links
 * point. Files are read once, on first request.
 *
 * The two contract files may be read from any origin (CORS, D37), so that Swagger Editor, a
 * browser-based Postman or any docs tool can load them from a running server; they are public
 * and read without credentials, so nothing is exposed. Nothing else is opened: the API is for
 * servers (a browser page must not hold an API key), and the payment pages are for their payer.
 */
export function docsRoutes(deps: Deps, docsDir = defaultDocsDir): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const cache = new Map<string, Promise<string>>();
  const once = (key: string, load: () => Promise<string>) => {
    let value = cache.get(key);
    if (!value) {
      value = load();
      cache.set(key, value);
      value.catch(() => cache.delete(key));
    }
    return value;
  };
  const docsFile = async (name: string) => {
    try {
      return await once(name, () => readFile(`${docsDir}${name}`, 'utf8'));
    } catch {
      throw new ProblemError('notFound', 'The docs are not built here: run `npm run docs` (npm ci does it) and reload.');
    }
  };
  /**
   * A docs page, gzipped for a browser that accepts it: Redoc's inlined script makes the page
   * 2.8 MB, which no Redoc option shrinks, and 0.7 MB over the wire. Compressed once, on first
   * request, like the file is read once, and its Content-Security-Policy (D50) made then too, from
   * the page's own inline scripts and styles.
   */
  const htmlPage = (name: string, policy: (html: string) => string) => async (c: Context<AppEnv>) => {
    const html = await docsFile(name);
    let pageCsp = policies.get(name);
    if (pageCsp === undefined) {
      pageCsp = policy(html);
      policies.set(name, pageCsp);
    }
    const headers: Record<string, string> = {
      'Content-Type': 'text/html; charset=utf-8',
      Vary: 'Accept-Encoding',
      'Content-Security-Policy': pageCsp,
      ...pageHeaders,
    };
    if (!acceptsGzip(c.req.header('Accept-Encoding'))) return new Response(html, { headers });
    let zipped = gzipped.get(name);
    if (!zipped) {
      zipped = gzipText(html);
      gzipped.set(name, zipped);
    }
    return new Response(await zipped, { headers: { ...headers, 'Content-Encoding': 'gzip' } });
  };
  const gzipped = new Map<string, Promise<Uint8Array>>();
  const policies = new Map<string, string>();

  // Someone who opens the server's bare URL wants to know what it is: the docs. 302, not a
  // permanent redirect a browser would keep, since `/` is no resource of the contract (D37).
  routes.get('/', (c) => c.redirect('/docs/', 302));
  // The page lives at /docs/, so that its relative links (decisions.html) resolve beside it.
  routes.get('/docs', (c) => c.redirect('/docs/', 301));
  routes.get('/docs/', htmlPage('index.html', redocCsp));
  routes.get('/docs/decisions.html', htmlPage('decisions.html', staticPageCsp));
  // The integrator's guide (docs/integrating.md), which the page's introduction links.
  routes.get('/docs/integrating.html', htmlPage('integrating.html', staticPageCsp));
  // The decisions were once served as raw Markdown here; links to it now open the page.
  routes.get('/docs/DECISIONS.md', (c) => c.redirect('/docs/decisions.html', 301));
  // The contract files, at the root for tools and beside the page for its download links (redocly.yaml `downloadUrls`).
  const contractFiles = ['/openapi.yaml', '/openapi.json', '/docs/openapi.yaml', '/docs/openapi.json'];
  for (const path of contractFiles) {
    // An OPTIONS here is a preflight (or a question of what the file allows): 204 with the CORS
    // answer, and `Allow`, as RFC 9110 §9.3.7 suggests. GET (and so HEAD) gets the origin header.
    routes.options(path, (c, next) => {
      c.header('Allow', 'GET, HEAD, OPTIONS');
      return contractCors(c, next);
    });
    routes.get(path, contractCors);
  }
  for (const path of contractFiles.filter((file) => file.endsWith('.yaml')))
    routes.get(
      path,
      async () => new Response(await once('yaml', () => readFile(bundledContractPath, 'utf8')), { headers: { 'Content-Type': 'application/yaml' } }),
    );
  for (const path of contractFiles.filter((file) => file.endsWith('.json')))
    routes.get(
      path,
      async () => new Response(await once('json', async () => JSON.stringify(deps.validator.contract)), { headers: { 'Content-Type': 'application/json' } }),
    );
  return routes;
}

const gzipAsync = promisify(gzip);

async function gzipText(text: string): Promise<Uint8Array> {
  return new Uint8Array(await gzipAsync(text, { level: 9 }));
}

/** Whether an Accept-Encoding header takes gzip (RFC 9110 §12.5.3: named, or by `*`, with a q above 0). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [coding = '', ...params] = part.split(';').map((item) => item.trim().toLowerCase());
    const q = params.find((param) => param.startsWith('q='));
    weights.set(coding, q === undefined ? 1 : Number(q.slice(2)));
  }
  const weight = weights.get('gzip') ?? weights.get('x-gzip') ?? weights.get('*') ?? 0;
  return weight > 0;
}
