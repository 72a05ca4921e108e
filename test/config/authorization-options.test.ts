import { ConfigError, loadConfig, type PortcullisConfig } from '../../lib/index.js';

const base: PortcullisConfig = { issuer: 'http://localhost:3000' };

describe('openid and webMessageResponseMode options', () => {
  test('defaults: OpenID Connect on, web_message off', () => {
    const config = loadConfig(base, {});
    expect(config.openid).toBe(true);
    expect(config.webMessageResponseMode).toBe(false);
  });

  test('both can be set', () => {
    const config = loadConfig({ ...base, openid: false, webMessageResponseMode: true }, {});
    expect({ openid: config.openid, webMessageResponseMode: config.webMessageResponseMode }).toEqual({
      openid: false,
      webMessageResponseMode: true,
    });
  });

  test.each([
    ['openid', 'no'],
    ['webMessageResponseMode', 1],
  ])('%s must be a boolean', (option, value) => {
    let error: unknown;
    try {
      loadConfig({ ...base, [option]: value } as unknown as PortcullisConfig, {});
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ path: option, message: expect.stringMatching(/boolean/) });
  });
});
