import type { AccountStore, StoredSecondFactor } from '../core/account-store.js';
import type { AccountCase } from './account-harness.js';
import { assert, equal } from './assert.js';

/** `store` with the second-factor methods, or an assertion error naming the one it lacks. */
function factors(store: AccountStore): Required<Pick<AccountStore, 'getSecondFactor' | 'setSecondFactor'>> {
  for (const m of ['getSecondFactor', 'setSecondFactor'] as const) {
    assert.equal(
      typeof store[m],
      'function',
      `the store has no ${m} (needed when mfa is on; pass { secondFactor: false } to leave these cases out)`,
    );
  }
  return { getSecondFactor: store.getSecondFactor!.bind(store), setSecondFactor: store.setSecondFactor!.bind(store) };
}

export const secondFactorCase: AccountCase = {
  name: 'second factors: none at first, stored and read back whole, replaced, removed; unknown ids ignored',
  async run({ store }) {
    const { getSecondFactor: get, setSecondFactor: set } = factors(store);
    assert.equal(await get('alice'), undefined);
    const value = {
      totp: { secret: 'c2VjcmV0', createdAt: 1700000000000, lastUsedStep: 56666666 },
      recoveryCodes: [{ hash: 'aGFzaA' }, { hash: 'b3RoZXI', usedAt: 1700000000001 }],
    };
    await set('alice', value);
    equal(await get('alice'), value);
    // what a caller reads is its own copy
    const read = (await get('alice'))!;
    read.recoveryCodes![0]!.usedAt = 1;
    const again = (await get('alice'))!;
    assert.equal(again.recoveryCodes![0]!.usedAt, undefined, 'a change to what was read changed the store');
    await set('alice', { recoveryCodes: [] });
    equal(await get('alice'), { recoveryCodes: [] });
    await set('alice', undefined);
    assert.equal(await get('alice'), undefined);
    await set('nobody', value);
    assert.equal(await get('nobody'), undefined);
    // a verified password still works, and the account record is unchanged by the factor writes
    assert.equal((await store.verifyPassword('alice@example.com', 'alice-demo-password'))?.id, 'alice');
  },
};

const codes = (n: number) => Array.from({ length: n }, (_, i) => ({ hash: `aGFzaC${i}` }));
const enrolled = (): StoredSecondFactor => ({
  totp: { secret: 'c2VjcmV0', createdAt: 1700000000000, lastUsedStep: 56666666 },
  recoveryCodes: codes(10),
});
/** Marks recovery code `i` used, if the account still has it unused. */
const spend = (i: number) => (now: StoredSecondFactor | undefined) =>
  now?.recoveryCodes?.[i] && !now.recoveryCodes[i]!.usedAt
    ? { ...now, recoveryCodes: now.recoveryCodes.map((c, j) => (j === i ? { ...c, usedAt: 1700000000000 + i } : c)) }
    : now;

/** `store.updateSecondFactor`, bound, or an assertion error. */
function updater(store: AccountStore): NonNullable<AccountStore['updateSecondFactor']> {
  assert.equal(
    typeof store.updateSecondFactor,
    'function',
    'the store has no updateSecondFactor (optional: pass { updateSecondFactor: false } to leave these cases out)',
  );
  return store.updateSecondFactor!.bind(store);
}

export const updateSecondFactorCases: AccountCase[] = [
  {
    name:
      'applies the change and answers what is stored; the value given back writes nothing; undefined removes; ' +
      'unknown ids are ignored',
    async run({ store }) {
      const [update, { getSecondFactor: get }] = [updater(store), factors(store)];
      assert.equal(await update('alice', (now) => now), undefined);
      assert.equal(await get('alice'), undefined);
      equal(await update('alice', () => enrolled()), enrolled());
      equal(await get('alice'), enrolled());
      let seen: StoredSecondFactor | undefined;
      equal(await update('alice', (now) => (seen = now)), enrolled());
      equal(seen, enrolled());
      const spent = (await update('alice', spend(3)))!;
      assert.equal(spent.recoveryCodes![3]!.usedAt, 1700000000003);
      equal(await get('alice'), spent);
      assert.equal(await update('alice', () => undefined), undefined);
      assert.equal(await get('alice'), undefined);
      assert.equal(await update('nobody', () => enrolled()), undefined);
      assert.equal(await get('nobody'), undefined);
    },
  },
  {
    name: 'concurrent changes, each spending another recovery code: none is lost',
    async run({ store }) {
      const [update, { getSecondFactor: get, setSecondFactor: set }] = [updater(store), factors(store)];
      await set('alice', enrolled());
      await Promise.all(Array.from({ length: 10 }, (_, i) => update('alice', spend(i))));
      const used = (await get('alice'))!.recoveryCodes!.map((c) => c.usedAt);
      equal(
        used,
        Array.from({ length: 10 }, (_, i) => 1700000000000 + i),
      );
    },
  },
  {
    name: 'a change racing a removal or a replacement does not undo it',
    async run({ store }) {
      const [update, { getSecondFactor: get, setSecondFactor: set }] = [updater(store), factors(store)];
      await set('alice', enrolled());
      await Promise.all([update('alice', spend(0)), set('alice', undefined)]);
      assert.equal(await get('alice'), undefined, 'a change brought back removed factors');
      await set('alice', enrolled());
      const replacement = {
        totp: { secret: 'bmV3', createdAt: 1800000000000 },
        recoveryCodes: [{ hash: 'bmV3IGNvZGU' }],
      };
      await Promise.all([update('alice', spend(0)), set('alice', replacement)]);
      const now = (await get('alice'))!;
      equal(now.totp, replacement.totp);
      equal(
        now.recoveryCodes!.map((c) => c.hash),
        ['bmV3IGNvZGU'],
      );
    },
  },
];
