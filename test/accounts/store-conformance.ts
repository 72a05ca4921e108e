import { hasPasskeyMethods, type AccountStore, type PasskeyAccountStore, type StoredPasskey, type StoredSecondFactor } from '../../lib/core/account-store.js';

function passkey(credentialId: string, extra: Partial<StoredPasskey> = {}): StoredPasskey {
  return { credentialId, publicKey: 'pQECAyYgASFYIA', counter: 0, name: `key ${credentialId}`, createdAt: Date.now(), ...extra };
}

/**
 * What a store's test harness gives the suite: the store, `close`, and `leaveIndexEntry(email, id)`, which writes
 * the e-mail index entry of `email` (its canonical form) naming account `id` as an interrupted write would leave
 * it behind (a store that writes record and index in one step cannot have one: it does nothing).
 */
export interface AccountStoreHarness {
  store: AccountStore;
  close(): Promise<void>;
  leaveIndexEntry(email: string, id: string): Promise<void>;
}

/** Every AccountStore must pass this unchanged. `make` returns a store seeded with alice (alice-demo-password). */
export function accountStoreConformance(name: string, make: () => Promise<AccountStoreHarness>): void {
  describe(`${name} account store`, () => {
    let store: AccountStore;
    let close: () => Promise<void>;
    let leaveIndexEntry: AccountStoreHarness['leaveIndexEntry'];
    beforeEach(async () => ({ store, close, leaveIndexEntry } = await make()));
    afterEach(() => close());

    test('seed accounts are found by id and by e-mail (case-insensitive) and keep no clear password', async () => {
      const alice = await store.findByEmail('ALICE@example.com');
      expect(alice).toMatchObject({ id: 'alice', email: 'alice@example.com', emailVerified: true });
      expect(await store.findById('alice')).toEqual(alice);
      expect(JSON.stringify(alice)).not.toContain('alice-demo-password');
      expect(await store.findById('nobody')).toBeUndefined();
    });

    test('verifyPassword answers the account only for the right password', async () => {
      expect((await store.verifyPassword('alice@example.com', 'alice-demo-password'))?.id).toBe('alice');
      expect(await store.verifyPassword('alice@example.com', 'wrong-password-1')).toBeUndefined();
      expect(await store.verifyPassword('nobody@example.com', 'alice-demo-password')).toBeUndefined();
    });

    test('create: a new unverified account with a random subject; a taken address (any case) is refused', async () => {
      const bob = await store.create({ email: 'bob@example.com', password: 'bob-password-123', claims: { given_name: 'Bob', sub: 'forged' } });
      expect(bob).toMatchObject({ email: 'bob@example.com', emailVerified: false, claims: { given_name: 'Bob' } });
      expect(bob!.id).not.toBe('forged');
      expect(typeof bob!.claims.updated_at).toBe('number');
      expect(await store.create({ email: 'BOB@example.com', password: 'other-password-1', claims: {} })).toBeUndefined();
      expect((await store.verifyPassword('bob@example.com', 'bob-password-123'))?.id).toBe(bob!.id);
    });

    test('every spelling of one mailbox (canonicalEmail) finds the account, and none creates a second or takes it over', async () => {
      const bob = (await store.create({ email: 'Bob@Bücher.example', password: 'bob-password-123', claims: {} }))!;
      expect(bob.email).toBe('Bob@Bücher.example');
      for (const spelling of ['bob@xn--bcher-kva.example', 'BOB@BÜCHER.EXAMPLE.', 'bob@bu\u0308cher.example', 'bob@ｂücher.example']) {
        expect((await store.findByEmail(spelling))?.id).toBe(bob.id);
        expect(await store.create({ email: spelling, password: 'other-password-1', claims: {} })).toBeUndefined();
      }
      expect((await store.verifyPassword('bob@xn--bcher-kva.example.', 'bob-password-123'))?.id).toBe(bob.id);
      expect(await store.setEmail(bob.id, 'ALICE@example.com.')).toBe(false);
      expect(await store.findByEmail('bob@b\u00fccher')).toBeUndefined();
    });

    test('concurrent sign-ups for one address: exactly one account', async () => {
      const results = await Promise.all(Array.from({ length: 4 }, (_, i) => store.create({ email: 'race@example.com', password: `race-password-${i}0`, claims: {} })));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    // An entry left by a sign-up or e-mail change cut off between its writes names an account that does not exist,
    // or one that does not have the address: it must not lock the address for good.
    describe.each<[string, string]>([
      ['a missing account (interrupted sign-up)', 'ghost'],
      ['an account without that address (interrupted e-mail change)', 'alice'],
    ])('an e-mail index entry naming %s does not hold the address', (_name, holder) => {
      test.each<[string, string]>([
        ['the same spelling', 'bob@example.com'],
        ['another spelling', 'BOB@Example.COM.'],
      ])('sign-up with %s succeeds, once; the account signs in', async (_spelling, email) => {
        await leaveIndexEntry('bob@example.com', holder);
        expect(await store.findByEmail('bob@example.com')).toBeUndefined();
        const bob = await store.create({ email, password: 'bob-password-123', claims: {} });
        expect(bob).toMatchObject({ email, emailVerified: false });
        expect((await store.findByEmail('bob@example.com'))?.id).toBe(bob!.id);
        expect((await store.verifyPassword('bob@example.com', 'bob-password-123'))?.id).toBe(bob!.id);
        expect(await store.create({ email: 'bob@example.com', password: 'other-password-1', claims: {} })).toBeUndefined();
        expect((await store.verifyPassword('alice@example.com', 'alice-demo-password'))?.id).toBe('alice');
      });

      test('concurrent sign-ups for that address: exactly one account', async () => {
        await leaveIndexEntry('race@example.com', holder);
        const results = await Promise.all(Array.from({ length: 4 }, (_, i) => store.create({ email: 'race@example.com', password: `race-password-${i}0`, claims: {} })));
        expect(results.filter(Boolean)).toHaveLength(1);
        expect((await store.findByEmail('race@example.com'))?.id).toBe(results.find(Boolean)!.id);
      });

      test('an e-mail change to that address succeeds', async () => {
        const carol = (await store.create({ email: 'carol@example.com', password: 'carol-password-1', claims: {} }))!;
        await leaveIndexEntry('carol.new@example.com', holder);
        expect(await store.setEmail(carol.id, 'carol.new@example.com')).toBe(true);
        expect((await store.findByEmail('carol.new@example.com'))?.id).toBe(carol.id);
        expect((await store.verifyPassword('carol.new@example.com', 'carol-password-1'))?.id).toBe(carol.id);
        expect(await store.findByEmail('carol@example.com')).toBeUndefined();
        expect(await store.create({ email: 'carol.new@example.com', password: 'other-password-1', claims: {} })).toBeUndefined();
      });
    });

    test('setPassword, markEmailVerified and setEmail', async () => {
      const carol = (await store.create({ email: 'carol@example.com', password: 'carol-password-1', claims: {} }))!;
      await store.markEmailVerified(carol.id);
      expect((await store.findById(carol.id))!.emailVerified).toBe(true);
      await store.setPassword(carol.id, 'carol-password-2');
      expect(await store.verifyPassword('carol@example.com', 'carol-password-1')).toBeUndefined();
      expect(await store.verifyPassword('carol@example.com', 'carol-password-2')).toBeDefined();
      expect(await store.setEmail(carol.id, 'alice@example.com')).toBe(false);
      expect(await store.setEmail(carol.id, 'carol.new@example.com')).toBe(true);
      expect(await store.findByEmail('carol@example.com')).toBeUndefined();
      expect((await store.findByEmail('carol.new@example.com'))!.id).toBe(carol.id);
      expect(await store.verifyPassword('carol.new@example.com', 'carol-password-2')).toBeDefined();
    });

    test('second factors: none at first, stored and read back whole, replaced, removed; unknown ids ignored', async () => {
      expect(store.getSecondFactor && store.setSecondFactor).toBeDefined();
      expect(await store.getSecondFactor!('alice')).toBeUndefined();
      const value = { totp: { secret: 'c2VjcmV0', createdAt: 1700000000000, lastUsedStep: 56666666 }, recoveryCodes: [{ hash: 'aGFzaA' }, { hash: 'b3RoZXI', usedAt: 1700000000001 }] };
      await store.setSecondFactor!('alice', value);
      expect(await store.getSecondFactor!('alice')).toEqual(value);
      // what a caller reads is its own copy
      const read = (await store.getSecondFactor!('alice'))!;
      read.recoveryCodes![0]!.usedAt = 1;
      expect((await store.getSecondFactor!('alice'))!.recoveryCodes![0]!.usedAt).toBeUndefined();
      await store.setSecondFactor!('alice', { recoveryCodes: [] });
      expect(await store.getSecondFactor!('alice')).toEqual({ recoveryCodes: [] });
      await store.setSecondFactor!('alice', undefined);
      expect(await store.getSecondFactor!('alice')).toBeUndefined();
      await store.setSecondFactor!('nobody', value);
      expect(await store.getSecondFactor!('nobody')).toBeUndefined();
      // a verified password still works, and the account record is unchanged by the factor writes
      expect((await store.verifyPassword('alice@example.com', 'alice-demo-password'))?.id).toBe('alice');
    });

    describe('updateSecondFactor: atomic changes of the second factors', () => {
      const codes = (n: number) => Array.from({ length: n }, (_, i) => ({ hash: `aGFzaC${i}` }));
      const enrolled = () => ({ totp: { secret: 'c2VjcmV0', createdAt: 1700000000000, lastUsedStep: 56666666 }, recoveryCodes: codes(10) });
      /** Marks recovery code `i` used, if the account still has it unused. */
      const spend = (i: number) => (now: StoredSecondFactor | undefined) => (now?.recoveryCodes?.[i] && !now.recoveryCodes[i]!.usedAt
        ? { ...now, recoveryCodes: now.recoveryCodes.map((c, j) => (j === i ? { ...c, usedAt: 1700000000000 + i } : c)) } : now);
      let update: NonNullable<AccountStore['updateSecondFactor']>;
      beforeEach(() => {
        expect(store.updateSecondFactor).toBeDefined();
        update = store.updateSecondFactor!.bind(store);
      });

      test('applies the change and answers what is stored; the value given back writes nothing; undefined removes; unknown ids are ignored', async () => {
        expect(await update('alice', (now) => now)).toBeUndefined();
        expect(await store.getSecondFactor!('alice')).toBeUndefined();
        expect(await update('alice', () => enrolled())).toEqual(enrolled());
        expect(await store.getSecondFactor!('alice')).toEqual(enrolled());
        let seen: StoredSecondFactor | undefined;
        expect(await update('alice', (now) => (seen = now))).toEqual(enrolled());
        expect(seen).toEqual(enrolled());
        const spent = (await update('alice', spend(3)))!;
        expect(spent.recoveryCodes![3]!.usedAt).toBe(1700000000003);
        expect(await store.getSecondFactor!('alice')).toEqual(spent);
        expect(await update('alice', () => undefined)).toBeUndefined();
        expect(await store.getSecondFactor!('alice')).toBeUndefined();
        expect(await update('nobody', () => enrolled())).toBeUndefined();
        expect(await store.getSecondFactor!('nobody')).toBeUndefined();
      });

      test('concurrent changes, each spending another recovery code: none is lost', async () => {
        await store.setSecondFactor!('alice', enrolled());
        await Promise.all(Array.from({ length: 10 }, (_, i) => update('alice', spend(i))));
        expect((await store.getSecondFactor!('alice'))!.recoveryCodes!.map((c) => c.usedAt)).toEqual(Array.from({ length: 10 }, (_, i) => 1700000000000 + i));
      });

      test('a change racing a removal or a replacement does not undo it', async () => {
        await store.setSecondFactor!('alice', enrolled());
        await Promise.all([update('alice', spend(0)), store.setSecondFactor!('alice', undefined)]);
        expect(await store.getSecondFactor!('alice')).toBeUndefined();
        await store.setSecondFactor!('alice', enrolled());
        const replacement = { totp: { secret: 'bmV3', createdAt: 1800000000000 }, recoveryCodes: [{ hash: 'bmV3IGNvZGU' }] };
        await Promise.all([update('alice', spend(0)), store.setSecondFactor!('alice', replacement)]);
        const now = (await store.getSecondFactor!('alice'))!;
        expect(now.totp).toEqual(replacement.totp);
        expect(now.recoveryCodes!.map((c) => c.hash)).toEqual(['bmV3IGNvZGU']);
      });
    });

    describe('passkeys', () => {
      let keys: PasskeyAccountStore;
      beforeEach(() => {
        expect(hasPasskeyMethods(store)).toBe(true);
        keys = store as PasskeyAccountStore;
      });

      test('saved passkeys are listed oldest first, found by credential id, and saving the same id replaces it', async () => {
        expect(await keys.listPasskeys('alice')).toEqual([]);
        expect(await keys.findAccountByPasskey('cred-a')).toBeUndefined();
        await keys.savePasskey('alice', passkey('cred-b', { createdAt: 2000, transports: ['internal', 'hybrid'], deviceType: 'multiDevice', backedUp: true }));
        await keys.savePasskey('alice', passkey('cred-a', { createdAt: 1000 }));
        expect((await keys.listPasskeys('alice')).map((p) => p.credentialId)).toEqual(['cred-a', 'cred-b']);
        expect((await keys.listPasskeys('alice'))[1]).toEqual(passkey('cred-b', { createdAt: 2000, transports: ['internal', 'hybrid'], deviceType: 'multiDevice', backedUp: true }));
        expect((await keys.findAccountByPasskey('cred-a'))?.id).toBe('alice');

        await keys.savePasskey('alice', passkey('cred-a', { createdAt: 1000, counter: 7, lastUsedAt: 3000, name: 'Laptop' }));
        const [a] = await keys.listPasskeys('alice');
        expect(a).toMatchObject({ credentialId: 'cred-a', counter: 7, lastUsedAt: 3000, name: 'Laptop' });
        expect(await keys.listPasskeys('alice')).toHaveLength(2);
      });

      test('a credential id belongs to one account: saving it for another account throws', async () => {
        const bob = (await store.create({ email: 'bob.keys@example.com', password: 'bob-password-123', claims: {} }))!;
        await keys.savePasskey('alice', passkey('cred-shared'));
        await expect(keys.savePasskey(bob.id, passkey('cred-shared'))).rejects.toThrow(/another account/);
        expect(await keys.listPasskeys(bob.id)).toEqual([]);
        expect((await keys.findAccountByPasskey('cred-shared'))?.id).toBe('alice');
      });

      test('deletePasskey removes only the owner\'s passkey and frees its credential id', async () => {
        const bob = (await store.create({ email: 'bob.del@example.com', password: 'bob-password-123', claims: {} }))!;
        await keys.savePasskey('alice', passkey('cred-x'));
        expect(await keys.deletePasskey(bob.id, 'cred-x')).toBe(false);
        expect((await keys.findAccountByPasskey('cred-x'))?.id).toBe('alice');
        expect(await keys.deletePasskey('alice', 'cred-x')).toBe(true);
        expect(await keys.deletePasskey('alice', 'cred-x')).toBe(false);
        expect(await keys.listPasskeys('alice')).toEqual([]);
        expect(await keys.findAccountByPasskey('cred-x')).toBeUndefined();
        await keys.savePasskey(bob.id, passkey('cred-x'));
        expect((await keys.findAccountByPasskey('cred-x'))?.id).toBe(bob.id);
      });
    });
  });
}
