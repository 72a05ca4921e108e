/**
 * Seed accounts given by `passwordHash` (`npx portcullis hash-password`): exactly one of password and passwordHash,
 * a hash of Portcullis's scrypt format within the cost bounds, at least the default cost with NODE_ENV=production
 * (the demo accounts' hashes refused there like their passwords), and a real sign-in with the hash the command
 * printed.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ConfigError, generateSigningKeys, loadConfig, type PortcullisConfig } from '../../lib/index.js';
import { hashPassword, verifyPassword } from '../../adapters/password.js';
import { scryptCost } from '../../lib/core/password-hash.js';
import { DEMO } from '../../examples/demo-fixtures.js';
import { errorOf } from '../helpers/errors.js';
import { docPage, ROOT } from '../helpers/readme-command.js';
import { startServer } from '../helpers/server.js';
import { relyingParty, signIn } from '../helpers/flow.js';

const SALT = 'gFiOW08Jopgu5mJt0XmhLg';
const KEY = 'S4ce0MeX_7NTsWK43hAknYCQFR7sBVU_U9YWVXoRlow';
const email = 'seed@example.com';
const dev = (account: Record<string, unknown>) =>
  loadConfig({ issuer: 'http://localhost:3000', accounts: [account] } as never, {});

describe('accounts[].passwordHash is checked at start-up', () => {
  test.each<[string, Record<string, unknown>, string, string]>([
    ['neither password nor passwordHash', { email }, 'accounts[0].password', 'is required'],
    [
      'both password and passwordHash',
      { email, password: 'a-long-password', passwordHash: `scrypt$32768$8$1$${SALT}$${KEY}` },
      'accounts[0]',
      'has both password and passwordHash: keep one',
    ],
    [
      'another scheme (bcrypt)',
      { email, passwordHash: '$2b$12$abcdefghijklmnopqrstuv' },
      'accounts[0].passwordHash',
      'must be a hash made by',
    ],
    [
      'a short salt',
      { email, passwordHash: `scrypt$32768$8$1$abc$${KEY}` },
      'accounts[0].passwordHash',
      'must be a hash made by',
    ],
    [
      'a cut key',
      { email, passwordHash: `scrypt$32768$8$1$${SALT}$${KEY.slice(1)}` },
      'accounts[0].passwordHash',
      'must be a hash made by',
    ],
    [
      'N not a power of two',
      { email, passwordHash: `scrypt$30000$8$1$${SALT}$${KEY}` },
      'accounts[0].passwordHash',
      'does not check',
    ],
    [
      'memory over 128 MiB (N=2^18, r=8)',
      { email, passwordHash: `scrypt$262144$8$1$${SALT}$${KEY}` },
      'accounts[0].passwordHash',
      'does not check',
    ],
    [
      'p over 16',
      { email, passwordHash: `scrypt$1024$8$17$${SALT}$${KEY}` },
      'accounts[0].passwordHash',
      'does not check',
    ],
  ])('%s: refused', (_, account, path, message) => {
    const err = errorOf(() => dev(account));
    expect(err).toBeInstanceOf(ConfigError);
    expect([err.code, (err as ConfigError).path]).toEqual(['ERR_CONFIG_INVALID', path]);
    expect(err.message).toContain(message);
  });

  test('a hash of any checkable cost is accepted in development', () => {
    expect(dev({ email, passwordHash: `scrypt$1024$8$1$${SALT}$${KEY}` }).accounts[0]!.passwordHash).toMatch(
      /^scrypt\$1024\$/,
    );
  });

  describe('NODE_ENV=production', () => {
    let base: PortcullisConfig;
    beforeAll(async () => {
      base = {
        issuer: 'https://id.example',
        storage: { type: 'memory' },
        keys: { signing: await generateSigningKeys(['ES256']), cookies: ['c'.repeat(32)] },
        mfa: { encryptionKey: 'm'.repeat(32) },
        selfService: { signup: false },
      };
    });
    const prod = (passwordHash: string) =>
      loadConfig({ ...base, accounts: [{ email, passwordHash }] }, { NODE_ENV: 'production' });

    test.each([
      ['N=2^14', `scrypt$16384$8$1$${SALT}$${KEY}`],
      ['r=4', `scrypt$32768$4$1$${SALT}$${KEY}`],
    ])('a hash cheaper than the default (%s) is refused as insecure', (_, hash) => {
      const err = errorOf(() => prod(hash)) as ConfigError;
      expect([err.code, err.path]).toEqual(['ERR_CONFIG_INSECURE', 'accounts[0].passwordHash']);
      expect(err.message).toContain('at least scrypt N=32768, r=8, p=1');
    });

    test("the demo accounts' hashes are refused like their passwords", () => {
      const err = errorOf(() => prod(DEMO.alice.passwordHash)) as ConfigError;
      expect([err.code, err.path]).toEqual(['ERR_CONFIG_INSECURE', 'accounts[0].passwordHash']);
      expect(err.message).toContain('demo fixtures are not allowed');
    });

    test('a hash of the default cost or more is accepted', async () => {
      expect(prod(await hashPassword('a-production-password')).accounts).toHaveLength(1);
      expect(prod(`scrypt$131072$8$1$${SALT}$${KEY}`).accounts).toHaveLength(1);
    });
  });
});

const cli = (args: string[], input: string) =>
  spawnSync(process.execPath, [join(ROOT, 'bin/portcullis.js'), 'hash-password', ...args], {
    input,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });

describe('npx portcullis hash-password', () => {
  test.each([
    ['an empty input', [], ''],
    ['a password of 7 characters', [], 'seven77\n'],
    ['a password of 257 characters', [], `${'x'.repeat(257)}\n`],
    ['an argument (the password must not be one)', ['a-long-password'], ''],
  ])('%s: exit status 2 and why, no hash', (_, args, input) => {
    const r = cli(args, input);
    expect([r.status, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(/hash-password reads the password from standard input|unknown argument a-long-password/);
  });

  test("the accounts guide's command, run as written, prints a hash of its password", () => {
    const guide = docPage('docs/guides/accounts.md');
    const at = guide.indexOf('```sh\n', guide.indexOf('**Seed accounts without clear text.**')) + 6;
    const command = guide.slice(at, guide.indexOf('\n```', at));
    expect(command).toContain('npx portcullis hash-password');
    const r = spawnSync('bash', ['-c', command], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    expect([r.status, r.stderr]).toEqual([0, '']);
    const passwordHash = r.stdout.trim();
    expect(scryptCost(passwordHash)).toEqual({ N: 32768, r: 8, p: 1 });
    return expect(verifyPassword('a long password of your own', passwordHash)).resolves.toBe(true);
  });

  test('the printed hash seeds an account that signs in with the password (code flow with openid-client)', async () => {
    const password = 'correct horse battery staple';
    const r = cli([], `${password}\nignored second line\n`);
    expect([r.status, r.stderr]).toEqual([0, '']);
    const passwordHash = r.stdout.trim();
    expect(passwordHash).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    const srv = await startServer({ accounts: [{ id: 'seed', email, passwordHash, email_verified: true }] });
    try {
      expect((await srv.server.accounts.verifyPassword(email, password))?.id).toBe('seed');
      expect(await srv.server.accounts.verifyPassword(email, passwordHash)).toBeUndefined();
      expect(await srv.server.accounts.verifyPassword(email, 'ignored second line')).toBeUndefined();
      const { tokens } = await signIn(srv.issuer, await relyingParty(srv.issuer), {
        email,
        password,
        consent: 'allow',
      });
      expect(tokens.claims()?.sub).toBe('seed');
    } finally {
      await srv.close();
    }
  });
});
