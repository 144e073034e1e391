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
