import { describe, expect, test } from 'vitest';
import { type FetchFailure, fetchFailure } from './fetch-failure.js';

/** What Node's fetch (undici) throws: a TypeError "fetch failed" whose cause carries the code. */
const failed = (code: string | undefined, message = 'x') => new TypeError('fetch failed', { cause: Object.assign(new Error(message), code ? { code } : {}) });

describe('fetchFailure: the kind of a fetch that got no answer', () => {
  test.each<[string, { given: unknown; want: FetchFailure }]>([
    ['AbortSignal.timeout fired', { given: new DOMException('The operation was aborted due to timeout', 'TimeoutError'), want: { kind: 'timeout' } }],
    [
      'nothing listens',
      {
        given: failed('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9'),
        want: { kind: 'refused', code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:9' },
      },
    ],
    [
      'both addresses of localhost refused (an AggregateError)',
      {
        given: new TypeError('fetch failed', { cause: new AggregateError([Object.assign(new Error('connect ECONNREFUSED ::1:9'), { code: 'ECONNREFUSED' })]) }),
        want: { kind: 'refused', code: 'ECONNREFUSED', message: 'connect ECONNREFUSED ::1:9' },
      },
    ],
    ['the name does not resolve', { given: failed('ENOTFOUND'), want: { kind: 'no-such-host', code: 'ENOTFOUND', message: 'x' } }],
    ['the resolver does not answer', { given: failed('EAI_AGAIN'), want: { kind: 'dns-failed', code: 'EAI_AGAIN', message: 'x' } }],
    [
      'undici gave up connecting',
      { given: failed('UND_ERR_CONNECT_TIMEOUT'), want: { kind: 'connect-timeout', code: 'UND_ERR_CONNECT_TIMEOUT', message: 'x' } },
    ],
    ['no route', { given: failed('EHOSTUNREACH'), want: { kind: 'unreachable', code: 'EHOSTUNREACH', message: 'x' } }],
    [
      'closed before an answer',
      { given: failed('UND_ERR_SOCKET', 'other side closed'), want: { kind: 'closed', code: 'UND_ERR_SOCKET', message: 'other side closed' } },
    ],
    ['reset', { given: failed('ECONNRESET'), want: { kind: 'closed', code: 'ECONNRESET', message: 'x' } }],
    [
      'a self-signed certificate',
      {
        given: failed('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'),
        want: { kind: 'tls', code: 'DEPTH_ZERO_SELF_SIGNED_CERT', message: 'self-signed certificate' },
      },
    ],
    [
      'https to a plain HTTP port',
      { given: failed('ERR_SSL_WRONG_VERSION_NUMBER'), want: { kind: 'tls', code: 'ERR_SSL_WRONG_VERSION_NUMBER', message: 'x' } },
    ],
    [
      'a certificate for another name',
      { given: failed('ERR_TLS_CERT_ALTNAME_INVALID'), want: { kind: 'tls', code: 'ERR_TLS_CERT_ALTNAME_INVALID', message: 'x' } },
    ],
    ['an answer that is not HTTP', { given: failed('HPE_INVALID_CONSTANT'), want: { kind: 'not-http', code: 'HPE_INVALID_CONSTANT', message: 'x' } }],
    ['a port fetch never uses', { given: failed(undefined, 'bad port'), want: { kind: 'blocked-port', message: 'bad port' } }],
    ['anything else', { given: new Error('boom'), want: { kind: 'other', message: 'boom' } }],
    ['an unknown code', { given: failed('EWHATEVER'), want: { kind: 'other', code: 'EWHATEVER', message: 'x' } }],
  ])('%s', (_name, { given, want }) => {
    expect(fetchFailure(given)).toEqual(want);
  });
});
