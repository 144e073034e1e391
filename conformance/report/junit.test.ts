import { describe, expect, test } from 'vitest';
import type { RunReport } from '../engine/types.js';
import { redactReport } from './failures.js';
import { renderJunit, xmlEscape } from './junit.js';
import { totals } from './matrix.js';
import { API_KEY, groupedReport, nasty, sampleReport } from './sample-report.js';
import { parseXml, type XmlElement } from './xml-check.js';

describe('the well-formedness check itself', () => {
  const prolog = '<?xml version="1.0" encoding="UTF-8"?>\n';
  const cases: Array<[string, { given: string; want: RegExp }]> = [
    ['crossed tags', { given: `${prolog}<a><b></a></b>`, want: /closes/ }],
    ['unclosed tag', { given: `${prolog}<a><b></b>`, want: /never closed/ }],
    ['bare ampersand', { given: `${prolog}<a>x & y</a>`, want: /bare &/ }],
    ['bare < in an attribute', { given: `${prolog}<a x="<"/>`, want: /malformed tag/ }],
    ['duplicate attribute', { given: `${prolog}<a x="1" x="2"/>`, want: /duplicate attribute/ }],
    ['control character', { given: `${prolog}<a>\u0001</a>`, want: /not allowed/ }],
    ['two roots', { given: `${prolog}<a/><b/>`, want: /second root/ }],
    ['no declaration', { given: '<a/>', want: /no XML declaration/ }],
  ];
  test.each(cases)('rejects %s', (_name, { given, want }) => {
    expect(() => parseXml(given)).toThrow(want);
  });
  test('accepts what it should, decoding entities', () => {
    expect(parseXml(`${prolog}<a k="&quot;&#10;"><b/>x &amp; &#x41;</a>`)).toEqual({
      name: 'a',
      attrs: { k: '"\n' },
      children: [{ name: 'b', attrs: {}, children: [], text: '' }],
      text: 'x & A',
    });
  });
});

describe('renderJunit', () => {
  const report = redactReport(sampleReport(), [API_KEY]);
  const xml = renderJunit(report);
  const root = parseXml(xml);
  const suite = (name: string) => root.children.find((s) => s.name === 'testsuite' && s.attrs.name === name)!;
  const testcase = (op: string, check: string) => suite(op).children.find((c) => c.name === 'testcase' && c.attrs.name === check)!;

  test('is well-formed, with totals on the root', () => {
    expect(root.name).toBe('testsuites');
    expect(root.attrs).toMatchObject({ tests: '7', failures: '3', skipped: '2', errors: '0', time: '4.321', timestamp: '2026-01-02T03:04:05.000Z' });
  });

  test('one testsuite per operation, one testcase per result', () => {
    expect(root.children.map((s) => [s.name, s.attrs.name, s.attrs.tests, s.attrs.failures, s.attrs.skipped])).toEqual([
      ['testsuite', 'createPaymentLink', '3', '1', '1'],
      ['testsuite', 'getCharge', '2', '0', '1'],
      ['testsuite', 'listClients', '2', '2', '0'],
    ]);
    expect(
      suite('getCharge')
        .children.filter((c) => c.name === 'testcase')
        .map((c) => c.attrs.name),
    ).toEqual(['status_code_conformance', 'tenant_isolation']);
    expect(suite('getCharge').children[0]!.children.map((p) => [p.attrs.name, p.attrs.value])).toEqual([
      ['profile', 'seed'],
      ['runId', 'conf1234abcd'],
      ['baseUrl', 'http://ref.test'],
      ['baseUrlAlt', 'http://alt.ref.test'],
    ]);
  });

  const cases: Array<[string, { given: [string, string]; want: (c: XmlElement) => void }]> = [
    ['pass → an empty testcase', { given: ['getCharge', 'status_code_conformance'], want: (c) => expect(c.children).toEqual([]) }],
    [
      'skip → <skipped message>',
      {
        given: ['getCharge', 'tenant_isolation'],
        want: (c) => expect(c.children).toEqual([{ name: 'skipped', attrs: { message: 'no second API key (--second-api-key)' }, children: [], text: '' }]),
      },
    ],
    [
      'info → <system-out> with the info text and its decision',
      {
        given: ['createPaymentLink', 'response_schema_conformance'],
        want: (c) => {
          expect(c.children.map((x) => x.name)).toEqual(['system-out']);
          expect(c.children[0]!.text).toMatch(
            /^info: externalId is missing from the charge \(departs from D21\)\n {2}→ POST http:\/\/ref\.test\/charge\/payment-link/,
          );
        },
      },
    ],
    [
      'fail → <failure> with only the failed findings, the exchange and the escaped body',
      {
        given: ['createPaymentLink', 'not_a_server_error'],
        want: (c) => {
          const failure = c.children[0]!;
          expect(failure.name).toBe('failure');
          expect(failure.attrs.message).toBe(`answered 500 to a valid request ${nasty.replace(/[\u0001\u0007\uD800]/g, '\uFFFD')}`);
          expect(failure.text).toContain('← 500 (12 ms)');
          expect(failure.text).toContain('<script>alert(\\"x\\")</script>');
          expect(failure.text).not.toContain('answered 201');
        },
      },
    ],
    [
      'fail without an answer → the transport error',
      { given: ['listClients', 'ignored_auth'], want: (c) => expect(c.children[0]!.text).toContain('← no answer: no answer within 10000 ms') },
    ],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    want(testcase(...given));
  });

  test('no full API key, even one the target echoed', () => {
    expect(xml).not.toContain(API_KEY);
    expect(xml).toContain('sk_a1b…****');
  });

  test('an empty report is still a well-formed document', () => {
    const empty: RunReport = { ...report, operations: [], results: [] };
    expect(parseXml(renderJunit(empty))).toMatchObject({ name: 'testsuites', attrs: { tests: '0' }, children: [] });
  });
});

describe('renderJunit groups identical findings', () => {
  const report = groupedReport();
  const root = parseXml(renderJunit(report));
  const testcase = (op: string, check: string) =>
    root.children.find((s) => s.attrs.name === op)!.children.find((c) => c.name === 'testcase' && c.attrs.name === check)!;

  test('still one testcase per check and operation: the totals are the terminal’s', () => {
    expect(root.attrs).toMatchObject({ tests: '7', failures: '3', skipped: '0' });
  });

  const cases: Array<[string, { given: [string, string]; want: (c: XmlElement) => void }]> = [
    [
      'a failure other operations share names them, in its message and its text',
      {
        given: ['getCharge', 'not_a_server_error'],
        want: (c) => {
          const failure = c.children[0]!;
          expect(failure.attrs.message).toBe(
            'GET /charge/6c4cc9f9-04ec-4ce0-935f-6411cb1089af → 500: a server error (the same finding on 1 more operation: listClients)',
          );
          expect(failure.text).toMatch(
            /\n {2}curl -sS -i -g -X GET http:\/\/ref\.test\/charge\/6c4cc9f9-04ec-4ce0-935f-6411cb1089af -H "X-API-KEY: \$PIX_API_KEY"\n/,
          );
          expect(failure.text).toMatch(/\nAnd the same finding on 1 more operation: listClients\.$/);
        },
      },
    ],
    [
      "a failure of its own says nothing more; the second company's key is $PIX_API_KEY_B",
      {
        given: ['listClients', 'tenant_isolation'],
        want: (c) => {
          expect(c.children[0]!.attrs.message).toBe('clnt_9x8y7z (conf1234abcd-B) of the other company is listed');
          expect(c.children[0]!.text).toMatch(/ -H "X-API-KEY: \$PIX_API_KEY_B"$/);
        },
      },
    ],
    [
      'info repeated on one operation: written once with its count, a curl line for each request',
      {
        given: ['createPaymentLink', 'content_type_conformance'],
        want: (c) => {
          const [d34, d02] = c.children[0]!.text.split('\n\n');
          expect(d34).toMatch(/^info: POST \/charge\/payment-link → 400: Content-Type [^\n]+ \(departs from D34\) \(× 2\)\n/);
          expect(d34!.match(/\n {2}curl /g)).toHaveLength(2);
          expect(d34).toMatch(/\nAnd the same finding on 1 more operation: createOrder\.$/);
          expect(d02).toMatch(/\nAnd the same finding on 2 more operations: createOrder, getCharge\.$/);
        },
      },
    ],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    want(testcase(...given));
  });
});

describe('xmlEscape', () => {
  const cases: Array<[string, { given: string; want: string }]> = [
    ['markup', { given: `<a href="x">&'</a>`, want: '&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;' }],
    ['CDATA end', { given: ']]>', want: ']]&gt;' }],
    ['control characters replaced, tab and newline kept', { given: 'a\u0000b\tc\nd\u001F', want: 'a\uFFFDb\tc\nd\uFFFD' }],
    ['surrogate pairs kept, lone ones replaced', { given: '🎉\uD800x\uDC00', want: '🎉\uFFFDx\uFFFD' }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    expect(xmlEscape(given)).toBe(want);
  });
});

describe('a run that stopped before its end', () => {
  const stopped = 'target unreachable: http://ref.test/order and the 4 requests before it got no answer; the run stops';
  const report = { ...sampleReport(), stopped, leftBehind: ['DELETE http://ref.test/webhook/wbhk_1'] };
  const root = parseXml(renderJunit(report));
  test('one error more, first, in a suite of its own, saying why and what is left; the checks as they were', () => {
    const all = totals(report.results);
    expect(root.attrs).toMatchObject({ tests: String(all.checks + 1), errors: '1', failures: String(all.fail), skipped: String(all.skip) });
    const [run, ...suites] = root.children;
    expect(run?.attrs).toMatchObject({ name: 'run', tests: '1', errors: '1' });
    const error = run?.children[0]?.children[0];
    expect(error?.name).toBe('error');
    expect(error?.attrs.message).toBe(`the run stopped before its end: ${stopped}`);
    expect(error?.text).toContain('Records it made and could not delete:\nDELETE http://ref.test/webhook/wbhk_1');
    expect(suites.map((s) => s.attrs.name)).toEqual(parseXml(renderJunit(sampleReport())).children.map((s) => s.attrs.name));
  });
  test('a run that ended has no such suite', () => {
    expect(parseXml(renderJunit(sampleReport())).attrs.errors).toBe('0');
  });
});
