import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { RedisAccountStore } from '../../adapters/redis-account-store.js';
import { migrateEmailIndex } from '../../adapters/redis-email-migration.js';
import { RedisStorage } from '../../adapters/redis.js';
import { hashPassword } from '../../lib/index.js';
import { TestBrowser, type Page } from '../helpers/browser.js';
import { relyingParty, startAuthorization } from '../helpers/flow.js';
import { Mailbox } from '../helpers/mailbox.js';
import { deletePrefix, REDIS_URL, redisAvailable, uniquePrefix } from '../helpers/redis.js';
import { startServer } from '../helpers/server.js';

/**
 * Redis accounts of versions before the canonical form (cec5635) were indexed under the address lower-cased
 * (`AccountEmail:{dora@bücher.example}`); the canonical key is `AccountEmail:{dora@xn--bcher-kva.example}`. A
 * sign-up under the canonical spelling did not look for the old entry (only spellings whose lower-cased form is not
 * canonical did), so it claimed the canonical key: 200 "Check your e-mail", a second account for the mailbox, and
 * the first one got 401 for its own address and password (reported with a repro in review). The store now moves such
 * entries to their canonical key once, when it is opened at start-up (adapters/redis-email-migration.ts).
 */
const redis = await redisAvailable();
const prefixes: string[] = [];
afterAll(async () => {
  for (const p of prefixes) await deletePrefix(p);
});

const PASSWORD = 'correct horse battery';
const PASSWORD_HASH = await hashPassword(PASSWORD);
const signedIn = (p: Page) => p.status === 200 && p.dom.querySelector('button[name=decision]') !== null;

/** Writes an account as versions before the canonical form did: its record, and its index under the address lower-cased. */
async function legacyAccount(client: Redis, keyPrefix: string, id: string, email: string): Promise<void> {
  const account = { id, email, emailVerified: true, roles: [], claims: {} };
  await client.set(`${keyPrefix}Account:{${id}}`, JSON.stringify({ account, passwordHash: PASSWORD_HASH }));
  await client.set(`${keyPrefix}AccountEmail:{${email.toLowerCase()}}`, id);
}

function prefix(label: string): string {
  const p = uniquePrefix(label);
  prefixes.push(p);
  return p;
}

describe('e-mail index entries of earlier versions are moved to canonical keys at start-up', () => {
  if (!redis) {
    test('need Redis (see the warning above)', () => expect(redis).toBe(false));
    return;
  }
  let client: Redis;
  beforeEach(() => {
    client = new Redis(REDIS_URL);
  });
  afterEach(() => client.disconnect());

  // [row, stored address (old index key: lower-cased), sign-up spelling, canonical key, mailbox the notice goes to]
  test.each([
    [
      'old entry under the Unicode domain, sign-up in punycode (review repro)',
      'dora@bücher.example',
      'dora@xn--bcher-kva.example',
      'dora@xn--bcher-kva.example',
      'dora@xn--bcher-kva.example',
    ],
    [
      'old entry under punycode, sign-up with the Unicode domain',
      'Erin@XN--BCHER-KVA.example',
      'erin@Bücher.example',
      'erin@xn--bcher-kva.example',
      'Erin@xn--bcher-kva.example',
    ],
    [
      'old entry with a trailing dot, sign-up without it',
      'Fred@Example.com.',
      'fred@example.com',
      'fred@example.com',
      'Fred@example.com',
    ],
  ])(
    '%s: no second account, and the old account signs in with its own spelling',
    async (_row, stored, typed, canonical, to) => {
      const keyPrefix = prefix('email-migrate');
      const old = `${keyPrefix}AccountEmail:{${stored.toLowerCase()}}`;
      await legacyAccount(client, keyPrefix, 'legacy', stored);
      const mailbox = await Mailbox.create();
      const srv = await startServer({
        mail: { mailbox: mailbox.dir },
        storage: { type: 'redis', url: REDIS_URL, keyPrefix },
      });
      try {
        const b = new TestBrowser(srv.issuer);
        const signup = await b.submit(await b.go(`${srv.issuer}/account/signup`), {
          given_name: 'M',
          family_name: 'X',
          email: typed,
          password: 'another password 123',
        });
        expect([signup.status, signup.dom.querySelector('h1')?.text]).toEqual([200, 'Check your e-mail']);
        await mailbox.waitFor('@', 1);
        expect((await mailbox.settledFor('@')).map((m) => [m.to, m.subject])).toEqual([
          [to, 'Someone tried to create an account with your address'],
        ]);
        expect(await client.get(`${keyPrefix}AccountEmail:{${canonical}}`)).toBe('legacy');
        if (old !== `${keyPrefix}AccountEmail:{${canonical}}`) expect(await client.exists(old)).toBe(0);
        const rp = await relyingParty(srv.issuer);
        for (const email of [stored, typed]) {
          const lb = new TestBrowser(srv.issuer);
          expect(
            signedIn(
              await lb.submit(await lb.go(String((await startAuthorization(rp)).url)), { email, password: PASSWORD }),
            ),
          ).toBe(true);
        }
      } finally {
        await srv.close();
        await mailbox.remove();
      }
    },
  );

  test('a canonical key held by another account is left, with a warning naming both ids and no address', async () => {
    const keyPrefix = prefix('email-migrate-conflict');
    await legacyAccount(client, keyPrefix, 'legacy-gus', 'gus@bücher.example');
    await legacyAccount(client, keyPrefix, 'other-gus', 'gus@xn--bcher-kva.example');
    const lines: string[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk, _enc, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const srv = await startServer({ storage: { type: 'redis', url: REDIS_URL, keyPrefix }, logger });
    await srv.close();
    expect(await client.get(`${keyPrefix}AccountEmail:{gus@bücher.example}`)).toBe('legacy-gus');
    expect(await client.get(`${keyPrefix}AccountEmail:{gus@xn--bcher-kva.example}`)).toBe('other-gus');
    const warnings = lines.filter((l) => l.includes('Redis account e-mail index'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 40, account: 'legacy-gus', canonicalAccount: 'other-gus' });
    expect(warnings[0]).not.toMatch(/gus@|bcher|bücher/);
    expect(await client.exists(`${keyPrefix}AccountEmailCanonical:v1`)).toBe(1);
  });

  test('once done, a marker key skips the walk at the next start', async () => {
    const keyPrefix = prefix('email-migrate-marker');
    const storage = new RedisStorage({ url: REDIS_URL, keyPrefix });
    try {
      expect(await migrateEmailIndex(storage)).toEqual({ skipped: false, complete: true, moved: 0, conflicts: 0 });
      await legacyAccount(client, keyPrefix, 'late', 'late@bücher.example');
      expect(await migrateEmailIndex(storage)).toMatchObject({ skipped: true, moved: 0 });
      expect(await client.get(`${keyPrefix}AccountEmail:{late@bücher.example}`)).toBe('late');
      // not moved by the walk, still found (and moved) by a lookup under its old spelling
      const store = new RedisAccountStore(storage);
      expect((await store.findByEmail('late@bücher.example'))?.id).toBe('late');
      expect(await client.get(`${keyPrefix}AccountEmail:{late@xn--bcher-kva.example}`)).toBe('late');
    } finally {
      await storage.close();
    }
  });

  test('several instances at once move every entry once; out of time it stops without the marker', async () => {
    const keyPrefix = prefix('email-migrate[x]*');
    for (let i = 0; i < 300; i++) await legacyAccount(client, keyPrefix, `acc-${i}`, `user${i}@bücher.example.`);
    await legacyAccount(client, keyPrefix, 'ascii', 'Plain@Example.com');
    const late = new RedisStorage({ url: REDIS_URL, keyPrefix });
    expect(await migrateEmailIndex(late, undefined, 0)).toEqual({
      skipped: false,
      complete: false,
      moved: 0,
      conflicts: 0,
    });
    expect(await client.exists(`${keyPrefix}AccountEmailCanonical:v1`)).toBe(0);
    await late.close();
    const storages = [0, 1, 2].map(() => new RedisStorage({ url: REDIS_URL, keyPrefix }));
    try {
      const runs = await Promise.all(storages.map((s) => migrateEmailIndex(s)));
      expect(runs.every((r) => r.complete && r.conflicts === 0)).toBe(true);
      expect(runs.reduce((n, r) => n + r.moved, 0)).toBeGreaterThanOrEqual(300);
      for (let i = 0; i < 300; i++) {
        expect(await client.get(`${keyPrefix}AccountEmail:{user${i}@xn--bcher-kva.example}`)).toBe(`acc-${i}`);
        expect(await client.exists(`${keyPrefix}AccountEmail:{user${i}@bücher.example.}`)).toBe(0);
      }
      expect(await client.get(`${keyPrefix}AccountEmail:{plain@example.com}`)).toBe('ascii');
    } finally {
      for (const s of storages) await s.close();
      // deletePrefix matches `<prefix>*` unescaped, which misses this prefix's keys
      for (let cursor = '0'; ; ) {
        const [next, keys] = await client.scan(
          cursor,
          'MATCH',
          `${keyPrefix.replace(/[*?[\]\\]/g, '\\$&')}*`,
          'COUNT',
          500,
        );
        if (keys.length) await client.del(...keys);
        if ((cursor = next) === '0') break;
      }
    }
  });
});
