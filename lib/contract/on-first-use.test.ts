import { createRequire } from 'node:module';
import { describe, expect, test } from 'vitest';
import { onFirstUse } from './on-first-use.js';

const jsYaml = createRequire(import.meta.url)('js-yaml') as typeof import('js-yaml');

describe('onFirstUse', () => {
  test('loads nothing until asked, then the package once, whether require is defined (bundled) or not (an ES module)', () => {
    let calls = 0;
    const load = onFirstUse<typeof import('js-yaml')>(
      () => {
        calls += 1;
        return jsYaml;
      },
      'js-yaml',
      import.meta.url,
    );
    expect(calls).toBe(0);
    const first = load();
    expect(load()).toBe(first);
    expect(first).toBe(jsYaml);
    expect(typeof first.load).toBe('function');
    // The bundled loader is called once where `require` is defined, never where it is not.
    expect(calls).toBe(typeof require === 'function' ? 1 : 0);
  });
});
