import { errorOf } from '../helpers/errors.js';
import { ConfigError, generateSigningKeys, loadConfig, type PortcullisConfig } from '../../lib/index.js';
import { createMailer } from '../../lib/accounts/mailer.js';
import { standaloneSettings } from '../../examples/standalone/config.js';
import { TestBrowser } from '../helpers/browser.js';
import { freePort, startServer } from '../helpers/server.js';
import { createLogger } from '../../lib/core/logger.js';

const base: PortcullisConfig = { issuer: 'http://localhost:3000' };
const store = {
  findById() {},
  findByEmail() {},
  verifyPassword() {},
  create() {},
  setPassword() {},
  setEmail() {},
  markEmailVerified() {},
  getSecondFactor() {},
  setSecondFactor() {},
};

describe('account options are validated', () => {
  test.each<[string, Record<string, unknown>, string, RegExp]>([
    [
      'a minimum password length below 8',
      { selfService: { passwordMinLength: 6 } },
      'selfService.passwordMinLength',
      />= 8/,
    ],
    [
      'a minimum password length above the maximum',
      { selfService: { passwordMinLength: 300 } },
      'selfService.passwordMinLength',
      /<= 256/,
    ],
    ['a zero link lifetime', { selfService: { resetTtl: 0 } }, 'selfService.resetTtl', />= 1/],
    ['an unknown self-service key', { selfService: { signUp: true } }, 'selfService.signUp', /unknown option/],
    [
      'an SMTP URL that is not smtp(s)',
      { mail: { smtp: 'http://mail.example' } },
      'mail.smtp',
      /must match pattern|anyOf/,
    ],
    ['an unknown mail key', { mail: { host: 'x' } }, 'mail.host', /unknown option/],
    [
      'an account store without create',
      { accountStore: { ...store, create: undefined } },
      'accountStore.create',
      /must be a function/,
    ],
    [
      'an account store without markEmailVerified',
      { accountStore: { ...store, markEmailVerified: 1 } },
      'accountStore.markEmailVerified',
      /must be a function/,
    ],
    [
      'an account store without getSecondFactor while mfa is on',
      { accountStore: { ...store, getSecondFactor: undefined } },
      'accountStore.getSecondFactor',
      /must be a function when mfa.enabled/,
    ],
    ['a too short mfa.encryptionKey', { mfa: { encryptionKey: 'short' } }, 'mfa.encryptionKey', /fewer than 32/],
  ])('%s is refused naming its option path', (_name, input, path, message) => {
    const err = errorOf(() => loadConfig({ ...base, ...input } as PortcullisConfig, {}));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.path).toBe(path);
    expect(err.message).toMatch(message);
  });

  test('an account store without the second-factor methods is accepted with mfa.enabled false', () => {
    const { getSecondFactor: _g, setSecondFactor: _s, ...passwordsOnly } = store;
    expect(
      loadConfig({ ...base, accountStore: passwordsOnly, mfa: { enabled: false } } as unknown as PortcullisConfig, {})
        .mfa.enabled,
    ).toBe(false);
  });

  test('defaults: sign-up on in development, off in production; verified e-mail required; 12 characters', () => {
    expect(loadConfig(base, {}).selfService).toEqual({
      signup: true,
      requireVerifiedEmail: true,
      passwordMinLength: 12,
      verificationTtl: 86400,
      resetTtl: 3600,
    });
    expect(loadConfig(base, {}).accountLimits.loginPerAccount).toEqual({ points: 10, durationSeconds: 900 });
  });

  test('production refuses sign-up without SMTP and says what to set', async () => {
    const signing = await generateSigningKeys(['ES256']);
    const err = errorOf(() =>
      loadConfig(
        {
          issuer: 'https://id.example',
          storage: { type: 'memory' },
          keys: { signing, cookies: ['c'.repeat(32)] },
          mfa: { encryptionKey: 'm'.repeat(32) },
          selfService: { signup: true },
        },
        { NODE_ENV: 'production' },
      ),
    );
    expect(err.code).toBe('ERR_CONFIG_INSECURE');
    expect(err.path).toBe('selfService.signup');
    expect(err.message).toMatch(/mail\.smtp/);
  });

  test('production without SMTP sends no mail (no development mailbox); with SMTP it uses it', () => {
    const logger = createLogger({ LOG_LEVEL: 'silent' });
    expect(createMailer({}, true, logger)).toBeUndefined();
    expect(createMailer({ smtp: 'smtp://127.0.0.1:2525' }, true, logger)?.kind).toBe('smtp');
    expect(createMailer({}, false, logger)?.kind).toBe('mailbox');
  });

  test('the standalone server reads PORTCULLIS_SMTP_URL and PORTCULLIS_MAIL_FROM', () => {
    const { config } = standaloneSettings({
      PORTCULLIS_SMTP_URL: 'smtp://mail.example:587',
      PORTCULLIS_MAIL_FROM: 'IdP <id@example.com>',
    });
    expect(config.mail).toEqual({ smtp: 'smtp://mail.example:587', from: 'IdP <id@example.com>' });
  });
});

test('an SMTP server that cannot be reached neither breaks the page nor tells the visitor anything', async () => {
  const port = await freePort(); // nothing listens there
  const errors: unknown[] = [];
  const logger = createLogger({ LOG_LEVEL: 'silent' });
  logger.error = ((...args: unknown[]) => {
    errors.push(args);
  }) as never;
  const srv = await startServer({
    mail: { smtp: { host: '127.0.0.1', port, secure: false, connectionTimeout: 2000 } },
    logger,
  });
  try {
    const browser = new TestBrowser(srv.issuer);
    const page = await browser.submit(await browser.go(`${srv.issuer}/account/reset`), { email: 'alice@example.com' });
    expect(page.status).toBe(200);
    expect(page.dom.querySelector('h1')?.text).toBe('Check your e-mail');
    for (let i = 0; i < 50 && errors.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(JSON.stringify(errors)).toContain('account mail could not be sent');
  } finally {
    await srv.close();
  }
});
