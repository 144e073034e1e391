/**
 * The contract's validation problems (422) read as the server writes them: each example's `detail`
 * is what the one rule (lib/problems/field-errors.mjs, shared by the server and the mock) makes of
 * its own `errors`, saying what is wrong and where, never a bare list of pointers.
 */
import { describe, expect, test } from 'vitest';
import { loadBundledContract, type JsonObject } from '../../lib/contract/bundled.js';
import { validationFields } from '../../lib/problems/field-errors.mjs';

interface ValidationExample {
  detail: string;
  errors: Array<{ pointer?: string; parameter?: string; header?: string; detail: string; keyword: string }>;
  omittedErrors?: number;
}

/** Every example value of the bundled contract that is a validation problem, by where it is. */
function validationExamples(): Array<[string, ValidationExample]> {
  const found: Array<[string, ValidationExample]> = [];
  const walk = (node: unknown, at: string): void => {
    if (!node || typeof node !== 'object') return;
    const value = (node as JsonObject).value as JsonObject | undefined;
    if (value && typeof value === 'object' && value.type === '/problems/validation-error') found.push([at, value as unknown as ValidationExample]);
    for (const [key, child] of Object.entries(node)) walk(child, `${at}/${key}`);
  };
  walk(loadBundledContract(), '');
  // Referenced examples are found once per place that names them: each is judged once.
  return [...new Map(found.map(([at, example]) => [JSON.stringify(example), [at, example] as [string, ValidationExample]])).values()];
}

describe('validation problem examples', () => {
  const examples = validationExamples();

  test('the contract has some', () => {
    expect(examples.length).toBeGreaterThanOrEqual(5);
  });

  test.each(examples)('%s: its detail says each field error in words, as the server does', (_at, example) => {
    expect(example.detail).toBe(validationFields(example.errors, example.omittedErrors ?? 0).detail);
    expect(example.detail).not.toMatch(/invalid fields?:/);
  });
});
