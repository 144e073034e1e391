/**
 * The options of issue 35: `--profile own` (reference, strict, both flags asked for), `--strict`,
 * `--seed`, `--examples`, `--max-response-time` (flags and their variables), `--list-checks`; and
 * the run's closing lines (what did not run, and which flag runs it).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { checkNames, type CheckResult } from './engine/types.js';
import { ListChecksRequested, OWN_DEFAULT_RESPONSE_TIME_MS, parseOptions, UsageError, usage } from './options.js';
import { checkDescriptions, formatCheckList } from './report/check-list.js';
import { closingLines, notRunForMissingFlags } from './report/not-run.js';

const KEY = 'sk_aaaaaaaaaaaaaaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const KEY2 = 'sk_cccccccccccccccccccccccc_ddddddddddddddddddddddddddddddddddddddddddd';
const minimal = ['--base-url', 'http://127.0.0.1:3000', '--api-key', KEY];

describe('--profile own', () => {
  test('is the reference profile with --strict and --flood, given a second key and a receiver', () => {
    const options = parseOptions([...minimal, '--profile', 'own', '--second-api-key', KEY2, '--webhook-receiver', '8099'], {});
    expect(options).toMatchObject({ profile: 'reference', strict: true, flood: true, secondApiKey: KEY2, webhookReceiver: { host: '127.0.0.1', port: 8099 } });
    // Every check runs: the flood too (a 429 without Retry-After is caught by no other check).
    expect(parseOptions([...minimal, '--profile', 'reference'], {}).flood).toBeUndefined();
  });

  test('sets a default latency budget that --max-response-time (flag or variable) overrides; other profiles have none', () => {
    const own = [...minimal, '--profile', 'own', '--second-api-key', KEY2, '--webhook-receiver', '8099'];
    expect(parseOptions(own, {})).toMatchObject({ maxResponseTimeMs: OWN_DEFAULT_RESPONSE_TIME_MS, maxResponseTimeDefault: true });
    expect(OWN_DEFAULT_RESPONSE_TIME_MS).toBe(1000);
    const given = parseOptions([...own, '--max-response-time', '5000'], {});
    expect(given.maxResponseTimeMs).toBe(5000);
    expect(given.maxResponseTimeDefault).toBeUndefined();
    expect(parseOptions(own, { CONFORMANCE_MAX_RESPONSE_TIME: '2500' }).maxResponseTimeMs).toBe(2500);
    expect(parseOptions([...minimal, '--profile', 'reference'], {}).maxResponseTimeMs).toBeUndefined();
    expect(parseOptions(minimal, {}).maxResponseTimeMs).toBeUndefined();
    expect(usage).toContain(`default: none, ${OWN_DEFAULT_RESPONSE_TIME_MS} with\n                          --profile own`);
  });

  test('asks for the second key and the receiver, naming flag and variable', () => {
    expect(() => parseOptions([...minimal, '--profile', 'own', '--webhook-receiver', '8099'], {})).toThrow(
      /--profile own needs another company's key .*--second-api-key KEY or CONFORMANCE_SECOND_API_KEY/,
    );
    expect(() => parseOptions([...minimal], { CONFORMANCE_PROFILE: 'own', CONFORMANCE_SECOND_API_KEY: KEY2 })).toThrow(
      /CONFORMANCE_PROFILE own needs an address .*--webhook-receiver \[HOST:\]PORT or CONFORMANCE_WEBHOOK_RECEIVER/,
    );
    expect(() => parseOptions([...minimal, '--profile', 'mine'], {})).toThrow(UsageError);
  });

  test('--help leads with the command for your own implementation, then the one for a service you do not own', () => {
    const own = usage.indexOf('--profile own');
    const foreign = usage.indexOf('a service you do not own');
    expect(own).toBeGreaterThan(0);
    expect(foreign).toBeGreaterThan(own);
    expect(foreign).toBeLessThan(usage.indexOf('--base-url URL          '));
  });
});

describe('the numbers of issue 35', () => {
  test('--seed, --examples, --max-response-time and --strict, as flags and as variables', () => {
    expect(parseOptions([...minimal, '--seed', '42', '--examples', '3', '--max-response-time', '800', '--strict'], {})).toMatchObject({
      seed: 42,
      examples: 3,
      maxResponseTimeMs: 800,
      strict: true,
    });
    expect(
      parseOptions(minimal, { CONFORMANCE_SEED: '7', CONFORMANCE_EXAMPLES: '1', CONFORMANCE_MAX_RESPONSE_TIME: '1000', CONFORMANCE_STRICT: '1' }),
    ).toMatchObject({ seed: 7, examples: 1, maxResponseTimeMs: 1000, strict: true });
    expect(() => parseOptions([...minimal, '--examples', '0'], {})).toThrow(/--examples must be a whole number of bodies from 1 to 100, got "0"/);
    expect(() => parseOptions([...minimal, '--max-response-time', '1.5'], {})).toThrow(/--max-response-time must be a whole number of milliseconds/);
    expect(() => parseOptions([...minimal, '--seed', '-1'], {})).toThrow(UsageError);
  });
});

describe('--list-checks', () => {
  test('one line per check, saying what it proves; the guide describes every check too', () => {
    expect(() => parseOptions(['--list-checks'], {})).toThrow(ListChecksRequested);
    const lines = formatCheckList().split('\n');
    expect(lines).toHaveLength(checkNames.length);
    for (const [i, check] of checkNames.entries()) {
      expect(lines[i]).toContain(check);
      expect(checkDescriptions[check].length).toBeGreaterThan(20);
      expect(lines[i]!.length).toBeLessThanOrEqual(160);
    }
    const guide = readFileSync(new URL('../docs/conformance.md', import.meta.url), 'utf8');
    for (const check of checkNames) expect(guide, check).toContain(`| \`${check}\` |`);
  });
});

describe('the closing lines', () => {
  const skip = (check: CheckResult['check'], skipReason: string): CheckResult => ({ operationId: 'x', check, outcome: 'skip', findings: [], skipReason });
  const results: CheckResult[] = [
    skip('tenant_isolation', 'no --second-api-key'),
    skip('tenant_isolation', 'not run in full: no --second-api-key'),
    skip('webhook_delivery', 'no --webhook-receiver: the run receives no deliveries'),
    skip('use_after_free', '--stateless: the target keeps no state (e.g. the Prism mock)'),
    { operationId: 'y', check: 'status_code_conformance', outcome: 'info', findings: [] },
  ];

  test('count the checks a missing flag left out, by flag, and say which flag runs them; last', () => {
    expect(notRunForMissingFlags({ results })).toEqual(
      new Map([
        ['--second-api-key', 2],
        ['--webhook-receiver', 1],
      ]),
    );
    const { lines, failsRun } = closingLines({ results, profile: 'seed' }, {});
    expect(failsRun).toBe(false);
    expect(lines).toEqual([
      "1 check found departures from the contract's decisions, reported as info under profile seed; testing your own implementation? run --profile own",
      '3 checks did not run: --second-api-key runs 2, --webhook-receiver runs 1 (--strict or --profile own makes this fail the run)',
    ]);
  });

  test('--strict makes them fail the run; a run that missed nothing says nothing', () => {
    expect(closingLines({ results, profile: 'reference' }, { strict: true })).toEqual({
      lines: ['3 checks did not run: --second-api-key runs 2, --webhook-receiver runs 1 (--strict: the run fails)'],
      failsRun: true,
    });
    expect(closingLines({ results: results.slice(3, 4), profile: 'reference' }, { strict: true })).toEqual({ lines: [], failsRun: false });
  });
});

describe('the guide keeps every decision in step', () => {
  test('each decision of openapi/DECISIONS.md has a row saying which checks hold it or why no run observes it', () => {
    const decisions = readFileSync(new URL('../openapi/DECISIONS.md', import.meta.url), 'utf8');
    const guide = readFileSync(new URL('../docs/conformance.md', import.meta.url), 'utf8');
    const ids = [...decisions.matchAll(/^## (D\d+) /gm)].map((m) => m[1]!);
    expect(ids.length).toBeGreaterThan(40);
    for (const id of ids) {
      const row = new RegExp(`^\\| ${id} [^|]+\\| ([^|]*)\\| ([^|]*)\\|$`, 'm').exec(guide);
      expect(row, id).not.toBeNull();
      expect(`${row![1]}${row![2]}`.trim(), id).not.toBe('');
    }
  });
});
