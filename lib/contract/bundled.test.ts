import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { parse } from 'yaml';
import { bundledContractPath, parseContract } from './bundled.js';

test('the fast parser reads the bundled contract exactly as the yaml package does', () => {
  const text = readFileSync(bundledContractPath, 'utf8');
  expect(parseContract(text)).toEqual(parse(text));
});

test('a date-like plain scalar stays a string, as YAML 1.2 core reads it', () => {
  expect(parseContract('when: 2026-11-21T14:30:00Z\nn: 1\nb: true')).toEqual({ when: '2026-11-21T14:30:00Z', n: 1, b: true });
});
