import { createHash } from 'node:crypto';
import type { SeedAccount } from '../config/types.js';
import type { Account, AccountStore } from './account-store.js';
import { burnPasswordCheck, hashPassword, verifyPassword } from './password.js';

interface StoredAccount { account: Account; passwordHash: string }

/** Claims that are computed from the account itself, never taken from seed `claims`. */
const RESERVED_CLAIMS = new Set(['sub', 'email', 'email_verified']);

function subjectFor(email: string): string {
  return createHash('sha256').update(`portcullis:${email.toLowerCase()}`).digest('base64url').slice(0, 22);
}

/** In-memory {@link AccountStore}, seeded from `config.accounts`. Passwords are kept only as scrypt hashes. */
export class MemoryAccountStore implements AccountStore {
  readonly #byId = new Map<string, StoredAccount>();
  readonly #byEmail = new Map<string, StoredAccount>();

  /** Builds a store from seed accounts; hashes every password (async). */
  static async fromSeed(seed: readonly SeedAccount[]): Promise<MemoryAccountStore> {
    const store = new MemoryAccountStore();
    for (const s of seed) await store.add(s);
    return store;
  }

  /** Adds an account; the clear-text password is hashed and dropped. */
  async add(seed: SeedAccount): Promise<Account> {
    const claims = Object.fromEntries(Object.entries(seed.claims ?? {}).filter(([k]) => !RESERVED_CLAIMS.has(k)));
    const account: Account = Object.freeze({
      id: seed.id ?? subjectFor(seed.email),
      email: seed.email,
      emailVerified: seed.email_verified ?? false,
      roles: Object.freeze([...(seed.roles ?? [])]),
      claims: Object.freeze(claims),
    });
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
    const stored = this.#byEmail.get(email.toLowerCase());
    if (!stored) {
      await burnPasswordCheck(password);
      return undefined;
    }
    return (await verifyPassword(password, stored.passwordHash)) ? stored.account : undefined;
  }
}
