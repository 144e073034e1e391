import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { bundledContractPath } from '../../lib/contract/bundled.js';
import type { AppEnv, Deps } from '../deps.js';
import { ProblemError } from '../http/problems.js';

/** Where `npm run docs` (run by `npm ci` through `prepare`) writes the page. */
export const defaultDocsDir = fileURLToPath(new URL('../../dist/docs/', import.meta.url));

/**
 * The docs and the contract, for readers and tools, without an API key: `/` (a redirect to the
 * docs), `/docs` (Redoc, self-contained), `/docs/decisions.html`, `/openapi.yaml` and `/openapi.json` (the bundle).
 * Files are read once, on first request.
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
  const page = async () => new Response(await docsFile('index.html'), { headers: { 'Content-Type': 'text/html; charset=utf-8' } });

  // Someone who opens the server's bare URL wants to know what it is: the docs. 302, not a
  // permanent redirect a browser would keep, since `/` is no resource of the contract (D37).
  routes.get('/', (c) => c.redirect('/docs/', 302));
  // The page lives at /docs/, so that its relative links (decisions.html) resolve beside it.
  routes.get('/docs', (c) => c.redirect('/docs/', 301));
  routes.get('/docs/', page);
  routes.get('/docs/decisions.html', async () => new Response(await docsFile('decisions.html'), { headers: { 'Content-Type': 'text/html; charset=utf-8' } }));
  // The decisions were once served as raw Markdown here; links to it now open the page.
  routes.get('/docs/DECISIONS.md', (c) => c.redirect('/docs/decisions.html', 301));
  routes.get(
    '/openapi.yaml',
    async () => new Response(await once('yaml', () => readFile(bundledContractPath, 'utf8')), { headers: { 'Content-Type': 'application/yaml' } }),
  );
  routes.get(
    '/openapi.json',
    async () => new Response(await once('json', async () => JSON.stringify(deps.validator.contract)), { headers: { 'Content-Type': 'application/json' } }),
  );
  return routes;
}
