/**
 * Why a request got no answer, in the words the CLI prints (`target unreachable: URL does not
 * answer: …`): the cause Node's fetch wraps, the host and port, and what to look at. The errors
 * are built as undici throws them; the CLI test meets the real ones (conformance/cli.test.ts).
 */
import { describe, expect, test } from 'vitest';
import { whyNoAnswer } from './http.js';

const failed = (code: string | undefined, message = 'x') => new TypeError('fetch failed', { cause: Object.assign(new Error(message), code ? { code } : {}) });

describe('whyNoAnswer', () => {
  test.each<[string, { url: string; given: unknown; want: string }]>([
    [
      'connection refused',
      {
        url: 'http://127.0.0.1:3999/v1',
        given: failed('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:3999'),
        want: 'connection refused: nothing listens on 127.0.0.1:3999 (is the service up, the port right?)',
      },
    ],
    [
      'no such host',
      {
        url: 'https://pix.example.invalid',
        given: failed('ENOTFOUND', 'getaddrinfo ENOTFOUND pix.example.invalid'),
        want: 'no such host: pix.example.invalid does not resolve (DNS: ENOTFOUND); is the name right?',
      },
    ],
    [
      'DNS failing for now',
      {
        url: 'https://pix.example.com',
        given: failed('EAI_AGAIN', 'getaddrinfo EAI_AGAIN pix.example.com'),
        want: 'DNS lookup failed for pix.example.com: EAI_AGAIN (is the network or the resolver up?)',
      },
    ],
    ['timed out (seconds)', { url: 'http://10.0.0.1', given: new DOMException('aborted', 'TimeoutError'), want: 'timed out: no answer within 5 s' }],
    [
      'undici gave up connecting',
      {
        url: 'https://pix.example.com',
        given: failed('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error'),
        want: 'timed out connecting to pix.example.com:443: Connect Timeout Error, UND_ERR_CONNECT_TIMEOUT (a firewall dropping the packets?)',
      },
    ],
    [
      'a self-signed certificate',
      {
        url: 'https://localhost:8443',
        given: failed('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'),
        want: 'TLS failure with localhost:8443: self-signed certificate, DEPTH_ZERO_SELF_SIGNED_CERT (a certificate of a private CA: trust the CA with NODE_EXTRA_CA_CERTS=ca.pem)',
      },
    ],
    [
      'https to a plain HTTP port (openssl says it at length)',
      {
        url: 'https://127.0.0.1:3000',
        given: failed('ERR_SSL_WRONG_VERSION_NUMBER', '809C:error:0A00010B:SSL routines:ssl3_get_record:wrong version number'),
        want: 'TLS failure with 127.0.0.1:3000: ERR_SSL_WRONG_VERSION_NUMBER (is it http://, not https://?)',
      },
    ],
    [
      'http to a TLS port: closed',
      {
        url: 'http://127.0.0.1:8443',
        given: failed('UND_ERR_SOCKET', 'other side closed'),
        want: 'connection closed without an answer by 127.0.0.1:8443: other side closed, UND_ERR_SOCKET (does it speak https only?)',
      },
    ],
    [
      'not HTTP',
      {
        url: 'http://127.0.0.1:22',
        given: failed('HPE_INVALID_CONSTANT', 'Expected HTTP/'),
        want: '127.0.0.1:22 answered something that is not HTTP: Expected HTTP/, HPE_INVALID_CONSTANT',
      },
    ],
    [
      'a blocked port',
      {
        url: 'http://127.0.0.1:1',
        given: failed(undefined, 'bad port'),
        want: 'port 1 is one fetch never connects to (a blocked "bad port" of the Fetch standard); use another',
      },
    ],
    ['anything else', { url: 'http://127.0.0.1:3000', given: new TypeError('fetch failed'), want: 'no answer from 127.0.0.1:3000: fetch failed' }],
  ])('%s', (_name, { url, given, want }) => {
    expect(whyNoAnswer(given, url, 5_000)).toBe(want);
  });

  test('a timeout that is not whole seconds is said in milliseconds', () => {
    expect(whyNoAnswer(new DOMException('aborted', 'TimeoutError'), 'http://10.0.0.1', 1_500)).toBe('timed out: no answer within 1500 ms');
  });
});
