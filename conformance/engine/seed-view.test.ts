import { describe, expect, test } from 'vitest';
import { ContractValidator } from '../../lib/contract/ajv.js';
import { loadBundledContract, type JsonObject } from '../../lib/contract/bundled.js';
import { seedView } from './seed-view.js';

const full = loadBundledContract();
const seed = seedView(full);
const fullValidator = new ContractValidator(full);
const seedValidator = new ContractValidator(seed);

const client = {
  id: 'clnt_qf1ntfya8fmpj4swmjr4645w',
  taxId: '52998224725',
  name: 'Maria',
  email: 'maria@example.com',
  phone: '11987654321',
  status: 'ACTIVE',
  companyId: 'comp_oofz35gki3icj9bi7eyf68ky',
  createdAt: '2026-11-21T14:30:00.000Z',
  updatedAt: '2026-11-21T14:30:00.000Z',
};

describe('seedView', () => {
  // Each case: a value, and whether the full contract and the seed view accept it.
  const cases: Array<[string, { given: { schema: string; value: unknown }; want: { full: boolean; seed: boolean } }]> = [
    ['a valid client', { given: { schema: 'Client', value: client }, want: { full: true, seed: true } }],
    ['the seed pattern of taxId holds in both', { given: { schema: 'Client', value: { ...client, taxId: '123' } }, want: { full: false, seed: false } }],
    ['check digits are a decision (D23)', { given: { schema: 'Client', value: { ...client, taxId: '52998224726' } }, want: { full: false, seed: true } }],
    [
      'the seed maxLength of name holds in both',
      { given: { schema: 'Client', value: { ...client, name: 'x'.repeat(256) } }, want: { full: false, seed: false } },
    ],
    [
      'postalCode format is a decision (D24)',
      { given: { schema: 'Client', value: { ...client, postalCode: '01310-100' } }, want: { full: false, seed: true } },
    ],
    ['a missing seed-required field fails both', { given: { schema: 'Client', value: { ...client, phone: undefined } }, want: { full: false, seed: false } }],
    ['the Problem schema is a decision as a whole (D02)', { given: { schema: 'Problem', value: { anything: true } }, want: { full: false, seed: true } }],
    ['charge status values are a decision (D05)', { given: { schema: 'ChargeStatus', value: 'CLOSED' }, want: { full: false, seed: true } }],
    ['charge status must still be a string', { given: { schema: 'ChargeStatus', value: 42 }, want: { full: false, seed: false } }],
    [
      'an integer narrowed from the seed number accepts a fraction in the seed view (D25)',
      { given: { schema: 'ChargeItem', value: { productId: 'prod_ab', companyId: 'comp_ab', quantity: 1.5, product: {} } }, want: { full: false, seed: true } },
    ],
    ['subscription period values are the seed', { given: { schema: 'SubscriptionPeriod', value: 'HOURLY' }, want: { full: false, seed: false } }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    const value = JSON.parse(JSON.stringify(given.value)) as unknown;
    expect(fullValidator.at(`/components/schemas/${given.schema}`)(value)).toBe(want.full);
    expect(seedValidator.at(`/components/schemas/${given.schema}`)(JSON.parse(JSON.stringify(given.value)))).toBe(want.seed);
  });

  test('leaves the full contract untouched', () => {
    const before = JSON.stringify(full);
    seedView(full);
    expect(JSON.stringify(full)).toBe(before);
    expect(((full.components as JsonObject).schemas as JsonObject).Problem).toHaveProperty('required');
  });
});
