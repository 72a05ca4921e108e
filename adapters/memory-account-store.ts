import type {
  Account,
  AccountSeed,
  AccountStore,
  NewAccount,
  StoredPasskey,
  StoredSecondFactor,
} from '../lib/core/account-store.js';
import { PortcullisError } from '../lib/core/errors.js';
import { canonicalEmail } from '../lib/core/email-address.js';
import { hashPassword, seedPasswordHash } from './password.js';
import {
  accountFromSeed,
  checkPassword,
  freezeAccount as freeze,
  newAccountRecord,
  nowSeconds as now,
  seedKey,
} from './account-records.js';

interface StoredAccount {
  account: Account;
  passwordHash: string;
}

/**
 * In-memory {@link AccountStore}, seeded from `config.accounts`. Passwords are kept only as scrypt hashes. Accounts
 * are indexed by the canonical form of their address (`canonicalEmail`); an address that has none finds nothing.
 */
export class MemoryAccountStore implements AccountStore {
  readonly #byId = new Map<string, StoredAccount>();
  /** Canonical address → account. */
  readonly #byEmail = new Map<string, StoredAccount>();
  /** Passkeys per account id, keyed by credential id. */
  readonly #passkeys = new Map<string, Map<string, StoredPasskey>>();
  /** Credential id → account id. */
  readonly #passkeyOwner = new Map<string, string>();
  readonly #factors = new Map<string, string>();

  /** Builds a store from seed accounts; hashes every password (async). */
  static async fromSeed(seed: readonly AccountSeed[]): Promise<MemoryAccountStore> {
    const store = new MemoryAccountStore();
    for (const s of seed) await store.add(s);
    return store;
  }

  /** Adds an account; the clear-text password is hashed and dropped. */
  async add(seed: AccountSeed): Promise<Account> {
    const account = accountFromSeed(seed);
    const stored = { account, passwordHash: await seedPasswordHash(seed) };
    this.#byId.set(account.id, stored);
    this.#byEmail.set(seedKey(account.email), stored);
    return account;
  }

  #find(email: string): StoredAccount | undefined {
    const key = canonicalEmail(email);
    return key === undefined ? undefined : this.#byEmail.get(key);
  }

  async findById(id: string): Promise<Account | undefined> {
    return this.#byId.get(id)?.account;
  }

  async findByEmail(email: string): Promise<Account | undefined> {
    return this.#find(email)?.account;
  }

  async verifyPassword(email: string, password: string): Promise<Account | undefined> {
    return checkPassword(this.#find(email), password);
  }

  async create(input: NewAccount): Promise<Account | undefined> {
    // Hash first, whatever the outcome: a taken address must cost the same time as a new one.
    const passwordHash = await hashPassword(input.password);
    const key = canonicalEmail(input.email);
    if (key === undefined || this.#byEmail.has(key)) return undefined;
    const account = newAccountRecord(input);
    const stored = { account, passwordHash };
    this.#byId.set(account.id, stored);
    this.#byEmail.set(key, stored);
    return account;
  }

  async setPassword(id: string, password: string): Promise<void> {
    const passwordHash = await hashPassword(password);
    const stored = this.#byId.get(id);
    if (!stored) return;
    stored.passwordHash = passwordHash;
    stored.account = freeze({ ...stored.account, claims: { ...stored.account.claims, updated_at: now() } });
  }

  async setEmail(id: string, email: string): Promise<boolean> {
    const stored = this.#byId.get(id);
    const key = canonicalEmail(email);
    if (!stored || key === undefined) return false;
    const holder = this.#byEmail.get(key);
    if (holder && holder !== stored) return false;
    const old = canonicalEmail(stored.account.email);
    if (old !== undefined) this.#byEmail.delete(old);
    stored.account = freeze({
      ...stored.account,
      email,
      emailVerified: true,
      claims: { ...stored.account.claims, updated_at: now() },
    });
    this.#byEmail.set(key, stored);
    return true;
  }

  async markEmailVerified(id: string): Promise<void> {
    const stored = this.#byId.get(id);
    if (!stored) return;
    stored.account = freeze({
      ...stored.account,
      emailVerified: true,
      claims: { ...stored.account.claims, updated_at: now() },
    });
  }

  async listPasskeys(id: string): Promise<StoredPasskey[]> {
    return [...(this.#passkeys.get(id)?.values() ?? [])]
      .map((p) => structuredClone(p))
      .sort((a, b) => a.createdAt - b.createdAt);
  }

  async savePasskey(id: string, passkey: StoredPasskey): Promise<void> {
    const owner = this.#passkeyOwner.get(passkey.credentialId);
    if (owner !== undefined && owner !== id)
      throw new PortcullisError('ERR_CREDENTIAL_TAKEN', 'this credential id is registered to another account', {
        status: 409,
      });
    let mine = this.#passkeys.get(id);
    if (!mine) this.#passkeys.set(id, (mine = new Map()));
    mine.set(passkey.credentialId, structuredClone(passkey));
    this.#passkeyOwner.set(passkey.credentialId, id);
  }

  async deletePasskey(id: string, credentialId: string): Promise<boolean> {
    const removed = this.#passkeys.get(id)?.delete(credentialId) ?? false;
    if (removed) this.#passkeyOwner.delete(credentialId);
    return removed;
  }

  async findAccountByPasskey(credentialId: string): Promise<Account | undefined> {
    const owner = this.#passkeyOwner.get(credentialId);
    return owner === undefined ? undefined : this.#byId.get(owner)?.account;
  }

  async getSecondFactor(id: string): Promise<StoredSecondFactor | undefined> {
    const raw = this.#factors.get(id);
    // A copy every time: callers change what they read before writing it back.
    return raw ? (JSON.parse(raw) as StoredSecondFactor) : undefined;
  }

  async setSecondFactor(id: string, value: StoredSecondFactor | undefined): Promise<void> {
    if (!this.#byId.has(id)) return;
    if (value) this.#factors.set(id, JSON.stringify(value));
    else this.#factors.delete(id);
  }

  /** Atomic as it is: the read, `change` (synchronous) and the write run without giving way to another call. */
  async updateSecondFactor(
    id: string,
    change: (current: StoredSecondFactor | undefined) => StoredSecondFactor | undefined,
  ): Promise<StoredSecondFactor | undefined> {
    if (!this.#byId.has(id)) return undefined;
    const raw = this.#factors.get(id);
    const current = raw ? (JSON.parse(raw) as StoredSecondFactor) : undefined;
    const next = change(current);
    if (next === current) return current;
    if (next) this.#factors.set(id, JSON.stringify(next));
    else this.#factors.delete(id);
    return next;
  }
}
