import { ConfigError, loadConfig, type PortcullisConfig } from '../../lib/index.js';

const base: PortcullisConfig = { issuer: 'http://127.0.0.1:3000' };

describe('registration, outbound fetch and rate-limit options', () => {
  test('defaults', () => {
    const config = loadConfig(base, {});
    expect(config.outboundFetch).toEqual({ allowedOrigins: [], timeoutMs: 2500, maxResponseBytes: 524288 });
    expect(config.rateLimits.registrations).toEqual({ points: 100, durationSeconds: 60 });
    expect(config.registration).toEqual({ allowRemoteLogos: false, enabled: false });
  });

  test.each([
    [
      'an allowed origin with a path',
      { outboundFetch: { allowedOrigins: ['https://keys.example/jwks'] } },
      'outboundFetch.allowedOrigins[0]',
    ],
    [
      'an allowed origin that is not http(s)',
      { outboundFetch: { allowedOrigins: ['ftp://keys.example'] } },
      'outboundFetch.allowedOrigins[0]',
    ],
    ['a zero time-out', { outboundFetch: { timeoutMs: 0 } }, 'outboundFetch.timeoutMs'],
    ['an unknown outboundFetch option', { outboundFetch: { followRedirects: true } }, 'outboundFetch.followRedirects'],
    [
      'a limit without points',
      { rateLimits: { registrations: { durationSeconds: 60 } } },
      'rateLimits.registrations.points',
    ],
    ['a non-boolean allowRemoteLogos', { registration: { allowRemoteLogos: 'yes' } }, 'registration.allowRemoteLogos'],
    ['signing keys that are neither a JWKS nor a path', { keys: { signing: 42 } }, 'keys.signing'],
  ])('%s is a ConfigError naming the option', (_name, extra, path) => {
    let error: unknown;
    try {
      loadConfig({ ...base, ...extra } as unknown as PortcullisConfig, {});
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).path).toBe(path);
  });
});
