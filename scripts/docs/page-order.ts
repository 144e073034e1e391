import { httpMethods, isJsonObject, type JsonObject } from '../../lib/contract/bundled.js';
import type { CodeSample } from './code-samples.js';

/**
 * The docs page as its reader has it: the spec the built page carries (Redoc renders it in the
 * browser from `__redoc_definition`, one line of the page) and its operations in the order Redoc
 * shows them: tag by tag in the order of the spec's `tags`, each tag's operations in the order of
 * the spec's paths and, within a path, of its methods. The samples are written to run in this
 * order (test/docs/code-samples.story.test.ts runs them so; docs.browser.test.ts checks the page shows them so).
 */
export function pageDefinition(html: string): JsonObject {
  const line = /^\s*const __redoc_definition = (.*);\s*$/m.exec(html)?.[1];
  if (!line) throw new Error('the page holds no __redoc_definition: is it a page `npm run docs` built?');
  return JSON.parse(line) as JsonObject;
}

export interface PageOperation {
  operationId: string;
  summary: string;
  tag: string;
  method: string;
  path: string;
  samples: CodeSample[];
}

export function pageOperations(spec: JsonObject): PageOperation[] {
  const operations: Array<Omit<PageOperation, 'tag'> & { tags: string[] }> = [];
  for (const [path, item] of Object.entries((spec.paths ?? {}) as Record<string, JsonObject>))
    for (const [method, operation] of Object.entries(item)) {
      if (!(httpMethods as readonly string[]).includes(method) || !isJsonObject(operation)) continue;
      operations.push({
        operationId: String(operation.operationId),
        summary: String(operation.summary ?? ''),
        method,
        path,
        tags: (operation.tags ?? []) as string[],
        samples: (operation['x-codeSamples'] ?? []) as CodeSample[],
      });
    }
  const tags = ((spec.tags ?? []) as Array<{ name: string }>).map((tag) => tag.name);
  return tags.flatMap((tag) => operations.filter((op) => op.tags.includes(tag)).map(({ tags: _tags, ...op }) => ({ ...op, tag })));
}
