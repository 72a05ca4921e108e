import type { Account, AccountSeed, AccountStore, NewAccount, StoredSecondFactor } from '../lib/core/account-store.js';
import { accountFromSeed, checkPassword, freezeAccount, newAccountRecord, nowSeconds } from './account-records.js';
import { hashPassword } from './password.js';
import type { RedisConnection } from './redis-connection.js';

interface StoredAccount { account: Account; passwordHash: string }

/** The account named by an e-mail index key (KEYS[1]); ARGV[1] is the account key prefix up to the brace. */
const ACCOUNT_BY_EMAIL = `
local id = redis.call('GET', KEYS[1])
if not id then return nil end
return redis.call('GET', ARGV[1] .. id .. '}')`;

/**
 * {@link AccountStore} in Redis, next to the provider's data, so that every instance sees the same accounts,
 * sign-ups and password changes. Keys: `<prefix>Account:{<id>}` (JSON of the account and its scrypt hash) and
 * `<prefix>AccountEmail:{<lower-cased e-mail>}` (the id), `<prefix>AccountMfa:{<id>}` (JSON of the second factors). An address is claimed with `SET NX`, so two concurrent
 * sign-ups for one address across instances cannot both win. No key expires.
 */
export class RedisAccountStore implements AccountStore {
  readonly #s: RedisConnection;

  constructor(storage: RedisConnection) {
    this.#s = storage;
  }

  /** Writes the seed accounts (idempotent: the same seed gives the same ids on every instance). */
  static async fromSeed(storage: RedisConnection, seed: readonly AccountSeed[]): Promise<RedisAccountStore> {
    const store = new RedisAccountStore(storage);
    for (const s of seed) {
      const account = accountFromSeed(s);
      await store.#write({ account, passwordHash: await hashPassword(s.password) });
      await storage.run(() => storage.client.set(store.#emailKey(account.email), account.id));
    }
    return store;
  }

  #key(id: string): string {
    return `${this.#s.keyPrefix}Account:{${id}}`;
  }

  #emailKey(email: string): string {
    return `${this.#s.keyPrefix}AccountEmail:{${email.toLowerCase()}}`;
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

  async #byEmail(email: string): Promise<StoredAccount | undefined> {
    let stored: StoredAccount | undefined;
    if (this.#s.isCluster) {
      // the e-mail index and the account live in different slots: two reads
      stored = await this.#read(await this.#s.run(() => this.#s.client.get(this.#emailKey(email))));
    } else {
      // one round trip: the index and the account it names, read together by a script
      const raw = await this.#s.run(() => this.#s.eval(ACCOUNT_BY_EMAIL, [this.#emailKey(email)], [`${this.#s.keyPrefix}Account:{`]));
      stored = RedisAccountStore.#parse(raw as string | null);
    }
    // An index left behind by an interrupted e-mail change does not count.
    return stored && stored.account.email.toLowerCase() === email.toLowerCase() ? stored : undefined;
  }

  async #update(id: string, change: (account: Account) => Account, passwordHash?: string): Promise<void> {
    const stored = await this.#read(id);
    if (!stored) return;
    await this.#write({ account: freezeAccount(change(stored.account)), passwordHash: passwordHash ?? stored.passwordHash });
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
    const account = newAccountRecord(input);
    const claimed = await this.#s.run(() => this.#s.client.set(this.#emailKey(input.email), account.id, 'NX'));
    if (claimed !== 'OK') return undefined;
    await this.#write({ account, passwordHash });
    return account;
  }

  async setPassword(id: string, password: string): Promise<void> {
    const passwordHash = await hashPassword(password);
    await this.#update(id, (a) => ({ ...a, claims: { ...a.claims, updated_at: nowSeconds() } }), passwordHash);
  }

  async setEmail(id: string, email: string): Promise<boolean> {
    const stored = await this.#read(id);
    if (!stored) return false;
    const key = this.#emailKey(email);
    const claimed = await this.#s.run(() => this.#s.client.set(key, id, 'NX'));
    if (claimed !== 'OK') {
      const holder = await this.#s.run(() => this.#s.client.get(key));
      if (holder !== id) return false;
    }
    await this.#write({ ...stored, account: freezeAccount({ ...stored.account, email, emailVerified: true, claims: { ...stored.account.claims, updated_at: nowSeconds() } }) });
    if (stored.account.email.toLowerCase() !== email.toLowerCase()) {
      await this.#s.run(() => this.#s.client.del(this.#emailKey(stored.account.email)));
    }
    return true;
  }

  async markEmailVerified(id: string): Promise<void> {
    await this.#update(id, (a) => ({ ...a, emailVerified: true, claims: { ...a.claims, updated_at: nowSeconds() } }));
  }

  #factorKey(id: string): string {
    return `${this.#s.keyPrefix}AccountMfa:{${id}}`;
  }

  async getSecondFactor(id: string): Promise<StoredSecondFactor | undefined> {
    const raw = await this.#s.run(() => this.#s.client.get(this.#factorKey(id)));
    return raw ? JSON.parse(raw) as StoredSecondFactor : undefined;
  }

  async setSecondFactor(id: string, value: StoredSecondFactor | undefined): Promise<void> {
    if (!value) {
      await this.#s.run(() => this.#s.client.del(this.#factorKey(id)));
      return;
    }
    if (!(await this.#read(id))) return;
    await this.#s.run(() => this.#s.client.set(this.#factorKey(id), JSON.stringify(value)));
  }
}
