import type { AccountStore } from '../../lib/core/account-store.js';

/** Every AccountStore must pass this unchanged. `make` returns a store seeded with alice (alice-demo-password). */
export function accountStoreConformance(name: string, make: () => Promise<{ store: AccountStore; close(): Promise<void> }>): void {
  describe(`${name} account store`, () => {
    let store: AccountStore;
    let close: () => Promise<void>;
    beforeEach(async () => ({ store, close } = await make()));
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

    test('concurrent sign-ups for one address: exactly one account', async () => {
      const results = await Promise.all(Array.from({ length: 4 }, (_, i) => store.create({ email: 'race@example.com', password: `race-password-${i}0`, claims: {} })));
      expect(results.filter(Boolean)).toHaveLength(1);
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
  });
}
