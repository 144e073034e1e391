import { describe, expect, test } from 'vitest';
import type { CheckResult, ConformanceOptions } from '../engine/types.js';
import { flagsNotHonoured } from './not-run.js';

const options: ConformanceOptions = {
  baseUrl: 'http://t.test',
  baseUrlAlt: 'http://t.test',
  apiKey: 'k',
  profile: 'seed',
  readOnly: false,
  stateless: false,
  timeoutMs: 1_000,
};
const receiving = { ...options, webhookReceiver: { host: '127.0.0.1', port: 0 } };
const refused = 'the target refused to register the receiver at http://127.0.0.1:1/r (422: url must be https); give --webhook-url';
const webhookResults = (outcomes: Array<CheckResult['outcome']>): CheckResult[] =>
  (['webhook_signature', 'webhook_schema', 'webhook_delivery'] as const).map((check, i) => ({
    operationId: 'createWebhook',
    check,
    outcome: outcomes[i]!,
    findings: [],
    ...(outcomes[i] === 'skip' ? { skipReason: refused } : {}),
  }));

describe('flagsNotHonoured: a flag whose checks could not run at all is told, not a silent skip', () => {
  test.each<[string, { options: ConformanceOptions; results: CheckResult[]; want: string[] }]>([
    [
      '--webhook-receiver, every webhook check skipped',
      {
        options: receiving,
        results: webhookResults(['skip', 'skip', 'skip']),
        want: [`--webhook-receiver was given, but webhook_signature, webhook_schema, webhook_delivery did not run: ${refused}`],
      },
    ],
    ['--webhook-receiver, the checks ran (one not in full)', { options: receiving, results: webhookResults(['pass', 'pass', 'skip']), want: [] }],
    ['--webhook-receiver, a failure', { options: receiving, results: webhookResults(['fail', 'skip', 'skip']), want: [] }],
    ['no --webhook-receiver: its skips are the default', { options, results: webhookResults(['skip', 'skip', 'skip']), want: [] }],
    ['--only without createWebhook: no result to judge', { options: receiving, results: [], want: [] }],
    [
      '--flood with --stateless',
      {
        options: { ...options, flood: true, stateless: true },
        results: [
          { operationId: 'listClients', check: 'auth_flood_limited', outcome: 'skip', findings: [], skipReason: 'the target keeps no state (--stateless)' },
        ],
        want: ['--flood was given, but auth_flood_limited did not run: the target keeps no state (--stateless)'],
      },
    ],
  ])('%s', (_name, { options: given, results, want }) => {
    expect(flagsNotHonoured({ results }, given)).toEqual(want);
  });
});
