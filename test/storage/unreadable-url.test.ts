import { createServer } from '../../lib/server.js';
import { RedisStorage } from '../../adapters/redis.js';
import { ConfigError } from '../../lib/core/errors.js';

/**
 * A `storage.url` that passes the schema (`^rediss?://`) but that ioredis cannot read: ioredis threw a bare
 * TypeError (its `input` holding the URL, password and all) or URIError from its constructor. Each is refused with
 * a ConfigError at `storage.url`, with the password nowhere in the error (message, properties, cause).
 */
const PASSWORD = 'Sup3r-Secret-Pw';
const rows: Array<[string, string, RegExp]> = [
  ['a port above 65535', `redis://:${PASSWORD}@127.0.0.1:99999`, /cannot read \(an unparsable URL\): not a URL/],
  ['an unclosed IPv6 bracket', `redis://:${PASSWORD}@[::1:6379`, /cannot read \(an unparsable URL\): not a URL/],
  ['a space in the host', `redis://:${PASSWORD}@local host:6379`, /cannot read \(an unparsable URL\): not a URL/],
  [
    'a bad % escape in the password',
    `redis://:%zz${PASSWORD}@127.0.0.1:6379`,
    /cannot read redis:\/\/:\*\*\*@127\.0\.0\.1:6379: a malformed % escape/,
  ],
  [
    'a bad % escape in the user name',
    `redis://u%zz:${PASSWORD}@127.0.0.1:6379`,
    /cannot read redis:\/\/u%zz:\*\*\*@127\.0\.0\.1:6379: a malformed % escape/,
  ],
];

/** Everything an error carries that a logger could print: message, stack, own properties, cause. */
function everything(err: unknown): string {
  const e = err as Error & { cause?: unknown };
  return [e.message, e.stack, JSON.stringify(e), e.cause === undefined ? '' : everything(e.cause)].join('\n');
}

describe.each(rows)('storage.url with %s', (_name, url, message) => {
  test('createServer rejects with a ConfigError at storage.url, the password not in it', async () => {
    const err = await createServer({ issuer: 'http://127.0.0.1:9', storage: { type: 'redis', url } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).toMatchObject({ code: 'ERR_CONFIG_INVALID', path: 'storage.url' });
    expect((err as Error).message).toMatch(message);
    expect(everything(err)).not.toContain(PASSWORD);
  });

  test('new RedisStorage throws the same ConfigError', () => {
    let err: unknown;
    try {
      new RedisStorage({ url });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).toMatchObject({ path: 'storage.url' });
    expect(everything(err)).not.toContain(PASSWORD);
  });
});
