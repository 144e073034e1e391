import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { send } from '../engine/http.js';
import type { RecordedRequest } from '../engine/types.js';
import { CURL_BODY_LIMIT, curlCommand, shellQuote } from './curl.js';
import { API_KEY, SECOND_API_KEY } from './sample-report.js';

const post = (overrides: Partial<RecordedRequest> = {}): RecordedRequest => ({
  method: 'POST',
  url: 'http://ref.test/charge/payment-link',
  headers: { Accept: 'application/json', 'X-API-KEY': 'sk_a1b…****', 'Content-Type': 'application/json' },
  body: '{"externalId":"conf-1"}',
  apiKey: { header: 'X-API-KEY', of: 'first' },
  ...overrides,
});

describe('shellQuote', () => {
  const cases: Array<[string, { given: string; want: string }]> = [
    ['a safe word stays bare', { given: 'POST', want: 'POST' }],
    ['spaces and $ are single-quoted, never expanded', { given: 'a $HOME `x`', want: "'a $HOME `x`'" }],
    ['a single quote closes, escapes and reopens', { given: "it's", want: `'it'\\''s'` }],
    ['the empty string is two quotes', { given: '', want: "''" }],
    ["a newline or an escape character is written $'…' on one line", { given: "a\n\u001b[2J'\\", want: "$'a\\x0a\\x1b[2J\\'\\\\'" }],
    ['non-ASCII text is kept', { given: 'Café 🎉', want: "'Café 🎉'" }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    expect(shellQuote(given)).toBe(want);
  });
});

describe('curlCommand', () => {
  const cases: Array<[string, { given: RecordedRequest; want: string }]> = [
    [
      "the run's key as $PIX_API_KEY, the body --data-raw",
      {
        given: post(),
        want: `curl -sS -i -g -X POST http://ref.test/charge/payment-link -H 'Accept: application/json' -H "X-API-KEY: $PIX_API_KEY" -H 'Content-Type: application/json' --data-raw '{"externalId":"conf-1"}'`,
      },
    ],
    [
      "the second company's key as $PIX_API_KEY_B",
      {
        given: {
          method: 'GET',
          url: 'http://ref.test/client?limit=2&after=x',
          headers: { 'X-API-KEY': 'sk_z9y…****' },
          apiKey: { header: 'X-API-KEY', of: 'second' },
        },
        want: `curl -sS -i -g -X GET 'http://ref.test/client?limit=2&after=x' -H "X-API-KEY: $PIX_API_KEY_B"`,
      },
    ],
    [
      'a key a check made up is sent as it was (no secret: the line reproduces the refusal)',
      {
        given: {
          method: 'GET',
          url: 'http://ref.test/client',
          headers: { 'X-API-KEY': 'no…****' },
          apiKey: { header: 'X-API-KEY', of: 'made-up', value: 'not-a-key' },
        },
        want: `curl -sS -i -g -X GET http://ref.test/client -H 'X-API-KEY: not-a-key'`,
      },
    ],
    [
      'no key: no key header',
      { given: { method: 'DELETE', url: 'http://ref.test/webhook/w1', headers: {} }, want: 'curl -sS -i -g -X DELETE http://ref.test/webhook/w1' },
    ],
    [
      'the key header found whatever its case',
      {
        given: { method: 'GET', url: 'http://h/x', headers: { 'x-api-key': 'sk_a1b…****' }, apiKey: { header: 'X-API-KEY', of: 'first' } },
        want: `curl -sS -i -g -X GET http://h/x -H "x-api-key: $PIX_API_KEY"`,
      },
    ],
    [
      'quotes in the body and the URL are closed and reopened',
      {
        given: post({ url: "http://ref.test/client/it's", body: `{"name":"D'Ávila"}` }),
        want: `curl -sS -i -g -X POST 'http://ref.test/client/it'\\''s' -H 'Accept: application/json' -H "X-API-KEY: $PIX_API_KEY" -H 'Content-Type: application/json' --data-raw '{"name":"D'\\''Ávila"}'`,
      },
    ],
    [
      "a body sent without Content-Type keeps curl's form type off",
      {
        given: { method: 'POST', url: 'http://h/x', headers: {}, body: 'x=1' },
        want: 'curl -sS -i -g -X POST http://h/x -H Content-Type: --data-raw x=1',
      },
    ],
    [
      'an empty header value is written Name; (curl drops "Name:")',
      { given: { method: 'GET', url: 'http://h/x', headers: { 'X-Empty': '' } }, want: `curl -sS -i -g -X GET http://h/x -H 'X-Empty;'` },
    ],
    [
      'an Idempotency-Key stays as the run sent it, and the line says so',
      {
        given: post({ headers: { 'Idempotency-Key': 'conf1234-idem-1', 'Content-Type': 'application/json' } }),
        want: `curl -sS -i -g -X POST http://ref.test/charge/payment-link -H 'Idempotency-Key: conf1234-idem-1' -H 'Content-Type: application/json' --data-raw '{"externalId":"conf-1"}'  # the Idempotency-Key the run sent: a replay of its request (change it for a new one)`,
      },
    ],
    [
      'a body too long for a command line is read from a file, and the line says where it is',
      {
        given: post({ headers: { 'Content-Type': 'application/json' }, body: `{"items":[${'"x",'.repeat(CURL_BODY_LIMIT / 4)}"x"]}` }),
        want: `curl -sS -i -g -X POST http://ref.test/charge/payment-link -H 'Content-Type: application/json' --data-binary @body.json  # body.json: the request body (${CURL_BODY_LIMIT + 15} bytes), too long for a command line; the HAR file of the run (--har) holds it`,
      },
    ],
    ['HEAD is --head (-X HEAD would wait for a body)', { given: { method: 'HEAD', url: 'http://h/x', headers: {} }, want: 'curl -sS -i -g --head http://h/x' }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    expect(curlCommand(given)).toBe(want);
  });

  const bash = spawnSync('bash', ['--version']).status === 0;
  if (!bash) console.warn('NOTICE: bash is not installed: the curl lines are not checked for shell syntax.');
  test.skipIf(!bash).each(cases)('%s: bash -n reads it as one command', (_name, { given }) => {
    const line = curlCommand(given);
    const checked = spawnSync('bash', ['-n', '-c', line], { encoding: 'utf8' });
    expect(checked.stderr).toBe('');
    expect(checked.status).toBe(0);
    // The words bash makes of it: one `curl` command, nothing run besides.
    const words = spawnSync('bash', ['-c', `printf '%s\\n' ${line.replace(/^curl /, '')}`], {
      encoding: 'utf8',
      env: { PIX_API_KEY: 'K1', PIX_API_KEY_B: 'K2' },
    });
    expect(words.status).toBe(0);
    expect(words.stdout.split('\n')).toContain(given.method === 'HEAD' ? '--head' : given.method);
  });

  test.skipIf(!bash)('bash -n itself rejects a line quoted wrong (so the check above can fail)', () => {
    expect(spawnSync('bash', ['-n', '-c', `curl --data-raw '{"name":"D'Ávila"}`]).status).not.toBe(0);
  });

  test('made from a real exchange, the line holds no key and the exchange no key either', async () => {
    const fetched: string[] = [];
    const fake: typeof fetch = async (_input, init) => {
      fetched.push(String(new Headers(init?.headers).get('X-API-KEY')));
      return new Response('{}', { status: 201, headers: { 'content-type': 'application/json' } });
    };
    for (const [key, of] of [
      [API_KEY, 'first'],
      [SECOND_API_KEY, 'second'],
    ] as const) {
      const exchange = await send(
        fake,
        {
          operationId: 'createClient',
          method: 'post',
          url: 'http://h/client',
          headers: { 'X-API-KEY': key },
          secretHeaders: ['X-API-KEY'],
          apiKey: { header: 'X-API-KEY', of },
          body: { name: 'x' },
        },
        1000,
      );
      const line = curlCommand(exchange.request);
      expect(line).toContain(`"X-API-KEY: $${of === 'first' ? 'PIX_API_KEY' : 'PIX_API_KEY_B'}"`);
      expect(line).not.toContain(key.slice(8));
      expect(JSON.stringify(exchange)).not.toContain(key.slice(8));
    }
    expect(fetched).toEqual([API_KEY, SECOND_API_KEY]);
  });
});

const curl = (() => {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    console.warn('NOTICE: curl is not installed: the curl lines of the reports are not run.');
    return false;
  }
})();

describe.skipIf(!curl)('run with curl, the line sends the request the run sent', () => {
  interface Seen {
    method: string;
    url: string;
    headers: IncomingHttpHeaders;
    body: string;
  }
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(201, { 'content-type': 'application/json' }).end('{}');
    });
  });
  let origin = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const cases: Array<[string, Omit<RecordedRequest, 'url'> & { path: string; keyValue?: string }]> = [
    [
      "POST with the run's key, a body with quotes and non-ASCII text, and an Idempotency-Key",
      {
        method: 'POST',
        path: '/charge/payment-link?x=1',
        headers: {
          Accept: 'application/json, application/problem+json',
          'X-API-KEY': 'sk_a1b…****',
          'Idempotency-Key': 'conf-idem-1',
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({ name: "D'Ávila $HOME `id`", items: [{ quantity: 2 }] }),
        apiKey: { header: 'X-API-KEY', of: 'first' },
        keyValue: 'the-first-key',
      },
    ],
    [
      "PATCH with the second company's key",
      {
        method: 'PATCH',
        path: '/webhook/w_1',
        headers: { 'X-API-KEY': 'sk_z9y…****', 'Content-Type': 'application/json' },
        body: '{"enabled":false}',
        apiKey: { header: 'X-API-KEY', of: 'second' },
        keyValue: 'the-second-key',
      },
    ],
    [
      'GET with a made-up key and a body with a newline (a raw string body)',
      {
        method: 'GET',
        path: '/client',
        headers: { 'X-API-KEY': 'no…****', 'Content-Type': 'text/plain' },
        body: "line 1\nline 2\t'end'",
        apiKey: { header: 'X-API-KEY', of: 'made-up', value: 'not-a-key' },
        keyValue: 'not-a-key',
      },
    ],
    ['DELETE with no key and a body without Content-Type (curl adds none)', { method: 'DELETE', path: '/webhook/w_2', headers: {}, body: 'x=1&y=2' }],
  ];
  test.each(cases)('%s', async (_name, { path, keyValue, ...request }) => {
    const line = curlCommand({ ...request, url: `${origin}${path}` });
    seen.length = 0;
    // Not execFileSync: the server answering curl runs in this very process.
    const { stdout } = await promisify(execFile)('bash', ['-c', line], {
      env: { PATH: process.env.PATH, PIX_API_KEY: 'the-first-key', PIX_API_KEY_B: 'the-second-key' },
    });
    expect(stdout).toMatch(/^HTTP\/1\.1 201/);
    expect(seen).toHaveLength(1);
    const [got] = seen;
    expect(got!.method).toBe(request.method);
    expect(got!.url).toBe(path);
    expect(got!.body).toBe(request.body);
    for (const [name, value] of Object.entries(request.headers)) {
      expect(got!.headers[name.toLowerCase()], name).toBe(name.toLowerCase() === 'x-api-key' ? keyValue : value);
    }
    if (!('Content-Type' in request.headers)) expect(got!.headers['content-type']).toBeUndefined();
  });
});
