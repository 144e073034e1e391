import { describe, expect, test } from 'vitest';
import { maskKey } from '../engine/http.js';
import { BODY_LIMIT, decisionNote, formatBody, formatExchange, formatFindings, printable, redactReport } from './failures.js';
import { renderHtml } from './html.js';
import { renderJunit } from './junit.js';
import { renderMatrix } from './matrix.js';
import type { RunReport } from '../engine/types.js';
import { API_KEY, exchange, groupedReport, SECOND_API_KEY, sampleReport } from './sample-report.js';

describe('formatExchange', () => {
  test('request line, headers and body; status, time, headers and body', () => {
    expect(formatExchange(exchange({ response: { status: 201, headers: { location: '/charge/char_1' }, body: '{"id":"char_1"}' } }))).toBe(
      [
        '→ POST http://ref.test/charge/payment-link',
        '  Accept: application/json',
        '  X-API-KEY: sk_a1b…****',
        '  Content-Type: application/json',
        '  {',
        '    "items": [',
        '      {',
        '        "productId": "prod_1",',
        '        "quantity": 2',
        '      }',
        '    ],',
        '    "externalId": "conf-test-1"',
        '  }',
        '← 201 (12 ms)',
        '  location: /charge/char_1',
        '  {',
        '    "id": "char_1"',
        '  }',
        `curl -sS -i -g -X POST http://ref.test/charge/payment-link -H 'Accept: application/json' -H "X-API-KEY: $PIX_API_KEY" -H 'Content-Type: application/json' --data-raw '{"items":[{"productId":"prod_1","quantity":2}],"externalId":"conf-test-1"}'`,
      ].join('\n'),
    );
  });

  test('no answer: the reason instead of a response', () => {
    expect(formatExchange(exchange({ response: undefined, error: 'connect ECONNREFUSED 127.0.0.1:9' }))).toMatch(
      /\n← no answer: connect ECONNREFUSED 127\.0\.0\.1:9 \(12 ms\)\ncurl -sS -i -g -X POST /,
    );
  });

  test('an empty body prints nothing; indent prefixes every line; the curl line can be left out', () => {
    const given = exchange({ request: { method: 'GET', url: 'http://h/x', headers: {} }, response: { status: 204, headers: {}, body: '' } });
    expect(formatExchange(given, { indent: '> ' })).toBe('> → GET http://h/x\n> ← 204 (12 ms)\n> curl -sS -i -g -X GET http://h/x');
    expect(formatExchange(given, { curl: false })).toBe('→ GET http://h/x\n← 204 (12 ms)');
  });
});

describe('formatBody', () => {
  const long = JSON.stringify({ data: Array.from({ length: 500 }, (_, i) => ({ id: `clnt_${i}` })) });
  const cases: Array<[string, { given: string; want: (text: string) => void }]> = [
    ['short JSON is pretty-printed', { given: '{"a":1}', want: (t) => expect(t).toBe('{\n  "a": 1\n}') }],
    [
      'long JSON is compact and cut near 2 KB, saying how much is left',
      {
        given: long,
        want: (t) => {
          expect(t.startsWith('{"data":[{"id":"clnt_0"},')).toBe(true);
          expect(t.length).toBeLessThan(BODY_LIMIT + 50);
          expect(t).toMatch(new RegExp(`\\n… \\(${long.length - BODY_LIMIT} more characters\\)$`));
        },
      },
    ],
    [
      'a long string inside JSON (a QR data URI) is shortened',
      {
        given: JSON.stringify({ qrCodeImage: `data:image/png;base64,${'A'.repeat(5000)}`, brCode: '000201' }),
        want: (t) => {
          expect(t).toContain('…(4722 more characters)');
          expect(t).toContain('"brCode": "000201"');
        },
      },
    ],
    ['text that is not JSON is kept as it is', { given: '<html>oops</html>', want: (t) => expect(t).toBe('<html>oops</html>') }],
    [
      'control characters are shown, not sent to the terminal',
      { given: 'a\x1b[2Jb\rc\x07\n\td', want: (t) => expect(t).toBe('a\\u001b[2Jb\\u000dc\\u0007\n\td') },
    ],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    want(formatBody(given));
  });
});

test('decisionNote names the decision once', () => {
  expect(decisionNote({ message: 'x is missing', decision: 'D21' })).toBe(' (departs from D21)');
  expect(decisionNote({ message: 'x has 3 decimal places (breaks decision D17)', decision: 'D17' })).toBe('');
  expect(decisionNote({ message: 'plain' })).toBe('');
});

test('printable keeps newlines, tabs and non-ASCII text', () => {
  expect(printable('Café\n\tR$ 10,00 🎉')).toBe('Café\n\tR$ 10,00 🎉');
});

describe('formatFindings', () => {
  const text = formatFindings(redactReport(sampleReport(), [API_KEY]));
  test('every failure with only its failed findings, its exchange and its curl line', () => {
    expect(text).toMatch(/^Failures \(3 checks; 3 findings\)\n\n✗ createPaymentLink › not_a_server_error\n {2}answered 500/);
    expect(text).toContain(
      `✗ listClients › tenant_isolation\n  another company's client is listed\n    → GET http://ref.test/client\n      X-API-KEY: sk_a1b…****\n    ← 200`,
    );
    expect(text).toContain(`more characters)\n    curl -sS -i -g -X GET http://ref.test/client -H "X-API-KEY: $PIX_API_KEY"\n`);
    expect(text).toContain('← no answer: no answer within 10000 ms (12 ms)\n    curl -sS -i -g -X POST http://ref.test/charge/payment-link ');
    expect(text).not.toContain('answered 201');
  });
  test('info findings one line each with their decision, and skip reasons counted', () => {
    expect(text).toContain(
      "Departures from the contract's decisions, not failures under profile seed (1 finding)\ni createPaymentLink › response_schema_conformance: externalId is missing from the charge (departs from D21)",
    );
    expect(text).toContain('Skipped\n– 1 × the target keeps no state (--stateless)\n– 1 × no second API key (--second-api-key)');
  });
  test('info lines are capped', () => {
    const report = sampleReport();
    const info = report.results.find((r) => r.outcome === 'info')!;
    info.findings = Array.from({ length: 5 }, (_, i) => ({ outcome: 'info' as const, message: `m${i}` }));
    expect(formatFindings(report, { maxInfoLines: 2 })).toContain('m1\n… 3 more in the HTML or JUnit report');
  });
});

describe('formatFindings groups identical findings', () => {
  const text = formatFindings(groupedReport());
  const section = (heading: string) => text.slice(text.indexOf(heading)).split('\n\n')[0]!;
  test('the same failure on two operations: one entry, both named, the first exchange, a curl line for each request', () => {
    expect(text).toMatch(/^Failures \(3 checks; 3 findings, 2 distinct\)\n\n/);
    const group = text.slice(text.indexOf('✗ not_a_server_error'), text.indexOf('✗ listClients › tenant_isolation'));
    expect(group.split('\n').slice(0, 3)).toEqual([
      '✗ not_a_server_error × 2 on 2 operations (getCharge, listClients)',
      '  GET /charge/6c4cc9f9-04ec-4ce0-935f-6411cb1089af → 500: a server error',
      '    → GET http://ref.test/charge/6c4cc9f9-04ec-4ce0-935f-6411cb1089af',
    ]);
    expect(group).toContain(
      [
        '    curl -sS -i -g -X GET http://ref.test/charge/6c4cc9f9-04ec-4ce0-935f-6411cb1089af -H "X-API-KEY: $PIX_API_KEY"',
        '    # listClients: GET /client → 500: a server error',
        `    curl -sS -i -g -X GET 'http://ref.test/client?limit=2' -H "X-API-KEY: $PIX_API_KEY"`,
      ].join('\n'),
    );
  });
  test('a request sent twice alike gets one curl line', () => {
    const report = groupedReport();
    const [getCharge] = report.results.filter((r) => r.check === 'not_a_server_error');
    getCharge!.findings.push({ ...getCharge!.findings[0]!, exchange: { ...getCharge!.findings[0]!.exchange! } });
    const twice = formatFindings(report);
    expect(twice).toContain('✗ not_a_server_error × 3 on 2 operations (getCharge ×2, listClients)');
    expect(twice.match(/curl -sS -i -g -X GET http:\/\/ref\.test\/charge\/6c4cc9f9/g)).toHaveLength(1);
  });
  test("a failure of one operation keeps its own title and message; the second company's key is $PIX_API_KEY_B", () => {
    expect(text).toContain('✗ listClients › tenant_isolation\n  clnt_9x8y7z (conf1234abcd-B) of the other company is listed\n');
    expect(text).toContain('curl -sS -i -g -X GET http://ref.test/client -H "X-API-KEY: $PIX_API_KEY_B"');
  });
  test('info: one line per group, with its count and the operations it touched; a decision of its own is another group', () => {
    expect(section('Departures').split('\n')).toEqual([
      "Departures from the contract's decisions, not failures under profile seed (6 findings, 2 distinct)",
      'i content_type_conformance × 3 on 2 operations (createPaymentLink ×2, createOrder): POST /charge/payment-link → 400: Content-Type application/json, documented application/problem+json (departs from D34)',
      'i content_type_conformance × 3 on 3 operations (createPaymentLink, createOrder, getCharge): POST /charge/payment-link → 401: Content-Type application/json, documented application/problem+json (departs from D02)',
    ]);
  });
  test("a group's first line is its first finding's message, word for word: no grouping placeholder ({request}, {id}, {run}) is printed", () => {
    expect(text).not.toMatch(/\{(request|url|operation|run|id)\}/);
  });
  test('nothing to say: empty', () => {
    expect(formatFindings({ ...sampleReport(), results: [] })).toBe('');
  });
});

describe('a failure that rests on two exchanges, and two failures on one exchange', () => {
  const create = exchange({
    request: {
      method: 'POST',
      url: 'http://ref.test/charge/payment-link',
      headers: { 'X-API-KEY': 'sk_a1b…****', 'Content-Type': 'application/json' },
      body: JSON.stringify({ successUrl: 'https://shop.example.com/ok', failedUrl: 'https://shop.example.com/fail' }),
      apiKey: { header: 'X-API-KEY', of: 'first' },
    },
    response: { status: 201, headers: {}, body: '{"data":{"id":"char_1a2b3c"}}' },
  });
  const read = exchange({
    operationId: 'getCharge',
    request: {
      method: 'GET',
      url: 'http://ref.test/charge/char_1a2b3c',
      headers: { 'X-API-KEY': 'sk_a1b…****' },
      apiKey: { header: 'X-API-KEY', of: 'first' },
    },
    response: { status: 200, headers: {}, body: '{"data":{"successUrl":"https://shop.example.com/fail","failedUrl":"https://shop.example.com/ok"}}' },
  });
  const report: RunReport = {
    ...sampleReport(),
    results: [
      {
        operationId: 'createPaymentLink',
        check: 'ensure_resource_availability',
        outcome: 'fail',
        findings: ['successUrl', 'failedUrl'].map((field) => ({
          outcome: 'fail' as const,
          message: `GET /charge/char_1a2b3c: \`${field}\` reads the other URL`,
          exchange: read,
          related: [create],
        })),
      },
    ],
  };
  const text = formatFindings(report);
  test('the request that wrote the value comes first, in full with its curl line, then the read', () => {
    const first = text.slice(text.indexOf('✗'), text.indexOf('✗', text.indexOf('✗') + 1));
    expect(first).toMatch(
      /^✗ createPaymentLink › ensure_resource_availability\n {2}GET \/charge\/char_1a2b3c: `successUrl` reads the other URL\n {4}written by createPaymentLink:\n {4}→ POST http:\/\/ref\.test\/charge\/payment-link\n/,
    );
    expect(first).toContain(
      `    curl -sS -i -g -X POST http://ref.test/charge/payment-link -H "X-API-KEY: $PIX_API_KEY" -H 'Content-Type: application/json' --data-raw `,
    );
    expect(first).toMatch(/\n {4}read by getCharge:\n {4}→ GET http:\/\/ref\.test\/charge\/char_1a2b3c\n/);
    expect(first.indexOf('written by')).toBeLessThan(first.indexOf('read by'));
  });
  test('each exchange is printed in full once in the Failures section; after that, one line and its curl line', () => {
    expect(text.match(/→ GET http:\/\/ref\.test\/charge\/char_1a2b3c\n/g)).toHaveLength(1);
    expect(text.match(/→ POST http:\/\/ref\.test\/charge\/payment-link\n/g)).toHaveLength(1);
    const second = text.slice(text.lastIndexOf('✗'));
    expect(second).toContain('    → POST http://ref.test/charge/payment-link ← 201: the exchange printed in full above\n    curl -sS -i -g -X POST');
    expect(second).toContain('    → GET http://ref.test/charge/char_1a2b3c ← 200: the exchange printed in full above\n    curl -sS -i -g -X GET');
  });
  test('JUnit: one <failure> prints each exchange once too; HTML shows both exchanges of a finding', () => {
    const failure = renderJunit(report).split('<failure')[1]!;
    expect(failure.match(/→ GET http:\/\/ref\.test\/charge\/char_1a2b3c\n/g)).toHaveLength(1);
    const html = renderHtml(report);
    expect(html).toContain('written by createPaymentLink:');
    expect(html).toContain('curl -sS -i -g -X POST http://ref.test/charge/payment-link');
  });
  test("a finding's detail (which items of a list) is printed with it, and is not what groups it", () => {
    const list = (n: number) =>
      exchange({
        operationId: 'listClients',
        request: { method: 'GET', url: `http://ref.test/client?limit=${n}`, headers: {} },
        response: { status: 200, headers: {}, body: '[]' },
      });
    const grouped = formatFindings({
      ...sampleReport(),
      results: [
        {
          operationId: 'listClients',
          check: 'response_schema_conformance',
          outcome: 'fail',
          findings: [3, 56].map((n) => ({
            outcome: 'fail' as const,
            message: "GET /client → 200: /* must have required property 'phone'",
            detail: `/*: at ${n} items (0–${n - 1})`,
            exchange: list(n),
          })),
        },
      ],
    });
    expect(grouped).toContain(
      "✗ listClients › response_schema_conformance × 2\n  GET /client → 200: /* must have required property 'phone'\n    where: /*: at 3 items (0–2)\n",
    );
    expect(grouped).toContain("    # listClients (/*: at 56 items (0–55))\n    curl -sS -i -g -X GET 'http://ref.test/client?limit=56'");
  });
});

describe('masking: no full API key in any output', () => {
  const raw = sampleReport();
  // The sample's target echoes the first key; make it echo the second in an error too.
  raw.results[0]!.findings[0]!.message += ` (sent ${SECOND_API_KEY})`;
  const report = redactReport(raw, [API_KEY, SECOND_API_KEY]);
  const outputs: Array<[string, string]> = [
    ['matrix', renderMatrix(report)],
    ['findings', formatFindings(report)],
    ['junit', renderJunit(report)],
    ['html', renderHtml(report)],
    ['report JSON', JSON.stringify(report)],
  ];
  test('the unredacted sample does hold the keys (so the checks below can fail)', () => {
    expect(JSON.stringify(raw)).toContain(API_KEY);
    expect(formatFindings(raw)).toContain(API_KEY);
    expect(renderHtml(raw)).toContain(API_KEY);
  });
  test.each(outputs)('%s', (_name, output) => {
    expect(output).not.toContain(API_KEY);
    expect(output).not.toContain(SECOND_API_KEY);
    expect(output).not.toContain(API_KEY.slice(-20));
  });
  test('keys are replaced by their masked form, object keys too', () => {
    expect(redactReport({ [API_KEY]: `x${API_KEY}y` }, [API_KEY])).toEqual({ 'sk_a1b…****': 'xsk_a1b…****y' });
  });
  test('short keys (the mock’s "any") are not scrubbed from ordinary words', () => {
    expect(redactReport('many companies', ['any'])).toBe('many companies');
  });

  test('the start of a key, 12 characters or more, is masked too (an echo cut short); less is left', () => {
    const key = 'sk_brokenbrokenbrokenbroken_EchoedBackEchoedBack1234';
    expect(redactReport(`not JSON: "boom for key ${key.slice(0, 27)}"`, [key])).toBe(`not JSON: "boom for key ${maskKey(key)}"`);
    expect(redactReport(`${key.slice(0, 12)} and ${key}`, [key])).toBe(`${maskKey(key)} and ${maskKey(key)}`);
    expect(redactReport(`prefix ${key.slice(0, 11)}`, [key])).toBe(`prefix ${key.slice(0, 11)}`);
  });
});
