import { Redis } from 'ioredis';
import { hashPassword } from '../../lib/index.js';
import { TestBrowser, type Page } from '../helpers/browser.js';
import { relyingParty, signIn, startAuthorization, type RelyingParty } from '../helpers/flow.js';
import { Mailbox } from '../helpers/mailbox.js';
import { deletePrefix, REDIS_URL, redisAvailable, uniquePrefix } from '../helpers/redis.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import type { PortcullisConfig } from '../../lib/index.js';

/**
 * Spellings of one mailbox over real HTTP, on memory and on Redis storage. Uniqueness, lookups and the per-address
 * limits used to compare `toLowerCase()`: `dot@example.com.`, the IDN and punycode forms of a domain, NFC and NFD
 * letters, a fullwidth domain or an ideographic full stop each gave a second account for the same mailbox (a second
 * confirmation mail to it) and a fresh mail limit. Now every comparison uses the canonical form
 * (lib/core/email-address.ts), and spellings with invisible or compatibility characters are refused.
 */
const redis = await redisAvailable();
const prefixes: string[] = [];
const storages: Array<[string, () => Partial<PortcullisConfig>]> = [['memory', () => ({})]];
if (redis) {
  storages.push([
    'redis',
    () => {
      const keyPrefix = uniquePrefix('email-variants');
      prefixes.push(keyPrefix);
      return { storage: { type: 'redis' as const, url: REDIS_URL, keyPrefix } };
    },
  ]);
}
afterAll(async () => {
  for (const p of prefixes) await deletePrefix(p);
});

const PASSWORD = 'correct horse battery';
const ALICE_PASSWORD = 'alice-demo-password';
const h1 = (p: Page) => p.dom.querySelector('h1')?.text;
const alert = (p: Page) => p.dom.querySelector('[role=alert]')?.text.trim();
/** The login went through: the browser moved on to the consent page. */
const signedIn = (p: Page) => p.status === 200 && p.dom.querySelector('button[name=decision]') !== null;

/**
 * One row per spelling: the address of the first sign-up, the spelling tried next, the mailbox every mail must go
 * to, and whether the spelling is the same account or refused as no valid address.
 */
const VARIANTS: Array<[string, string, string, string, 'same account' | 'refused']> = [
  ['a trailing dot on the domain', 'dot@example.com', 'dot@example.com.', 'dot@example.com', 'same account'],
  [
    'the punycode form of an IDN domain',
    'bob@bücher.example',
    'bob@xn--bcher-kva.example',
    'bob@xn--bcher-kva.example',
    'same account',
  ],
  [
    'the IDN form of a punycode domain, in capitals',
    'una@xn--bcher-kva.example',
    'una@BÜCHER.EXAMPLE',
    'una@xn--bcher-kva.example',
    'same account',
  ],
  [
    'an IDN domain with a combining mark (NFD)',
    'zoe@b\u00fccher.example',
    'zoe@bu\u0308cher.example',
    'zoe@xn--bcher-kva.example',
    'same account',
  ],
  [
    'a local part with a combining mark (NFD vs NFC)',
    'jos\u00e9@x.test',
    'jose\u0301@x.test',
    'jos\u00e9@x.test',
    'same account',
  ],
  ['a fullwidth domain', 'carol@example.test', 'carol@ｅｘａｍｐｌｅ.test', 'carol@example.test', 'same account'],
  [
    'an ideographic full stop in the domain',
    'dan@mail.example.test',
    'dan@mail.example\u3002test',
    'dan@mail.example.test',
    'same account',
  ],
  ['the Kelvin sign for K', 'kate@x.test', '\u212Aate@x.test', 'kate@x.test', 'same account'],
  ['capitals in an ASCII address', 'erin@example.test', 'ERIN@Example.TEST', 'erin@example.test', 'same account'],
  ['a soft hyphen in the local part', 'frank@x.test', 'fr\u00ADank@x.test', 'frank@x.test', 'refused'],
  ['a zero-width joiner in the local part', 'grace@x.test', 'gr\u200Dace@x.test', 'grace@x.test', 'refused'],
  ['a fullwidth letter in the local part', 'heidi@x.test', 'ｈeidi@x.test', 'heidi@x.test', 'refused'],
  [
    'an invalid IDN (a punycode label that decodes to nothing)',
    'ivy@x.test',
    'ivy@xn--zz.test',
    'ivy@x.test',
    'refused',
  ],
];

describe.each(storages)('spellings of one e-mail address (%s storage)', (_storage, storage) => {
  let srv: RunningServer;
  let mailbox: Mailbox;
  let rp: RelyingParty;
  async function start(extra: Partial<PortcullisConfig> = {}) {
    mailbox = await Mailbox.create();
    srv = await startServer({ mail: { mailbox: mailbox.dir }, ...storage(), ...extra });
    rp = await relyingParty(srv.issuer);
  }
  afterEach(async () => {
    await srv.close();
    await mailbox.remove();
  });

  async function submit(path: string, fields: Record<string, string>) {
    const browser = new TestBrowser(srv.issuer);
    return browser.submit(await browser.go(`${srv.issuer}${path}`), fields);
  }
  const signUp = (email: string) =>
    submit('/account/signup', { given_name: 'Test', family_name: 'User', email, password: PASSWORD });
  async function login(email: string, password: string) {
    const browser = new TestBrowser(srv.issuer);
    return browser.submit(await browser.go(String((await startAuthorization(rp)).url)), { email, password });
  }
  /** Every mail sent, as `[to, subject]` sorted, once `count` arrived and background sends settled. */
  async function mails(count: number): Promise<string[][]> {
    await mailbox.waitFor('@', count).catch(() => undefined);
    return (await mailbox.settledFor('@')).map((m) => [m.to, m.subject]).sort();
  }

  test.each(VARIANTS)(
    '%s: a second sign-up and a reset request find the first account under its mail limit (or are refused); every mail goes to its mailbox',
    async (_name, first, second, to, outcome) => {
      await start({ accountLimits: { mailPerAddress: { points: 2, durationSeconds: 600 } } });
      expect(h1(await signUp(first))).toBe('Check your e-mail');
      const again = await signUp(second);
      const reset = await submit('/account/reset', { email: second });
      if (outcome === 'same account') {
        // The answer is the one for a new address (no enumeration); the mail shows it was taken. The reset request is
        // the third mail request for the mailbox: over the limit of 2.
        expect(await mails(2)).toEqual([
          [to, 'Confirm your e-mail address'],
          [to, 'Finish setting up your account'],
        ]);
        expect([again.status, h1(again), reset.status]).toEqual([200, 'Check your e-mail', 429]);
        expect(Number(reset.headers.get('retry-after'))).toBeGreaterThan(0);
      } else {
        expect(await mails(1)).toEqual([[to, 'Confirm your e-mail address']]);
        expect([again.status, alert(again), reset.status]).toEqual([400, 'Enter a valid e-mail address.', 400]);
      }
    },
  );

  test.each([
    ['a trailing dot', 'alice@example.com.'],
    ['a fullwidth domain', 'alice@ｅｘａｍｐｌｅ.com'],
    ['an ideographic full stop', 'alice@example\u3002com'],
    ['capitals', 'ALICE@Example.COM'],
  ])(
    'login with %s finds the account, and its failures count against the same login limit',
    async (_name, spelling) => {
      await start({ accountLimits: { loginPerAccount: { points: 2, durationSeconds: 600 } } });
      expect(signedIn(await login(spelling, ALICE_PASSWORD))).toBe(true);
      for (let i = 0; i < 2; i++) expect((await login('alice@example.com', 'wrong-password')).status).toBe(401);
      expect((await login(spelling, ALICE_PASSWORD)).status).toBe(429);
    },
  );

  test('an address with an IDN domain is confirmed through its ASCII mailbox, signs in and resets under any spelling, and keeps the typed form in the email claim', async () => {
    await start();
    await signUp('Bob@Bücher.example');
    const [confirm] = await mailbox.waitFor('Bob@xn--bcher-kva.example');
    const browser = new TestBrowser(srv.issuer);
    expect(h1(await browser.submit(await browser.go(confirm!.link!), {}))).toBe('E-mail address confirmed');
    const { tokens } = await signIn(srv.issuer, rp, {
      email: 'bob@XN--BCHER-KVA.EXAMPLE.',
      password: PASSWORD,
      params: { scope: 'openid email' },
    });
    expect(tokens.claims()).toMatchObject({ email: 'Bob@Bücher.example', email_verified: true });
    // The reset link goes to the account's own mailbox, whatever spelling was typed.
    expect((await submit('/account/reset', { email: 'bob@bu\u0308cher.example.' })).status).toBe(200);
    expect(await mails(2)).toEqual([
      ['Bob@xn--bcher-kva.example', 'Confirm your e-mail address'],
      ['Bob@xn--bcher-kva.example', 'Reset your password'],
    ]);
  });

  test('an e-mail change to another spelling of a taken address tells its holder and sends no link', async () => {
    await start();
    const page = await submit('/account/email', {
      email: 'alice@example.com',
      password: ALICE_PASSWORD,
      new_email: 'ADMIN@example.com.',
    });
    expect(h1(page)).toBe('Check your e-mail');
    expect(await mails(1)).toEqual([['admin@example.com', 'Someone tried to use your address']]);
  });
});

describe('accounts stored by an earlier version (Redis index keyed by the address lower-cased)', () => {
  if (!redis) {
    test('need Redis (see the warning above)', () => expect(redis).toBe(false));
    return;
  }
  let srv: RunningServer;
  let mailbox: Mailbox;
  let client: Redis;
  let keyPrefix: string;
  afterEach(async () => {
    await srv.close();
    await mailbox.remove();
    client.disconnect();
  });

  /** Writes an account the way the previous version did: its record, and its index under the address lower-cased. */
  async function legacyAccount(id: string, email: string, emailVerified: boolean) {
    const account = { id, email, emailVerified, roles: [], claims: {} };
    await client.set(
      `${keyPrefix}Account:{${id}}`,
      JSON.stringify({ account, passwordHash: await hashPassword(PASSWORD) }),
    );
    await client.set(`${keyPrefix}AccountEmail:{${email.toLowerCase()}}`, id);
  }

  test('an ASCII address is found as before; an IDN one under its old spelling, then moved to the canonical key; neither can be signed up again', async () => {
    keyPrefix = uniquePrefix('email-legacy');
    prefixes.push(keyPrefix);
    client = new Redis(REDIS_URL);
    await legacyAccount('legacy-carol', 'Carol@Example.com', true);
    await legacyAccount('legacy-bob', 'Bob@Bücher.example', true);
    await legacyAccount('legacy-dora', 'dora@bücher.example', false);
    mailbox = await Mailbox.create();
    srv = await startServer({ mail: { mailbox: mailbox.dir }, storage: { type: 'redis', url: REDIS_URL, keyPrefix } });
    const rp = await relyingParty(srv.issuer);
    const login = async (email: string) => {
      const browser = new TestBrowser(srv.issuer);
      return browser.submit(await browser.go(String((await startAuthorization(rp)).url)), {
        email,
        password: PASSWORD,
      });
    };

    expect(signedIn(await login('carol@example.com'))).toBe(true);
    expect(signedIn(await login('BOB@BÜCHER.EXAMPLE'))).toBe(true);
    expect(await client.get(`${keyPrefix}AccountEmail:{bob@xn--bcher-kva.example}`)).toBe('legacy-bob');
    expect(await client.exists(`${keyPrefix}AccountEmail:{bob@bücher.example}`)).toBe(0);
    expect(signedIn(await login('bob@xn--bcher-kva.example.'))).toBe(true);

    // A sign-up with its old spelling finds dora's account before any lookup moved it.
    const signUp = async (email: string) => {
      const browser = new TestBrowser(srv.issuer);
      return browser.submit(await browser.go(`${srv.issuer}/account/signup`), {
        given_name: 'T',
        family_name: 'U',
        email,
        password: PASSWORD,
      });
    };
    for (const email of ['Dora@Bücher.example', 'bob@xn--bcher-kva.example', 'CAROL@example.com.'])
      expect((await signUp(email)).status).toBe(200);
    await mailbox.waitFor('@', 3);
    expect((await mailbox.settledFor('@')).map((m) => [m.to, m.subject]).sort()).toEqual([
      ['Bob@xn--bcher-kva.example', 'Someone tried to create an account with your address'],
      ['Carol@example.com', 'Someone tried to create an account with your address'],
      ['dora@xn--bcher-kva.example', 'Finish setting up your account'],
    ]);
  });
});
