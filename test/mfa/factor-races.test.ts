import { parse } from 'node-html-parser';
import { generate } from 'otplib';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { MemoryAccountStore } from '../../adapters/memory-account-store.js';
import { MemoryStorage } from '../../adapters/memory.js';
import { RedisStorage } from '../../adapters/redis.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';
import { hashRecoveryCode } from '../../lib/features/mfa/totp.js';
import { StorageUnavailableError, type AccountStore, type PortcullisConfig, type Storage } from '../../lib/index.js';
import { TestBrowser, type Page } from '../helpers/browser.js';
import { relyingParty, startAuthorization, type RelyingParty } from '../helpers/flow.js';
import { deletePrefix, REDIS_URL, redisAvailable, uniquePrefix } from '../helpers/redis.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * Concurrent changes of one account's second factors over real HTTP, on memory and Redis storage and with a host
 * account store that has no `updateSecondFactor` (whose writes wait for a per-account lock): a sign-in's code check
 * racing another check, the removal of TOTP, new recovery codes or a new enrolment on /account, and new recovery
 * codes racing a removal. The interleaving is forced by holding reads of the stored factors until the other side
 * has run (as a slow storage would). Before, each check wrote back the whole record it had read: a recovery code
 * spent by the other check came back unused once its 120 s claim in the rate-limit backend expired, and a removed
 * or replaced TOTP secret and its recovery codes came back. "Once the claim has expired" is simulated by deleting
 * the claim from the storage's own limiter (captured through `Storage.limiterBackend`), not by waiting.
 */

const available = await redisAvailable();
const WRONG = 'That code is not right, or was already used.';

interface Kind {
  config(): Partial<PortcullisConfig> | Promise<Partial<PortcullisConfig>>;
  /** The store whose reads a test holds, when not the server's own (a host's store is frozen by the config). */
  store?: AccountStore;
  cleanup(): Promise<void>;
}

/** The storage's rate limiters by name (`mfa-used` holds the claims of spent codes). */
let limiters: Map<string, RateLimiterAbstract>;

function capturingLimiters<S extends Storage>(storage: S): S {
  const backend = storage.limiterBackend();
  storage.limiterBackend = () => (name, spec) => {
    const limiter = backend(name, spec);
    limiters.set(name, limiter);
    return limiter;
  };
  return storage;
}

const kinds: Array<[string, () => Kind, boolean]> = [
  [
    'memory storage',
    () => {
      const instance = capturingLimiters(new MemoryStorage());
      return { config: () => ({ storage: { type: 'custom', instance } }), cleanup: () => instance.close() };
    },
    true,
  ],
  [
    'Redis storage',
    () => {
      const keyPrefix = uniquePrefix('factor-races');
      const instance = capturingLimiters(new RedisStorage({ url: REDIS_URL, keyPrefix }));
      return {
        config: () => ({ storage: { type: 'custom', instance } }),
        cleanup: async () => {
          await instance.close();
          await deletePrefix(keyPrefix);
        },
      };
    },
    available,
  ],
  // a host's own store written before updateSecondFactor existed (the memory store without that method)
  [
    'memory storage and a host account store without updateSecondFactor',
    () => {
      const instance = capturingLimiters(new MemoryStorage());
      const kind: Kind = {
        async config() {
          const inner = await MemoryAccountStore.fromSeed(demoFixtures().accounts!);
          kind.store = inner;
          const methods = [
            'findById',
            'findByEmail',
            'verifyPassword',
            'create',
            'setPassword',
            'setEmail',
            'markEmailVerified',
            'getSecondFactor',
            'setSecondFactor',
          ] as const;
          const accountStore = Object.fromEntries(
            methods.map((m) => [
              m,
              (...args: unknown[]) => (inner[m] as (...a: unknown[]) => unknown).apply(inner, args),
            ]),
          ) as unknown as AccountStore;
          return { storage: { type: 'custom', instance }, accountStore };
        },
        cleanup: () => instance.close(),
      };
      return kind;
    },
    true,
  ],
];

let srv: RunningServer;
let kind: Kind;
let web: RelyingParty;

async function start(extra: Partial<PortcullisConfig> = {}) {
  limiters = new Map();
  srv = await startServer({
    ...(await kind.config()),
    accountLimits: { secondFactorPerAccount: { points: 50, durationSeconds: 900 } },
    ...extra,
  });
  web = await relyingParty(srv.issuer);
}

const factorStore = () => kind.store ?? srv.server.accounts;

/** Opens /account, signing in with alice's password when asked. */
async function openAccount(browser: TestBrowser) {
  const page = await browser.go(`${srv.issuer}/account`);
  return page.dom.querySelector('input[name=password]')
    ? browser.submit(page, { email: 'alice@example.com', password: 'alice-demo-password' })
    : page;
}

/** Submits the form holding the button `#id`. */
function press(browser: TestBrowser, page: Page, id: string, fields: Record<string, string> = {}) {
  const form = page.dom.querySelector(`#${id}`)!.parentNode;
  return browser.submit({ ...page, dom: parse(`<div>${form!.toString()}</div>`) }, fields);
}

/**
 * Enrols TOTP for alice on /account in `browser` (which stays signed in), confirming with the code `steps` time
 * steps from now; the secret and the recovery codes.
 */
async function enrol(browser: TestBrowser, steps = 0) {
  const page = await press(browser, await openAccount(browser), 'totp-add');
  const secret = page.dom.querySelector('#totp-secret')!.text;
  const codes = await browser.submit(page, { code: await totp(secret, steps) });
  const recovery = codes.dom.querySelectorAll('#recovery-codes li').map((li) => li.text.trim());
  expect(recovery).toHaveLength(10);
  return { secret, recovery };
}

/** A TOTP code of `secret`, `steps` time steps from now. */
const totp = (secret: string, steps = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });

/** A new browser at the second sign-in step of alice (after her password). */
async function atCodePrompt() {
  const browser = new TestBrowser(srv.issuer);
  const page = await browser.submit(await browser.go(String((await startAuthorization(web)).url)), {
    email: 'alice@example.com',
    password: 'alice-demo-password',
  });
  expect(page.dom.querySelector('input[name=code]')).not.toBeNull();
  return { browser, page };
}

/** What the second step answered: `passed` (on to consent or the client) or `refused` (401 with the message). */
function outcome(page: Page & { redirectedTo?: string }): 'passed' | 'refused' | string {
  if (page.status === 401 && page.dom.querySelector('input[name=code]') && page.body.includes(WRONG)) return 'refused';
  if (page.redirectedTo || page.dom.querySelector('button[name=decision]')) return 'passed';
  return `unexpected ${page.status}: ${page.dom.querySelector('main')?.text.slice(0, 200)}`;
}

/** Signs in with `code` as second factor in a new browser. */
async function signInWith(code: string) {
  const { browser, page } = await atCodePrompt();
  return outcome(await browser.submit(page, { code }));
}

const noop = () => {};

/**
 * Holds reads of second factors (`getSecondFactor`) in phases, as a slow storage would: the first `counts[0]`
 * reads wait (with the value they read) until `release()`, which arms the next phase of `counts[1]` reads, and so
 * on; other reads pass. `reached()` resolves once the phase holds its count, or after `orAfterMs` (a server that
 * serialises the writes lets fewer through), or once `settled` (the requests under test) has settled: no read of
 * theirs can come after that, so waiting on would change nothing (a store with atomic changes reads nothing in the
 * second phase, and its requests are answered at once; the wait-out cost 1 s per run).
 */
function holdReads(store: AccountStore, counts: number[], orAfterMs = 1000) {
  const own = Object.getOwnPropertyDescriptor(store, 'getSecondFactor');
  const get = store.getSecondFactor!;
  const phase = () => {
    let reach!: () => void;
    let release!: () => void;
    const reached = new Promise<void>((resolve) => {
      reach = resolve;
      setTimeout(resolve, orAfterMs);
    });
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    return { held: 0, reach, reached, release, released };
  };
  let index = 0;
  let current = phase();
  store.getSecondFactor = async function heldRead(this: AccountStore, id: string) {
    const value = await get.call(this, id);
    const gate = current;
    if (index >= counts.length || gate.held === counts[index]) return value;
    if (++gate.held === counts[index]) gate.reach();
    await gate.released;
    return value;
  };
  return {
    reached: (settled?: Promise<unknown>) =>
      settled ? Promise.race([current.reached, settled.then(noop, noop)]) : current.reached,
    release() {
      const done = current;
      index++;
      current = phase();
      if (index >= counts.length) {
        if (own) Object.defineProperty(store, 'getSecondFactor', own);
        else delete (store as { getSecondFactor?: unknown }).getSecondFactor;
      }
      done.release();
    },
  };
}

/** Lets a spent code's claim in the rate-limit backend go, as it does 120 s after the code was accepted. */
async function claimExpires(code: string) {
  await limiters.get('mfa-used')!.delete(`alice:recovery:${hashRecoveryCode(code)}`);
}

describe.each(kinds)('concurrent second-factor changes, %s', (_name, kindOf, runs) => {
  const maybe = runs ? test : test.skip;
  beforeEach(async () => {
    if (!runs) return;
    kind = kindOf();
    await start();
  });
  afterEach(async () => {
    if (!runs) return;
    await srv.close();
    await kind.cleanup();
  });

  maybe('two recovery codes used at once: both are spent, and neither works again after the claim window', async () => {
    const { recovery } = await enrol(new TestBrowser(srv.issuer));
    const [a, b] = [await atCodePrompt(), await atCodePrompt()];
    // both checks read before either writes; then the reads of the writes themselves (a store that changes the
    // value with get and set), unless the server lets one write at a time through
    const hold = holdReads(factorStore(), [2, 2]);
    const answers = Promise.all([
      a.browser.submit(a.page, { code: recovery[0]! }),
      b.browser.submit(b.page, { code: recovery[1]! }),
    ]);
    await hold.reached(answers);
    hold.release();
    await hold.reached(answers);
    hold.release();
    expect((await answers).map(outcome)).toEqual(['passed', 'passed']);
    const stored = (await srv.server.accounts.getSecondFactor!('alice'))!;
    expect(stored.recoveryCodes!.filter((c) => c.usedAt)).toHaveLength(2);

    await claimExpires(recovery[0]!);
    await claimExpires(recovery[1]!);
    expect([await signInWith(recovery[0]!), await signInWith(recovery[1]!)]).toEqual(['refused', 'refused']);
    expect(await signInWith(recovery[2]!)).toBe('passed');
  });

  test.each([
    ['a recovery code', (f: { recovery: string[] }) => f.recovery[0]!],
    ['a TOTP code', (f: { secret: string }) => totp(f.secret, 1)],
  ])('a check with %s racing the removal of TOTP on /account: refused, and TOTP stays off', async (_what, codeOf) => {
    if (!runs) return;
    const owner = new TestBrowser(srv.issuer);
    const factors = await enrol(owner);
    const home = await openAccount(owner);
    const { browser, page } = await atCodePrompt();
    const hold = holdReads(factorStore(), [1]);
    const answer = browser.submit(page, { code: await codeOf(factors as never) });
    await hold.reached();
    const removed = await press(owner, home, 'totp-remove');
    expect(removed.dom.querySelector('#message')!.text).toContain('is off');
    hold.release();
    expect(outcome(await answer)).toBe('refused');
    expect(await srv.server.accounts.getSecondFactor!('alice')).toBeUndefined();
    expect((await openAccount(owner)).dom.querySelector('#totp-status')!.text).toContain('off');
    // a sign-in needs the password only again
    const next = new TestBrowser(srv.issuer);
    const after = await next.submit(await next.go(String((await startAuthorization(web)).url)), {
      email: 'alice@example.com',
      password: 'alice-demo-password',
    });
    expect(after.dom.querySelector('input[name=code]')).toBeNull();
  });

  maybe(
    'a check with an old recovery code racing new recovery codes: refused, and the new codes are kept',
    async () => {
      const owner = new TestBrowser(srv.issuer);
      const { recovery: old } = await enrol(owner);
      const home = await openAccount(owner);
      const { browser, page } = await atCodePrompt();
      const hold = holdReads(factorStore(), [1]);
      const answer = browser.submit(page, { code: old[0]! });
      await hold.reached();
      const renewed = await press(owner, home, 'recovery-new');
      const fresh = renewed.dom.querySelectorAll('#recovery-codes li').map((li) => li.text.trim());
      expect(fresh).toHaveLength(10);
      hold.release();
      expect(outcome(await answer)).toBe('refused');
      const stored = (await srv.server.accounts.getSecondFactor!('alice'))!;
      expect(stored.recoveryCodes!.map((c) => c.hash)).toEqual(fresh.map(hashRecoveryCode));
      expect(stored.recoveryCodes!.filter((c) => c.usedAt)).toHaveLength(0);
      await claimExpires(old[0]!);
      expect([await signInWith(old[0]!), await signInWith(old[1]!), await signInWith(fresh[0]!)]).toEqual([
        'refused',
        'refused',
        'passed',
      ]);
    },
  );

  maybe('new recovery codes racing the removal of TOTP on /account: TOTP stays off', async () => {
    const owner = new TestBrowser(srv.issuer);
    await enrol(owner);
    const home = await openAccount(owner);
    const hold = holdReads(factorStore(), [1], 300);
    const renewal = press(owner, home, 'recovery-new');
    await hold.reached();
    // a server that serialises the writes lets the removal wait for the renewal
    const removal = press(owner, home, 'totp-remove');
    await Promise.race([removal, new Promise((resolve) => setTimeout(resolve, 300))]);
    hold.release();
    expect((await renewal).status).toBe(200);
    expect((await removal).dom.querySelector('#message')!.text).toContain('is off');
    expect(await srv.server.accounts.getSecondFactor!('alice')).toBeUndefined();
    expect((await openAccount(owner)).dom.querySelector('#totp-status')!.text).toContain('off');
  });

  maybe('a check racing a new enrolment on /account: refused, and only the new app and its codes work', async () => {
    const owner = new TestBrowser(srv.issuer);
    const first = await enrol(owner);
    const home = await openAccount(owner);
    const { browser, page } = await atCodePrompt();
    const hold = holdReads(factorStore(), [1]);
    const answer = browser.submit(page, { code: first.recovery[0]! });
    await hold.reached();
    await press(owner, home, 'totp-remove');
    // the step after the first enrolment's: a step is claimed for the account, whichever secret it was for
    const second = await enrol(owner, 1);
    hold.release();
    expect(outcome(await answer)).toBe('refused');
    const stored = (await srv.server.accounts.getSecondFactor!('alice'))!;
    expect(stored.recoveryCodes!.map((c) => c.hash)).toEqual(second.recovery.map(hashRecoveryCode));
    await claimExpires(first.recovery[0]!);
    expect(await signInWith(first.recovery[0]!)).toBe('refused');
    expect(await signInWith(first.recovery[1]!)).toBe('refused');
    expect(await signInWith(await totp(first.secret, 1))).toBe('refused');
    expect(await signInWith(second.recovery[0]!)).toBe('passed');
  });

  test.each([
    ['a recovery code', (f: { recovery: string[] }) => f.recovery[0]!],
    ['a TOTP code', (f: { secret: string }) => totp(f.secret, 1)],
  ])(
    'the store failing while %s is spent: 503 page, nothing spent, and the same code works on the retry',
    async (_what, codeOf) => {
      if (!runs) return;
      const factors = await enrol(new TestBrowser(srv.issuer));
      const code = await codeOf(factors as never);
      // The store's write of the spent code fails once (its atomic change, or the set of a store without one).
      const store = factorStore() as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
      const method = srv.server.accounts.updateSecondFactor ? 'updateSecondFactor' : 'setSecondFactor';
      const own = Object.getOwnPropertyDescriptor(store, method);
      const write = store[method]!;
      store[method] = async function failOnce(this: unknown) {
        if (own) Object.defineProperty(store, method, own);
        else delete store[method];
        throw new StorageUnavailableError('ERR_STORAGE_UNAVAILABLE', 'storage is unavailable; try again later');
      };
      const { browser, page } = await atCodePrompt();
      const failed = await browser.submit(page, { code });
      expect(failed.status).toBe(503);
      expect(store[method]).toBe(own ? own.value : write);
      // Not spent: the stored codes are as enrolled, and the same code, sent again from the prompt, passes at once.
      expect(
        (await srv.server.accounts.getSecondFactor!('alice'))!.recoveryCodes!.filter((c) => c.usedAt),
      ).toHaveLength(0);
      expect(outcome(await browser.submit(page, { code }))).toBe('passed');
    },
  );
});
