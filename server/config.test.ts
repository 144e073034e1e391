import { describe, expect, test } from 'vitest';
import { ConfigError, loadConfig, type ConfigEnv } from './config.js';

describe('rate-limit configuration (D11)', () => {
  test.each<[string, ConfigEnv, { key: number; anonymous: number; header: string | undefined }]>([
    ['the defaults: 100 per key, a quarter per address, no proxy trusted', {}, { key: 100, anonymous: 25, header: undefined }],
    ['the address quota follows the key quota', { RATE_LIMIT_REQUESTS: '10' }, { key: 10, anonymous: 3, header: undefined }],
    ['set on its own', { RATE_LIMIT_ANONYMOUS_REQUESTS: '7' }, { key: 100, anonymous: 7, header: undefined }],
    ['RATE_LIMIT_REQUESTS=0 turns both off', { RATE_LIMIT_REQUESTS: '0', RATE_LIMIT_ANONYMOUS_REQUESTS: '7' }, { key: 0, anonymous: 0, header: undefined }],
    ['RATE_LIMIT_ANONYMOUS_REQUESTS=0 turns only it off', { RATE_LIMIT_ANONYMOUS_REQUESTS: '0' }, { key: 100, anonymous: 0, header: undefined }],
    ['a trusted proxy header, in lower case', { TRUSTED_PROXY_HEADER: 'X-Forwarded-For' }, { key: 100, anonymous: 25, header: 'x-forwarded-for' }],
  ])('%s', (_name, env, want) => {
    const config = loadConfig(env);
    expect({ key: config.rateLimitRequests, anonymous: config.rateLimitAnonymousRequests, header: config.trustedProxyHeader }).toEqual(want);
  });

  test.each<[string, ConfigEnv, RegExp]>([
    ['a header name with a space', { TRUSTED_PROXY_HEADER: 'x forwarded' }, /^TRUSTED_PROXY_HEADER must be a header name/],
    ['a header name with a colon', { TRUSTED_PROXY_HEADER: 'x-forwarded-for:' }, /^TRUSTED_PROXY_HEADER must be a header name/],
    ['a negative anonymous quota', { RATE_LIMIT_ANONYMOUS_REQUESTS: '-1' }, /^RATE_LIMIT_ANONYMOUS_REQUESTS must be a whole number/],
  ])('%s is refused', (_name, env, want) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(want);
  });
});

describe('connection limits (D34, issue 34)', () => {
  test.each<[string, ConfigEnv, { keepAlive: number; idle: number; perAddress: number }]>([
    ['the defaults', {}, { keepAlive: 5_000, idle: 60_000, perAddress: 128 }],
    ['an idle timeout past a longer request timeout by default', { REQUEST_TIMEOUT_MS: '90000' }, { keepAlive: 5_000, idle: 90_000, perAddress: 128 }],
    ['behind a trusted proxy: no bound per address unless set', { TRUSTED_PROXY_HEADER: 'x-forwarded-for' }, { keepAlive: 5_000, idle: 60_000, perAddress: 0 }],
    ['set', { KEEP_ALIVE_TIMEOUT_MS: '1000', IDLE_TIMEOUT_MS: '20000', CONNECTIONS_PER_ADDRESS: '8' }, { keepAlive: 1_000, idle: 20_000, perAddress: 8 }],
  ])('%s', (_name, env, want) => {
    const config = loadConfig(env);
    expect({ keepAlive: config.keepAliveTimeoutMs, idle: config.idleTimeoutMs, perAddress: config.connectionsPerAddress }).toEqual(want);
  });

  test('an idle timeout shorter than the header timeout is one line naming both', () => {
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: '10000', IDLE_TIMEOUT_MS: '5000' })).toThrow(
      /IDLE_TIMEOUT_MS \(5000\) must not be less than HEADERS_TIMEOUT_MS \(10000\)/,
    );
  });
});
