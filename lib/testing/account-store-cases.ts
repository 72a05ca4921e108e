import type { AccountStore } from '../core/account-store.js';
import { CONFORMANCE_SEED, type AccountCase } from './account-harness.js';
import { assert, equal, matches } from './assert.js';
import { grouped } from './cases.js';

const create = (store: AccountStore, email: string, password: string) => store.create({ email, password, claims: {} });
/** Four sign-ups for `email` at once, each with another password. */
const raceSignUps = (store: AccountStore, email: string) =>
  Promise.all(Array.from({ length: 4 }, (_, i) => create(store, email, `race-password-${i}0`)));

/** With `CLEAR_PASSWORD_SEED` beside alice: a seed given by a clear password is hashed, found and signs in. */
export const clearPasswordSeedCase: AccountCase = {
  name: 'a seed account given by a clear password is found, keeps no clear password and signs in with it',
  async run({ store }) {
    const seeded = await store.findByEmail('SEEDED@example.com');
    matches(seeded, { id: 'seeded', email: 'seeded@example.com', emailVerified: false });
    assert.ok(!JSON.stringify(seeded).includes('seeded-clear-password'), 'the account holds the clear password');
    assert.equal((await store.verifyPassword('seeded@example.com', 'seeded-clear-password'))?.id, 'seeded');
    assert.equal(await store.verifyPassword('seeded@example.com', 'alice-demo-password'), undefined);
    assert.equal((await store.verifyPassword('alice@example.com', 'alice-demo-password'))?.id, 'alice');
  },
};

export const accountCases: AccountCase[] = [
  {
    name: 'seed accounts are found by id and by e-mail (case-insensitive) and keep no clear password',
    async run({ store }) {
      const alice = await store.findByEmail('ALICE@example.com');
      matches(alice, { id: 'alice', email: 'alice@example.com', emailVerified: true });
      equal(await store.findById('alice'), alice);
      assert.ok(!JSON.stringify(alice).includes('alice-demo-password'), 'the account holds the clear password');
      assert.ok(!JSON.stringify(alice).includes('scrypt$'), 'the account holds its password hash');
      assert.equal(await store.findById('nobody'), undefined);
    },
  },
  {
    name: 'verifyPassword answers the account only for the right password',
    async run({ store }) {
      assert.equal((await store.verifyPassword('alice@example.com', 'alice-demo-password'))?.id, 'alice');
      assert.equal(await store.verifyPassword('alice@example.com', 'wrong-password-1'), undefined);
      const aliceHash = CONFORMANCE_SEED[0]!.passwordHash!;
      assert.equal(await store.verifyPassword('alice@example.com', aliceHash), undefined, 'the hash is no password');
      assert.equal(await store.verifyPassword('nobody@example.com', 'alice-demo-password'), undefined);
    },
  },
  {
    name: 'create: a new unverified account with a random subject; a taken address (any case) is refused',
    async run({ store }) {
      const claims = { given_name: 'Bob', sub: 'forged' };
      const bob = await store.create({ email: 'bob@example.com', password: 'bob-password-123', claims });
      matches(bob, { email: 'bob@example.com', emailVerified: false, claims: { given_name: 'Bob' } });
      assert.notEqual(bob!.id, 'forged', 'the subject was taken from the claims');
      assert.equal(typeof bob!.claims.updated_at, 'number', 'claims.updated_at (epoch seconds)');
      assert.equal(await create(store, 'BOB@example.com', 'other-password-1'), undefined);
      assert.equal((await store.verifyPassword('bob@example.com', 'bob-password-123'))?.id, bob!.id);
    },
  },
  {
    name:
      'every spelling of one mailbox (canonicalEmail) finds the account, and none creates a second or ' +
      'takes it over',
    async run({ store }) {
      const bob = (await create(store, 'Bob@Bücher.example', 'bob-password-123'))!;
      assert.equal(bob.email, 'Bob@Bücher.example');
      const spellings = [
        'bob@xn--bcher-kva.example',
        'BOB@BÜCHER.EXAMPLE.',
        'bob@bu\u0308cher.example',
        'bob@ｂücher.example',
      ];
      for (const spelling of spellings) {
        assert.equal((await store.findByEmail(spelling))?.id, bob.id, spelling);
        assert.equal(await create(store, spelling, 'other-password-1'), undefined, spelling);
      }
      assert.equal((await store.verifyPassword('bob@xn--bcher-kva.example.', 'bob-password-123'))?.id, bob.id);
      assert.equal(await store.setEmail(bob.id, 'ALICE@example.com.'), false);
      assert.equal(await store.findByEmail('bob@b\u00fccher'), undefined);
    },
  },
  {
    name: 'concurrent sign-ups for one address: exactly one account',
    async run({ store }) {
      const results = await raceSignUps(store, 'race@example.com');
      assert.equal(results.filter(Boolean).length, 1);
    },
  },
];

/** The cases about one stale index entry naming `holder`. */
function staleEntryCases(holder: string): AccountCase[] {
  const spellings = [
    ['the same spelling', 'bob@example.com'],
    ['another spelling', 'BOB@Example.COM.'],
  ];
  const signUps = spellings.map(
    ([label, email]): AccountCase => ({
      name: `sign-up with ${label} succeeds, once; the account signs in`,
      async run({ store, leaveIndexEntry }) {
        await leaveIndexEntry('bob@example.com', holder);
        assert.equal(await store.findByEmail('bob@example.com'), undefined);
        const bob = await create(store, email!, 'bob-password-123');
        matches(bob, { email, emailVerified: false });
        assert.equal((await store.findByEmail('bob@example.com'))?.id, bob!.id);
        assert.equal((await store.verifyPassword('bob@example.com', 'bob-password-123'))?.id, bob!.id);
        assert.equal(await create(store, 'bob@example.com', 'other-password-1'), undefined);
        assert.equal((await store.verifyPassword('alice@example.com', 'alice-demo-password'))?.id, 'alice');
      },
    }),
  );
  return [
    ...signUps,
    {
      name: 'concurrent sign-ups for that address: exactly one account',
      async run({ store, leaveIndexEntry }) {
        await leaveIndexEntry('race@example.com', holder);
        const results = await raceSignUps(store, 'race@example.com');
        assert.equal(results.filter(Boolean).length, 1);
        assert.equal((await store.findByEmail('race@example.com'))?.id, results.find(Boolean)!.id);
      },
    },
    {
      name: 'an e-mail change to that address succeeds',
      async run({ store, leaveIndexEntry }) {
        const carol = (await create(store, 'carol@example.com', 'carol-password-1'))!;
        await leaveIndexEntry('carol.new@example.com', holder);
        assert.equal(await store.setEmail(carol.id, 'carol.new@example.com'), true);
        assert.equal((await store.findByEmail('carol.new@example.com'))?.id, carol.id);
        assert.equal((await store.verifyPassword('carol.new@example.com', 'carol-password-1'))?.id, carol.id);
        assert.equal(await store.findByEmail('carol@example.com'), undefined);
        assert.equal(await create(store, 'carol.new@example.com', 'other-password-1'), undefined);
      },
    },
  ];
}

// An entry left by a sign-up or e-mail change cut off between its writes names an account that does not exist,
// or one that does not have the address: it must not lock the address for good.
export const staleIndexCases: AccountCase[] = [
  ['a missing account (interrupted sign-up)', 'ghost'],
  ['an account without that address (interrupted e-mail change)', 'alice'],
].flatMap(([label, holder]) =>
  grouped(`an e-mail index entry naming ${label} does not hold the address`, staleEntryCases(holder!)),
);

export const accountUpdateCase: AccountCase = {
  name: 'setPassword, markEmailVerified and setEmail',
  async run({ store }) {
    const carol = (await create(store, 'carol@example.com', 'carol-password-1'))!;
    await store.markEmailVerified(carol.id);
    assert.equal((await store.findById(carol.id))!.emailVerified, true);
    await store.setPassword(carol.id, 'carol-password-2');
    assert.equal(await store.verifyPassword('carol@example.com', 'carol-password-1'), undefined);
    assert.notEqual(await store.verifyPassword('carol@example.com', 'carol-password-2'), undefined);
    assert.equal(await store.setEmail(carol.id, 'alice@example.com'), false);
    assert.equal(await store.setEmail(carol.id, 'carol.new@example.com'), true);
    assert.equal(await store.findByEmail('carol@example.com'), undefined);
    assert.equal((await store.findByEmail('carol.new@example.com'))!.id, carol.id);
    assert.notEqual(await store.verifyPassword('carol.new@example.com', 'carol-password-2'), undefined);
  },
};
