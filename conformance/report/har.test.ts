import { readFileSync } from 'node:fs';
import Ajv2020Module from 'ajv/dist/2020.js';
import { describe, expect, test } from 'vitest';
import type { Exchange, RunReport } from '../engine/types.js';
import { redactReport } from './failures.js';
import { type Har, renderHar } from './har.js';
import { API_KEY, exchange, groupedReport, SECOND_API_KEY, sampleReport } from './sample-report.js';

const Ajv2020 = Ajv2020Module.default;

/**
 * What HAR 1.2 requires (http://www.softwareishard.com/blog/har-12-spec/): each object's
 * required members and their types, written from the spec; optional members may be there too.
 */
const nameValue = { type: 'object', required: ['name', 'value'], properties: { name: { type: 'string' }, value: { type: 'string' } } };
const list = { type: 'array', items: nameValue };
const harSchema = {
  type: 'object',
  required: ['log'],
  properties: {
    log: {
      type: 'object',
      required: ['version', 'creator', 'entries'],
      properties: {
        version: { const: '1.2' },
        creator: { type: 'object', required: ['name', 'version'], properties: { name: { type: 'string' }, version: { type: 'string' } } },
        entries: {
          type: 'array',
          items: {
            type: 'object',
            required: ['startedDateTime', 'time', 'request', 'response', 'cache', 'timings'],
            properties: {
              startedDateTime: { type: 'string', pattern: '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?(Z|[+-]\\d\\d:\\d\\d)$' },
              time: { type: 'number', minimum: 0 },
              request: {
                type: 'object',
                required: ['method', 'url', 'httpVersion', 'cookies', 'headers', 'queryString', 'headersSize', 'bodySize'],
                properties: {
                  method: { type: 'string' },
                  url: { type: 'string' },
                  httpVersion: { type: 'string' },
                  cookies: { type: 'array' },
                  headers: list,
                  queryString: list,
                  postData: { type: 'object', required: ['mimeType', 'text'] },
                  headersSize: { type: 'integer' },
                  bodySize: { type: 'integer' },
                },
              },
              response: {
                type: 'object',
                required: ['status', 'statusText', 'httpVersion', 'cookies', 'headers', 'content', 'redirectURL', 'headersSize', 'bodySize'],
                properties: {
                  status: { type: 'integer' },
                  statusText: { type: 'string' },
                  httpVersion: { type: 'string' },
                  cookies: { type: 'array' },
                  headers: list,
                  content: {
                    type: 'object',
                    required: ['size', 'mimeType'],
                    properties: { size: { type: 'integer' }, mimeType: { type: 'string' }, text: { type: 'string' } },
                  },
                  redirectURL: { type: 'string' },
                  headersSize: { type: 'integer' },
                  bodySize: { type: 'integer' },
                },
              },
              cache: { type: 'object' },
              timings: {
                type: 'object',
                required: ['send', 'wait', 'receive'],
                properties: { send: { type: 'number' }, wait: { type: 'number' }, receive: { type: 'number' } },
              },
            },
          },
        },
      },
    },
  },
};
const validHar = new Ajv2020({ allErrors: true, strict: false }).compile(harSchema);

/** The sample report with the exchanges its findings rest on, as the engine hands them over. */
function withExchanges(report: RunReport): RunReport {
  return { ...report, exchanges: report.results.flatMap((r) => r.findings.flatMap((f) => (f.exchange ? [f.exchange] : []))) };
}

describe('renderHar', () => {
  const report = groupedReport();
  const har = JSON.parse(renderHar(report, '1.0.0')) as Har;

  test('is HAR 1.2: every member the spec requires, of its type', () => {
    expect(validHar(har), JSON.stringify(validHar.errors)).toBe(true);
    expect(har.log.creator).toEqual({ name: 'pix-conformance', version: '1.0.0' });
    expect(har.log.comment).toBe('Conformance run conf1234abcd, profile seed, target http://ref.test');
  });

  test("the creator's version is the package's by default (its package.json), not the contract's", () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect((JSON.parse(renderHar(report)) as Har).log.creator.version).toBe(pkg.version);
  });

  test('the check of the format itself rejects an entry without its request', () => {
    const broken = structuredClone(har) as unknown as { log: { entries: Array<Record<string, unknown>> } };
    delete broken.log.entries[0]!.request;
    expect(validHar(broken)).toBe(false);
  });

  test('one entry per exchange of the run, in order, named by its operation', () => {
    expect(har.log.entries.map((e) => [e.comment, e.request.method, e.request.url, e.response.status])).toEqual(
      report.exchanges!.map((e) => [e.operationId, e.request.method, e.request.url, e.response!.status]),
    );
  });

  const one = (given: Partial<Exchange>) => (JSON.parse(renderHar({ ...report, exchanges: [exchange(given)] }, '1')) as Har).log.entries[0]!;
  const cases: Array<[string, { given: Partial<Exchange>; want: (e: Har['log']['entries'][number]) => void }]> = [
    [
      'a POST: its body whole, its type and size; the answer with status text, type and size; the time all waiting',
      {
        given: { startedAt: '2026-01-02T03:04:05.678Z' },
        want: (e) => {
          expect(e.startedDateTime).toBe('2026-01-02T03:04:05.678Z');
          expect(e.request.postData).toEqual({
            mimeType: 'application/json',
            text: '{"items":[{"productId":"prod_1","quantity":2}],"externalId":"conf-test-1"}',
          });
          expect(e.request.bodySize).toBe(74);
          expect(e.response).toMatchObject({ status: 500, statusText: 'Internal Server Error', content: { mimeType: 'application/problem+json' } });
          expect(e.response.content.size).toBe(Buffer.byteLength(e.response.content.text));
          expect(e.time).toBe(12.4);
          expect(e.timings).toEqual({ blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: 12.4, receive: 0 });
        },
      },
    ],
    [
      'a GET with a query: its parameters listed, no postData',
      {
        given: { request: { method: 'GET', url: 'http://ref.test/client?limit=2&after=clnt_1', headers: {} } },
        want: (e) => {
          expect(e.request.queryString).toEqual([
            { name: 'limit', value: '2' },
            { name: 'after', value: 'clnt_1' },
          ]);
          expect(e.request).not.toHaveProperty('postData');
          expect(e.request.bodySize).toBe(0);
        },
      },
    ],
    [
      'no answer: status 0 and the reason',
      {
        given: { response: undefined, error: 'connect ECONNREFUSED 127.0.0.1:9' },
        want: (e) =>
          expect(e.response).toMatchObject({ status: 0, _error: 'connect ECONNREFUSED 127.0.0.1:9', comment: 'no answer: connect ECONNREFUSED 127.0.0.1:9' }),
      },
    ],
    [
      'a redirect: its Location as redirectURL',
      {
        given: { response: { status: 303, headers: { location: '/charge/char_1' }, body: '' } },
        want: (e) => expect(e.response.redirectURL).toBe('/charge/char_1'),
      },
    ],
    ['no start recorded: the run’s start', { given: {}, want: (e) => expect(e.startedDateTime).toBe(report.startedAt) }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    want(one(given));
  });

  test('no key value in the file, even one the target echoed', () => {
    const raw = withExchanges(sampleReport());
    raw.exchanges![0]!.response!.body += ` and ${SECOND_API_KEY}`;
    // The sample target echoes the first key in a header and a body: the check below can fail.
    expect(renderHar(raw, '1')).toContain(API_KEY);
    const file = renderHar(redactReport(raw, [API_KEY, SECOND_API_KEY]), '1');
    for (const key of [API_KEY, SECOND_API_KEY]) {
      expect(file).not.toContain(key);
      expect(file).not.toContain(key.slice(-20));
    }
    expect(file).toContain('sk_a1b…****');
  });
});

test("a run that stopped before its end says why in the log's comment", () => {
  const { log } = JSON.parse(renderHar({ ...sampleReport(), stopped: 'interrupted: the run stopped before its end' })) as Har;
  expect(log.comment).toMatch(/; the run stopped before its end: interrupted: the run stopped before its end$/);
  expect((JSON.parse(renderHar(sampleReport())) as Har).log.comment).not.toContain('stopped');
});
