/**
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { describe, expect, test } from 'vitest';
import { listOperations } from '../lib/contract/bundled.js';
import type { ConformanceOptions } from './engine/types.js';
import { DEFAULT_TIMEOUT_MS, HelpRequested, parseOptions, UsageError } from './options.js';

const KEY = 'sk_aaaaaaaaaaaaaaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const KEY2 = 'sk_cccccccccccccccccccccccc_ddddddddddddddddddddddddddddddddddddddddddd';
const operationIds = listOperations().map((op) => op.operationId);
const [firstOp, secondOp] = operationIds as [string, string];

const minimal = ['--base-url', 'http://127.0.0.1:3000', '--api-key', KEY];

const defaults: ConformanceOptions = {
  baseUrl: 'http://127.0.0.1:3000',
  baseUrlAlt: 'http://127.0.0.1:3000',
  apiKey: KEY,
  profile: 'seed',
  readOnly: false,
  stateless: false,
  timeoutMs: DEFAULT_TIMEOUT_MS,
};

describe('parseOptions: accepted', () => {
  const cases: Array<[string, { given: { argv: string[]; env?: NodeJS.ProcessEnv }; want: Partial<ConformanceOptions> }]> = [
    ['flags only, defaults filled in', { given: { argv: minimal }, want: {} }],
    [
      'every flag',
      {
        given: {
          argv: [
            ...minimal,
            '--base-url-alt',
            'https://alt.example.com/v1/',
            '--second-api-key',
            KEY2,
            '--profile',
            'reference',
            '--only',
            `${firstOp},${secondOp}`,
            '--read-only',
            '--stateless',
            '--junit',
            'out/j.xml',
            '--html',
            'out/r.html',
            '--har',
            'out/run.har',
            '--run-id',
            'ci-42',
            '--timeout-ms',
            '2500',
            '--webhook-url',
            'https://hooks.example.com/in?x=1',
          ],
        },
        want: {
          baseUrlAlt: 'https://alt.example.com/v1',
          secondApiKey: KEY2,
          profile: 'reference',
          only: [firstOp, secondOp],
          readOnly: true,
          stateless: true,
          junit: 'out/j.xml',
          html: 'out/r.html',
          har: 'out/run.har',
          runId: 'ci-42',
          timeoutMs: 2500,
          webhookUrl: 'https://hooks.example.com/in?x=1',
        },
      },
    ],
    [
      '--flag=value form',
      {
        given: { argv: ['--base-url=http://h:1', `--api-key=${KEY}`, '--profile=reference'] },
        want: { baseUrl: 'http://h:1', baseUrlAlt: 'http://h:1', profile: 'reference' },
      },
    ],
    [
      'environment only',
      {
        given: {
          argv: [],
          env: {
            CONFORMANCE_BASE_URL: 'https://pix.example.com',
            CONFORMANCE_BASE_URL_ALT: 'https://alt.example.com',
            CONFORMANCE_API_KEY: KEY,
            CONFORMANCE_SECOND_API_KEY: KEY2,
            CONFORMANCE_PROFILE: 'reference',
            CONFORMANCE_ONLY: ` ${firstOp} , ,${secondOp},${firstOp}`,
            CONFORMANCE_READ_ONLY: '1',
            CONFORMANCE_STATELESS: 'true',
            CONFORMANCE_JUNIT: 'j.xml',
            CONFORMANCE_HTML: 'r.html',
            CONFORMANCE_HAR: 'run.har',
            CONFORMANCE_RUN_ID: 'env_run',
            CONFORMANCE_TIMEOUT_MS: '120000',
            CONFORMANCE_WEBHOOK_URL: 'http://127.0.0.1:8080/hooks',
          },
        },
        want: {
          baseUrl: 'https://pix.example.com',
          baseUrlAlt: 'https://alt.example.com',
          secondApiKey: KEY2,
          profile: 'reference',
          only: [firstOp, secondOp],
          readOnly: true,
          stateless: true,
          junit: 'j.xml',
          html: 'r.html',
          har: 'run.har',
          runId: 'env_run',
          timeoutMs: 120000,
          webhookUrl: 'http://127.0.0.1:8080/hooks',
        },
      },
    ],
    [
      'flags win over the environment',
      {
        given: {
          argv: [...minimal, '--profile', 'seed', '--only', secondOp, '--timeout-ms', '7', '--run-id', 'flag'],
          env: {
            CONFORMANCE_BASE_URL: 'http://env:1',
            CONFORMANCE_API_KEY: KEY2,
            CONFORMANCE_PROFILE: 'reference',
            CONFORMANCE_ONLY: firstOp,
            CONFORMANCE_TIMEOUT_MS: '9',
            CONFORMANCE_RUN_ID: 'env',
          },
        },
        want: { profile: 'seed', only: [secondOp], timeoutMs: 7, runId: 'flag' },
      },
    ],
    [
      'the alternative base URL follows the base URL given in the environment',
      { given: { argv: ['--api-key', KEY], env: { CONFORMANCE_BASE_URL: 'http://env:1' } }, want: { baseUrl: 'http://env:1', baseUrlAlt: 'http://env:1' } },
    ],
    [
      'a flag turns on what the environment leaves off',
      {
        given: { argv: [...minimal, '--read-only'], env: { CONFORMANCE_READ_ONLY: '0', CONFORMANCE_STATELESS: '' } },
        want: { readOnly: true, stateless: false },
      },
    ],
    ['--only may repeat', { given: { argv: [...minimal, '--only', firstOp, '--only', secondOp] }, want: { only: [firstOp, secondOp] } }],
    ['boolean variables: false, no', { given: { argv: minimal, env: { CONFORMANCE_READ_ONLY: 'false', CONFORMANCE_STATELESS: 'no' } }, want: {} }],
    [
      'webhook receiver: a port alone listens on 127.0.0.1',
      { given: { argv: [...minimal, '--webhook-receiver', '8123'] }, want: { webhookReceiver: { host: '127.0.0.1', port: 8123 } } },
    ],
    [
      'webhook receiver: host and port, from the environment',
      {
        given: { argv: minimal, env: { CONFORMANCE_WEBHOOK_RECEIVER: 'hooks.internal:9000' } },
        want: { webhookReceiver: { host: 'hooks.internal', port: 9000 } },
      },
    ],
    [
      'webhook receiver: an IPv6 host in brackets',
      { given: { argv: [...minimal, '--webhook-receiver=[::1]:0'] }, want: { webhookReceiver: { host: '[::1]', port: 0 } } },
    ],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    expect(parseOptions(given.argv, given.env ?? {})).toEqual({ ...defaults, ...want });
  });
});

describe('parseOptions: refused with one line naming the problem', () => {
  const cases: Array<[string, { given: { argv: string[]; env?: NodeJS.ProcessEnv }; want: RegExp }]> = [
    ['no base URL', { given: { argv: ['--api-key', KEY] }, want: /^a base URL is required: --base-url URL or CONFORMANCE_BASE_URL$/ }],
    [
      'relative base URL',
      { given: { argv: ['--base-url', '/charge', '--api-key', KEY] }, want: /^--base-url must be an absolute http\(s\) URL, got "\/charge"$/ },
    ],
    ['not a URL', { given: { argv: ['--base-url', 'localhost:3000', '--api-key', KEY] }, want: /^--base-url must be an absolute http\(s\) URL/ }],
    ['ftp base URL', { given: { argv: ['--base-url', 'ftp://h', '--api-key', KEY] }, want: /^--base-url must be an absolute http\(s\) URL, got "ftp:\/\/h"$/ }],
    ['base URL with a query', { given: { argv: ['--base-url', 'http://h/?a=1', '--api-key', KEY] }, want: /^--base-url must have no query or fragment/ }],
    ['base URL with credentials', { given: { argv: ['--base-url', 'http://u:p@h', '--api-key', KEY] }, want: /^--base-url must carry no credentials$/ }],
    [
      'bad alternative base URL from the environment',
      { given: { argv: minimal, env: { CONFORMANCE_BASE_URL_ALT: 'nope' } }, want: /^CONFORMANCE_BASE_URL_ALT must be an absolute http\(s\) URL, got "nope"$/ },
    ],
    ['no API key', { given: { argv: ['--base-url', 'http://h'] }, want: /^an API key is required: --api-key KEY or CONFORMANCE_API_KEY$/ }],
    ['empty API key', { given: { argv: ['--base-url', 'http://h', '--api-key='] }, want: /^--api-key is empty$/ }],
    [
      'blank API key in the environment',
      { given: { argv: ['--base-url', 'http://h'], env: { CONFORMANCE_API_KEY: '  ' } }, want: /^CONFORMANCE_API_KEY is empty$/ },
    ],
    ['empty second key', { given: { argv: [...minimal, '--second-api-key='] }, want: /^--second-api-key is empty$/ }],
    [
      'second key equal to the first',
      { given: { argv: [...minimal, '--second-api-key', KEY] }, want: /^--second-api-key must be another company's key, not the same as --api-key$/ },
    ],
    ['unknown profile', { given: { argv: [...minimal, '--profile', 'strict'] }, want: /^--profile must be seed, reference or own, got "strict"$/ }],
    [
      'unknown profile in the environment',
      { given: { argv: minimal, env: { CONFORMANCE_PROFILE: 'Seed' } }, want: /^CONFORMANCE_PROFILE must be seed, reference or own/ },
    ],
    [
      'unknown operationId, valid ones listed',
      {
        given: { argv: [...minimal, '--only', `${firstOp},deleteEverything`] },
        want: new RegExp(`^--only: unknown operationId "deleteEverything"; valid: ${operationIds.join(', ')}$`),
      },
    ],
    ['--only naming nothing', { given: { argv: [...minimal, '--only', ' , '] }, want: /^--only names no operation; valid: / }],
    [
      'timeout not a number',
      { given: { argv: [...minimal, '--timeout-ms', '10s'] }, want: /^--timeout-ms must be a whole number of milliseconds from 1 to 120000, got "10s"$/ },
    ],
    ['timeout zero', { given: { argv: [...minimal, '--timeout-ms', '0'] }, want: /^--timeout-ms must be a whole number/ }],
    ['timeout too long', { given: { argv: [...minimal, '--timeout-ms', '120001'] }, want: /^--timeout-ms must be a whole number/ }],
    [
      'timeout fractional, from the environment',
      { given: { argv: minimal, env: { CONFORMANCE_TIMEOUT_MS: '1.5' } }, want: /^CONFORMANCE_TIMEOUT_MS must be a whole number/ },
    ],
    [
      'webhook URL not absolute',
      { given: { argv: [...minimal, '--webhook-url', '/hooks'] }, want: /^--webhook-url must be an absolute http\(s\) URL, got "\/hooks"$/ },
    ],
    [
      'webhook URL of another scheme, from the environment',
      {
        given: { argv: minimal, env: { CONFORMANCE_WEBHOOK_URL: 'ftp://h/x' } },
        want: /^CONFORMANCE_WEBHOOK_URL must be an absolute http\(s\) URL, got "ftp:\/\/h\/x"$/,
      },
    ],
    ['run id with a space', { given: { argv: [...minimal, '--run-id', 'a b'] }, want: /^--run-id must be 1-40 letters, digits, "-" or "_", got "a b"$/ }],
    ['run id too long', { given: { argv: [...minimal, '--run-id', 'x'.repeat(41)] }, want: /^--run-id must be 1-40 letters/ }],
    ['empty --junit', { given: { argv: [...minimal, '--junit='] }, want: /^--junit needs a file name$/ }],
    ['empty CONFORMANCE_HAR', { given: { argv: minimal, env: { CONFORMANCE_HAR: ' ' } }, want: /^CONFORMANCE_HAR needs a file name$/ }],
    [
      'boolean variable neither 1 nor 0',
      { given: { argv: minimal, env: { CONFORMANCE_STATELESS: 'maybe' } }, want: /^CONFORMANCE_STATELESS must be 1 or 0, got "maybe"$/ },
    ],
    ['unknown flag', { given: { argv: [...minimal, '--base'] }, want: /^unknown option --base$/ }],
    ['flag without its value', { given: { argv: ['--api-key', KEY, '--base-url'] }, want: /^--base-url needs a value/ }],
    ['flag followed by another flag', { given: { argv: ['--base-url', '--api-key', KEY] }, want: /^--base-url needs a value/ }],
    ['value given to a switch', { given: { argv: [...minimal, '--read-only=yes'] }, want: /^--read-only takes no value$/ }],
    [
      'webhook receiver without a port',
      {
        given: { argv: [...minimal, '--webhook-receiver', 'localhost'] },
        want: /^--webhook-receiver must be \[HOST:\]PORT with a port from 0 to 65535, got "localhost"$/,
      },
    ],
    [
      'webhook receiver port too high',
      { given: { argv: minimal, env: { CONFORMANCE_WEBHOOK_RECEIVER: '127.0.0.1:70000' } }, want: /^CONFORMANCE_WEBHOOK_RECEIVER must be \[HOST:\]PORT/ },
    ],
    ['positional argument, a long one cut', { given: { argv: [...minimal, KEY2] }, want: /^unexpected argument "sk_ccccc…"$/ }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    let thrown: unknown;
    try {
      parseOptions(given.argv, given.env ?? {});
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    const message = (thrown as Error).message;
    expect(message).toMatch(want);
    expect(message).not.toContain('\n');
    expect(message).not.toContain(KEY);
    expect(message).not.toContain(KEY2);
  });
});

test('--help wins over everything else, even missing options', () => {
  expect(() => parseOptions(['--help'], {})).toThrow(HelpRequested);
  expect(() => parseOptions([...minimal, '--profile', 'bad', '--help'], {})).toThrow(HelpRequested);
});
