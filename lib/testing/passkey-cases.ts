import {
  hasPasskeyMethods,
  PASSKEY_STORE_METHODS,
  type AccountStore,
  type PasskeyAccountStore,
  type StoredPasskey,
} from '../core/account-store.js';
import type { AccountCase } from './account-harness.js';
import { assert, equal, matches } from './assert.js';

function passkey(credentialId: string, extra: Partial<StoredPasskey> = {}): StoredPasskey {
  return {
    credentialId,
    publicKey: 'pQECAyYgASFYIA',
    counter: 0,
    name: `key ${credentialId}`,
    createdAt: Date.now(),
    ...extra,
  };
}

/** `store` as a {@link PasskeyAccountStore}, or an assertion error naming the methods it lacks. */
function keysOf(store: AccountStore): PasskeyAccountStore {
  const missing = PASSKEY_STORE_METHODS.filter((m) => typeof store[m] !== 'function');
  assert.ok(
    hasPasskeyMethods(store),
    `the store has no ${missing.join(', ')} (needed when passkeys.enabled is on; ` +
      'pass { passkeys: false } to leave these cases out)',
  );
  return store;
}

const createBob = async (store: AccountStore, email: string) =>
  (await store.create({ email, password: 'bob-password-123', claims: {} }))!;

export const passkeyCases: AccountCase[] = [
  {
    name: 'saved passkeys are listed oldest first, found by credential id, and saving the same id replaces it',
    async run({ store }) {
      const keys = keysOf(store);
      const b = passkey('cred-b', {
        createdAt: 2000,
        transports: ['internal', 'hybrid'],
        deviceType: 'multiDevice',
        backedUp: true,
      });
      equal(await keys.listPasskeys('alice'), []);
      assert.equal(await keys.findAccountByPasskey('cred-a'), undefined);
      await keys.savePasskey('alice', b);
      await keys.savePasskey('alice', passkey('cred-a', { createdAt: 1000 }));
      equal(
        (await keys.listPasskeys('alice')).map((p) => p.credentialId),
        ['cred-a', 'cred-b'],
      );
      equal((await keys.listPasskeys('alice'))[1], b);
      assert.equal((await keys.findAccountByPasskey('cred-a'))?.id, 'alice');

      const renamed = passkey('cred-a', { createdAt: 1000, counter: 7, lastUsedAt: 3000, name: 'Laptop' });
      await keys.savePasskey('alice', renamed);
      const [a] = await keys.listPasskeys('alice');
      matches(a, { credentialId: 'cred-a', counter: 7, lastUsedAt: 3000, name: 'Laptop' });
      assert.equal((await keys.listPasskeys('alice')).length, 2);
    },
  },
  {
    name: 'a credential id belongs to one account: saving it for another account throws',
    async run({ store }) {
      const keys = keysOf(store);
      const bob = await createBob(store, 'bob.keys@example.com');
      await keys.savePasskey('alice', passkey('cred-shared'));
      // Any Error: Portcullis checks with findAccountByPasskey first and does not read the message.
      await assert.rejects(keys.savePasskey(bob.id, passkey('cred-shared')), Error);
      equal(await keys.listPasskeys(bob.id), []);
      assert.equal((await keys.findAccountByPasskey('cred-shared'))?.id, 'alice');
    },
  },
  {
    name: "deletePasskey removes only the owner's passkey and frees its credential id",
    async run({ store }) {
      const keys = keysOf(store);
      const bob = await createBob(store, 'bob.del@example.com');
      await keys.savePasskey('alice', passkey('cred-x'));
      assert.equal(await keys.deletePasskey(bob.id, 'cred-x'), false);
      assert.equal((await keys.findAccountByPasskey('cred-x'))?.id, 'alice');
      assert.equal(await keys.deletePasskey('alice', 'cred-x'), true);
      assert.equal(await keys.deletePasskey('alice', 'cred-x'), false);
      equal(await keys.listPasskeys('alice'), []);
      assert.equal(await keys.findAccountByPasskey('cred-x'), undefined);
      await keys.savePasskey(bob.id, passkey('cred-x'));
      assert.equal((await keys.findAccountByPasskey('cred-x'))?.id, bob.id);
    },
  },
];
