import { MemoryAccountStore } from '../../adapters/memory-account-store.js';
import { MemoryStorage } from '../../adapters/memory.js';
import type { AccountSeed, AccountStore, StoredSecondFactor } from '../../lib/core/account-store.js';
import { overriding, type Adapter, type Storage } from '../../lib/core/storage.js';
import {
  accountStoreConformance,
  storageConformance,
  type AccountStoreHarness,
  type ConformanceCase,
} from '../../lib/testing/index.js';

/**
 * The exported suites catch what they are for: each row breaks one rule of the contract in the memory storage or
 * account store, and the cases about that rule must fail (for the storage: exactly those, the rest pass).
 */
async function failing(cases: readonly ConformanceCase[]): Promise<string[]> {
  const failed: string[] = [];
  for (const c of cases) await c.run().catch(() => failed.push(c.name));
  return failed;
}

type AdapterChange = (model: string, adapter: Adapter) => Partial<Adapter>;

/** A memory storage whose adapters have `change(model, adapter)`'s methods, and whose other methods are `rest`'s. */
function brokenStorage(change: AdapterChange, rest: Partial<Storage> = {}): Storage {
  const inner = new MemoryStorage();
  return {
    adapter: (model) => overriding(inner.adapter(model), change(model, inner.adapter(model))),
    ping: () => inner.ping(),
    close: () => inner.close(),
    accountStore: (seed) => inner.accountStore(seed),
    limiterBackend: () => inner.limiterBackend(),
    ...rest,
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const expiresIn = (label: string) => `upsert with expiresIn ${label}; the earlier entry and its indexes are replaced`;

describe('storageConformance', () => {
  test('the memory storage passes all 31 cases', async () => {
    const cases = storageConformance(() => new MemoryStorage());
    expect(cases).toHaveLength(31);
    expect(await failing(cases)).toEqual([]);
  });

  const kept = [
    'undefined: kept, no expiry',
    '0.2: kept, rounded up',
    '1e12 (about 31,700 years): kept',
    '1e17 (beyond what Redis EXPIRE takes): kept',
    '1e300: kept',
    'Infinity: kept',
  ].map(expiresIn);
  const shared = new Map<string, Record<string, unknown>>();
  test.each<[string, AdapterChange, Partial<Storage>, string[]]>([
    [
      'find hands out the object it was given',
      (model, a) => ({
        upsert: async (id, payload, exp) => {
          shared.set(`${model}:${id}`, payload);
          await a.upsert(id, payload, exp);
        },
        find: async (id) => ((await a.find(id)) ? shared.get(`${model}:${id}`) : undefined),
      }),
      {},
      [
        'upsert then find returns a copy of the payload; unknown ids are undefined',
        'what is stored is what JSON keeps: no later mutation of the upserted object, dates as strings, ' +
          'undefined left out',
        'consume marks the entry consumed once; a second consume throws',
      ],
    ],
    [
      'an expiresIn of 0 or less keeps the entry',
      (_m, a) => ({
        upsert: (id, payload, exp) => a.upsert(id, payload, exp !== undefined && exp <= 0 ? 60 : exp),
      }),
      {},
      ['0: already expired, removed', '-5: already expired, removed'].map(expiresIn),
    ],
    [
      'consume is a read, then a write',
      (_m, a) => ({
        async consume(id) {
          const entry = await a.find(id);
          if (!entry || entry.consumed) throw Object.assign(new Error('invalid_grant'), { error: 'invalid_grant' });
          await tick();
          await a.upsert(id, { ...entry, consumed: Math.floor(Date.now() / 1000) }, 60);
        },
      }),
      {},
      ['concurrent consumes of one code: exactly one wins'],
    ],
    [
      'revokeByGrantId removes nothing',
      () => ({ revokeByGrantId: async () => {} }),
      {},
      [...kept, "revokeByGrantId removes exactly the models oidc-provider's own adapter removes, and nothing else"],
    ],
    [
      'ping rejects',
      () => ({}),
      { ping: () => Promise.reject(new Error('down')) },
      ['ping resolves while the storage is up'],
    ],
  ])('%s: exactly the cases about it fail', async (_name, change, rest, expected) => {
    expect(await failing(storageConformance(() => brokenStorage(change, rest)))).toEqual(expected);
  });
});

const METHODS = [
  'findById',
  'findByEmail',
  'verifyPassword',
  'create',
  'setPassword',
  'setEmail',
  'markEmailVerified',
  'getSecondFactor',
  'setSecondFactor',
  'updateSecondFactor',
  'listPasskeys',
  'savePasskey',
  'deletePasskey',
  'findAccountByPasskey',
] as const;
type StoreChange = (inner: MemoryAccountStore) => Partial<Record<(typeof METHODS)[number], unknown>>;

/** The memory account store with `change(inner)`'s methods in place of its own (`undefined` removes one). */
function brokenStore(change: StoreChange) {
  return async (seed: readonly AccountSeed[]): Promise<AccountStoreHarness> => {
    const inner = await MemoryAccountStore.fromSeed(seed);
    const own = Object.fromEntries(METHODS.map((m) => [m, (inner[m] as (...args: unknown[]) => unknown).bind(inner)]));
    return { store: { ...own, ...change(inner) } as unknown as AccountStore };
  };
}

type Change = (now: StoredSecondFactor | undefined) => StoredSecondFactor | undefined;

describe('accountStoreConformance', () => {
  // test/accounts/stores.test.ts runs them all against the memory and Redis stores. The first case's seed has an
  // account given by a clear password (hashed by the store); the others seed alice's hash.
  test('22 cases', () => {
    const cases = accountStoreConformance(async (seed) => ({ store: await MemoryAccountStore.fromSeed(seed) }));
    expect(cases).toHaveLength(22);
    expect(cases[0]!.name).toMatch(/given by a clear password/);
  });

  const racing = [
    'concurrent changes, each spending another recovery code: none is lost',
    'a change racing a removal or a replacement does not undo it',
  ].map((name) => `updateSecondFactor: atomic changes of the second factors: ${name}`);
  const passkeys = [
    'saved passkeys are listed oldest first, found by credential id, and saving the same id replaces it',
    'a credential id belongs to one account: saving it for another account throws',
    "deletePasskey removes only the owner's passkey and frees its credential id",
  ].map((name) => `passkeys: ${name}`);
  // Only the cases about the rule run (each account case hashes passwords with scrypt: about 0.6 s); that the others
  // pass against the unbroken store is test/accounts/stores.test.ts.
  test.each<[string, StoreChange, string[]]>([
    [
      'findByEmail knows ASCII spellings only',
      (inner) => ({
        findByEmail: async (email: string) => (/^[\x20-\x7e]*$/.test(email) ? inner.findByEmail(email) : undefined),
      }),
      [
        'every spelling of one mailbox (canonicalEmail) finds the account, and none creates a second or takes it ' +
          'over',
      ],
    ],
    [
      'updateSecondFactor is a read, then a write',
      (inner) => ({
        async updateSecondFactor(id: string, change: Change) {
          const now = await inner.getSecondFactor(id);
          if (!(await inner.findById(id))) return undefined;
          const next = change(now);
          await tick();
          await inner.setSecondFactor(id, next);
          return next;
        },
      }),
      racing,
    ],
    [
      'no passkey methods',
      () => ({
        listPasskeys: undefined,
        savePasskey: undefined,
        deletePasskey: undefined,
        findAccountByPasskey: undefined,
      }),
      passkeys,
    ],
  ])(
    '%s: the cases about it fail',
    async (_name, change, expected) => {
      const cases = accountStoreConformance(brokenStore(change));
      expect(cases.map((c) => c.name)).toEqual(expect.arrayContaining(expected));
      expect(await failing(cases.filter((c) => expected.includes(c.name)))).toEqual(expected);
    },
    60_000,
  );

  test('options leave out the cases of the optional methods a store does not have', async () => {
    const store = brokenStore(() => ({
      getSecondFactor: undefined,
      setSecondFactor: undefined,
      updateSecondFactor: undefined,
      listPasskeys: undefined,
    }));
    const names = (options: Parameters<typeof accountStoreConformance>[1]) =>
      accountStoreConformance(store, options).map((c) => c.name);
    expect(names({ secondFactor: false, passkeys: false })).toHaveLength(15);
    expect(names({ secondFactor: false, passkeys: false }).filter((n) => /second factor|passkey/i.test(n))).toEqual([]);
    expect(names({ updateSecondFactor: false })).toHaveLength(19);
    expect(names({ updateSecondFactor: false }).filter((n) => n.startsWith('updateSecondFactor'))).toEqual([]);
    const last = accountStoreConformance(store, { passkeys: false }).at(-1)!;
    const missing = await last.run().then(
      () => '',
      (err: Error) => err.message,
    );
    expect(missing).toMatch(/the store has no updateSecondFactor \(optional: pass \{ updateSecondFactor: false \}/);
  });
});
