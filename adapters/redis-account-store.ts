import type {
  Account,
  AccountSeed,
  AccountStore,
  NewAccount,
  StoredPasskey,
  StoredSecondFactor,
} from '../lib/core/account-store.js';
import { canonicalEmail } from '../lib/core/email-address.js';
import {
  accountFromSeed,
  checkPassword,
  freezeAccount,
  newAccountRecord,
  nowSeconds,
  seedKey,
} from './account-records.js';
import { hashPassword, seedPasswordHash } from './password.js';
import type { RedisConnection } from './redis-connection.js';
import { migrateEmailIndex } from './redis-email-migration.js';
import { RedisPasskeys, RedisSecondFactors } from './redis-account-credentials.js';
import type { AccountRecords, SecondFactorChange } from './redis-account-credentials.js';
import type { Logger } from '../lib/core/logger.js';

interface StoredAccount {
  account: Account;
  passwordHash: string;
}

/** The account named by an e-mail index key (KEYS[1]); ARGV[1] is the account key prefix up to the brace. */
const ACCOUNT_BY_EMAIL = `
local id = redis.call('GET', KEYS[1])
if not id then return nil end
return redis.call('GET', ARGV[1] .. id .. '}')`;

/** Sets KEYS[1] to ARGV[2] only while it still holds ARGV[1] (one key, so on a Cluster too); 1 when set. */
const REPLACE_IF_UNCHANGED = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1`;

/**
 * {@link AccountStore} in Redis, next to the provider's data, so that every instance sees the same accounts,
 * sign-ups and password changes. Keys: `<prefix>Account:{<id>}` (JSON of the account and its scrypt hash) and
 * `<prefix>AccountEmail:{<canonical e-mail>}` (the id; `canonicalEmail`), `<prefix>AccountMfa:{<id>}` (JSON of the
 * second factors, changed by compare-and-set so that concurrent sign-ins cannot undo each other's spent codes). An
 * address is claimed with `SET NX`, so two concurrent sign-ups for one mailbox across instances cannot both win,
 * whichever spelling each used. Record and index are separate commands (different Cluster slots): an index entry
 * counts only while the account it names exists and has that address; any other entry (left by a sign-up or
 * e-mail change cut off between its writes) is ignored by lookups and taken over by a claim (compare-and-set). Earlier
 * versions keyed the index by the address lower-cased, which is the canonical
 * form of every plain ASCII address; entries under another spelling (an IDN domain, a trailing dot, a decomposed
 * letter) are moved to their canonical key once, when {@link RedisAccountStore.fromSeed} opens the store
 * (`migrateEmailIndex`, marker `<prefix>AccountEmailCanonical:v1`). One it has not moved yet (it ran out of time, or
 * an instance of an earlier version wrote it afterwards) is still found when the address is typed that way, and
 * moved on that lookup.
 * Passkeys: `<prefix>Passkeys:{<id>}` and `<prefix>PasskeyOwner:{<credential id>}` ({@link RedisPasskeys}, in
 * adapters/redis-account-credentials.ts with the second factors). No key expires.
 */
export class RedisAccountStore implements AccountStore {
  readonly #s: RedisConnection;
  readonly #passkeys: RedisPasskeys;
  readonly #factors: RedisSecondFactors;

  constructor(storage: RedisConnection) {
    this.#s = storage;
    const find = async (id: string) => (await this.#read(id))?.account;
    const records: AccountRecords = { key: (id) => this.#key(id), find };
    this.#passkeys = new RedisPasskeys(storage, records);
    this.#factors = new RedisSecondFactors(storage, records);
  }

  /**
   * Opens the store: moves e-mail index entries of earlier versions to their canonical keys (once per key prefix,
   * bounded in time, never failing: see `migrateEmailIndex` in adapters/redis-email-migration.ts; `logger` gets its
   * warnings), then writes the seed accounts (idempotent: the same seed gives the same ids on every instance).
   */
  static async fromSeed(
    storage: RedisConnection,
    seed: readonly AccountSeed[],
    logger?: Logger,
  ): Promise<RedisAccountStore> {
    await migrateEmailIndex(storage, logger);
    const store = new RedisAccountStore(storage);
    for (const s of seed) {
      const account = accountFromSeed(s);
      await store.#write({ account, passwordHash: await seedPasswordHash(s) });
      await storage.run(() => storage.client.set(store.#emailKey(seedKey(account.email)), account.id));
    }
    return store;
  }

  #key(id: string): string {
    return `${this.#s.keyPrefix}Account:{${id}}`;
  }

  /** The e-mail index entry of `key`, a canonical address (or, for entries of earlier versions, a lower-cased one). */
  #emailKey(key: string): string {
    return `${this.#s.keyPrefix}AccountEmail:{${key}}`;
  }

  async #read(id: string | null | undefined): Promise<StoredAccount | undefined> {
    if (!id) return undefined;
    return RedisAccountStore.#parse(await this.#s.run(() => this.#s.client.get(this.#key(id))));
  }

  static #parse(raw: string | null | undefined): StoredAccount | undefined {
    if (!raw) return undefined;
    const stored = JSON.parse(raw) as StoredAccount;
    return { account: freezeAccount(stored.account), passwordHash: stored.passwordHash };
  }

  async #write(stored: StoredAccount): Promise<void> {
    await this.#s.run(() => this.#s.client.set(this.#key(stored.account.id), JSON.stringify(stored)));
  }

  /** The account the index entry of `key` names, whatever that account's address now is. */
  async #indexed(key: string): Promise<StoredAccount | undefined> {
    if (this.#s.isCluster) {
      // the e-mail index and the account live in different slots: two reads
      return this.#read(await this.#s.run(() => this.#s.client.get(this.#emailKey(key))));
    }
    // one round trip: the index and the account it names, read together by a script
    const raw = await this.#s.run(() =>
      this.#s.eval(ACCOUNT_BY_EMAIL, [this.#emailKey(key)], [`${this.#s.keyPrefix}Account:{`]),
    );
    return RedisAccountStore.#parse(raw as string | null);
  }

  /**
   * The account with the address `email`, by its canonical index entry, else by the entry an earlier version wrote
   * (the address lower-cased), which is then moved to the canonical key. An entry counts only when the account it
   * names still has that address (one left behind by an interrupted e-mail change does not).
   */
  async #byEmail(email: string): Promise<StoredAccount | undefined> {
    const key = canonicalEmail(email);
    const legacy = email.trim().toLowerCase();
    const current = key === undefined ? undefined : await this.#indexed(key);
    if (current && key === canonicalEmail(current.account.email)) return current;
    if (legacy === key) return undefined;
    const old = await this.#indexed(legacy);
    if (!old) return undefined;
    if (key === undefined) return old.account.email.toLowerCase() === legacy ? old : undefined;
    if (canonicalEmail(old.account.email) !== key) return undefined;
    if (await this.#claim(key, old.account.id)) await this.#s.run(() => this.#s.client.del(this.#emailKey(legacy)));
    return old;
  }

  /**
   * Claims the index entry of `key` for account `id`; true when it is now `id`'s. A free entry is taken with
   * `SET NX`; a held one only when stale (its account missing, or without this address), with a compare-and-set so
   * that of concurrent claims of one stale entry exactly one wins.
   */
  async #claim(key: string, id: string): Promise<boolean> {
    const entry = this.#emailKey(key);
    for (let attempt = 0; attempt < 3; attempt++) {
      if ((await this.#s.run(() => this.#s.client.set(entry, id, 'NX'))) === 'OK') return true;
      const holder = await this.#s.run(() => this.#s.client.get(entry));
      if (holder === id) return true;
      if (holder === null) continue;
      const held = await this.#read(holder);
      if (held && canonicalEmail(held.account.email) === key) return false;
      if ((await this.#s.run(() => this.#s.eval(REPLACE_IF_UNCHANGED, [entry], [holder, id]))) === 1) return true;
    }
    return false;
  }

  /** Whether the index entry of `key` is `id`'s (after a claim: another claim may have taken over meanwhile). */
  async #holds(key: string, id: string): Promise<boolean> {
    return (await this.#s.run(() => this.#s.client.get(this.#emailKey(key)))) === id;
  }

  async #update(id: string, change: (account: Account) => Account, passwordHash?: string): Promise<void> {
    const stored = await this.#read(id);
    if (!stored) return;
    await this.#write({
      account: freezeAccount(change(stored.account)),
      passwordHash: passwordHash ?? stored.passwordHash,
    });
  }

  async findById(id: string): Promise<Account | undefined> {
    return (await this.#read(id))?.account;
  }

  async findByEmail(email: string): Promise<Account | undefined> {
    return (await this.#byEmail(email))?.account;
  }

  async verifyPassword(email: string, password: string): Promise<Account | undefined> {
    return checkPassword(await this.#byEmail(email), password);
  }

  async create(input: NewAccount): Promise<Account | undefined> {
    const passwordHash = await hashPassword(input.password);
    const key = canonicalEmail(input.email);
    // An account of an earlier version indexed under this spelling (and not yet moved) holds the address too.
    if (key === undefined || (input.email.trim().toLowerCase() !== key && (await this.#byEmail(input.email))))
      return undefined;
    const account = newAccountRecord(input);
    // The record first (its id is new, nothing names it yet), so that an entry never names an account that was
    // not written; a sign-up cut off before the claim leaves only an unreachable record.
    await this.#write({ account, passwordHash });
    if (await this.#claim(key, account.id)) return account;
    await this.#s.run(() => this.#s.client.del(this.#key(account.id)));
    return undefined;
  }

  async setPassword(id: string, password: string): Promise<void> {
    const passwordHash = await hashPassword(password);
    await this.#update(id, (a) => ({ ...a, claims: { ...a.claims, updated_at: nowSeconds() } }), passwordHash);
  }

  async setEmail(id: string, email: string): Promise<boolean> {
    const stored = await this.#read(id);
    const key = canonicalEmail(email);
    if (!stored || key === undefined || !(await this.#claim(key, id))) return false;
    await this.#write({
      ...stored,
      account: freezeAccount({
        ...stored.account,
        email,
        emailVerified: true,
        claims: { ...stored.account.claims, updated_at: nowSeconds() },
      }),
    });
    // Until the write, our claim named an account without the address: a sign-up may have taken it over. Then it
    // is theirs, and the account keeps its old address (whose entry is still ours).
    if (!(await this.#holds(key, id))) {
      await this.#write(stored);
      return false;
    }
    const old = this.#emailKey(canonicalEmail(stored.account.email) ?? stored.account.email.toLowerCase());
    // Only our own entry: another account may hold the old address's canonical key (see #byEmail).
    if (old !== this.#emailKey(key) && (await this.#s.run(() => this.#s.client.get(old))) === id) {
      await this.#s.run(() => this.#s.client.del(old));
    }
    return true;
  }

  async markEmailVerified(id: string): Promise<void> {
    await this.#update(id, (a) => ({ ...a, emailVerified: true, claims: { ...a.claims, updated_at: nowSeconds() } }));
  }

  async listPasskeys(id: string): Promise<StoredPasskey[]> {
    return this.#passkeys.list(id);
  }

  async savePasskey(id: string, passkey: StoredPasskey): Promise<void> {
    return this.#passkeys.save(id, passkey);
  }

  async deletePasskey(id: string, credentialId: string): Promise<boolean> {
    return this.#passkeys.delete(id, credentialId);
  }

  async findAccountByPasskey(credentialId: string): Promise<Account | undefined> {
    return this.#passkeys.findAccount(credentialId);
  }

  async getSecondFactor(id: string): Promise<StoredSecondFactor | undefined> {
    return this.#factors.get(id);
  }

  async setSecondFactor(id: string, value: StoredSecondFactor | undefined): Promise<void> {
    return this.#factors.set(id, value);
  }

  async updateSecondFactor(id: string, change: SecondFactorChange): Promise<StoredSecondFactor | undefined> {
    return this.#factors.update(id, change);
  }
}
