import type { Account, AccountSeed, AccountStore, NewAccount, StoredSecondFactor } from '../lib/core/account-store.js';
import { hashPassword } from './password.js';
import { accountFromSeed, checkPassword, freezeAccount as freeze, newAccountRecord, nowSeconds as now } from './account-records.js';

interface StoredAccount { account: Account; passwordHash: string }

/** In-memory {@link AccountStore}, seeded from `config.accounts`. Passwords are kept only as scrypt hashes. */
export class MemoryAccountStore implements AccountStore {
  readonly #byId = new Map<string, StoredAccount>();
  readonly #byEmail = new Map<string, StoredAccount>();
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
    const stored = { account, passwordHash: await hashPassword(seed.password) };
    this.#byId.set(account.id, stored);
    this.#byEmail.set(account.email.toLowerCase(), stored);
    return account;
  }

  async findById(id: string): Promise<Account | undefined> {
    return this.#byId.get(id)?.account;
  }

  async findByEmail(email: string): Promise<Account | undefined> {
    return this.#byEmail.get(email.toLowerCase())?.account;
  }

  async verifyPassword(email: string, password: string): Promise<Account | undefined> {
    return checkPassword(this.#byEmail.get(email.toLowerCase()), password);
  }

  async create(input: NewAccount): Promise<Account | undefined> {
    // Hash first, whatever the outcome: a taken address must cost the same time as a new one.
    const passwordHash = await hashPassword(input.password);
    if (this.#byEmail.has(input.email.toLowerCase())) return undefined;
    const account = newAccountRecord(input);
    const stored = { account, passwordHash };
    this.#byId.set(account.id, stored);
    this.#byEmail.set(account.email.toLowerCase(), stored);
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
    if (!stored) return false;
    const holder = this.#byEmail.get(email.toLowerCase());
    if (holder && holder !== stored) return false;
    this.#byEmail.delete(stored.account.email.toLowerCase());
    stored.account = freeze({ ...stored.account, email, emailVerified: true, claims: { ...stored.account.claims, updated_at: now() } });
    this.#byEmail.set(email.toLowerCase(), stored);
    return true;
  }

  async markEmailVerified(id: string): Promise<void> {
    const stored = this.#byId.get(id);
    if (!stored) return;
    stored.account = freeze({ ...stored.account, emailVerified: true, claims: { ...stored.account.claims, updated_at: now() } });
  }

  async getSecondFactor(id: string): Promise<StoredSecondFactor | undefined> {
    const raw = this.#factors.get(id);
    // A copy every time: callers change what they read before writing it back.
    return raw ? JSON.parse(raw) as StoredSecondFactor : undefined;
  }

  async setSecondFactor(id: string, value: StoredSecondFactor | undefined): Promise<void> {
    if (!this.#byId.has(id)) return;
    if (value) this.#factors.set(id, JSON.stringify(value));
    else this.#factors.delete(id);
  }
}
