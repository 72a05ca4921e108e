/**
 * An end-user account as Portcullis sees it. `claims` holds OpenID Connect Core §5.1 standard claims
 * (`given_name`, `family_name`, `birthdate`, `address`, `phone_number`, `updated_at`, …); `email` and
 * `email_verified` are taken from the top-level members. Every member is JSON-serialisable, so a store may keep
 * accounts in Redis or a database as they are.
 */
export interface Account {
  /** Subject identifier (`sub`): stable, never reassigned, not the e-mail address. */
  id: string;
  email: string;
  emailVerified: boolean;
  roles: readonly string[];
  claims: Readonly<Record<string, unknown>>;
}

/** What {@link AccountStore.create} receives at sign-up. The password is in clear: the store hashes it. */
export interface NewAccount {
  email: string;
  /** Clear text, 12–256 characters by default; hash it (scrypt or argon2id) and never store or log it. */
  password: string;
  /** OpenID Connect Core §5.1 claims, e.g. `given_name`, `family_name`, `name`, `updated_at` (epoch seconds). */
  claims: Record<string, unknown>;
}

/**
 * A seed account, as the `accounts` option holds it (the option schema, `config/options.ts`, validates it): a
 * storage's {@link Storage.accountStore} writes these at start-up, hashing each password (scrypt).
 */
export interface AccountSeed {
  /** Subject; without it, one derived from the e-mail address (stable across instances). */
  id?: string;
  email: string;
  /** Clear text; hashed at start-up, never stored. */
  password: string;
  email_verified?: boolean;
  roles?: readonly string[];
  /** OpenID Connect Core §5.1 claims; `sub`, `email` and `email_verified` are ignored here. */
  claims?: Readonly<Record<string, unknown>>;
}

/**
 * The second factors of an account other than passkeys: a TOTP secret (RFC 6238) and single-use recovery codes.
 * Written and read whole by {@link AccountStore.getSecondFactor} / {@link AccountStore.setSecondFactor}; a store
 * keeps it as an opaque JSON value beside the account.
 */
export interface StoredSecondFactor {
  totp?: {
    /** The TOTP secret, encrypted with `mfa.encryptionKey` (AES-256-GCM), base64url. Never stored in clear. */
    secret: string;
    /** When it was enrolled, epoch milliseconds. */
    createdAt: number;
    /** The last accepted time step (`floor(epoch seconds / 30)`): a code of this step or an earlier one is refused. */
    lastUsedStep?: number;
  };
  /** Recovery codes as SHA-256 hashes (base64url); each works once (`usedAt`, epoch milliseconds). */
  recoveryCodes?: Array<{ hash: string; usedAt?: number }>;
}

/**
 * Where accounts live. Portcullis ships an in-memory implementation; a host plugs in its own user database by
 * implementing these methods and passing the object as `accountStore`. Every method is async. The first three
 * are used at login; the others by sign-up, e-mail verification and password reset.
 *
 * @example
 * ```ts
 * const accountStore: AccountStore = {
 *   findById: (id) => db.users.byId(id).then(toAccount),
 *   findByEmail: (email) => db.users.byEmail(email).then(toAccount),
 *   async verifyPassword(email, password) {
 *     const user = await db.users.byEmail(email);
 *     return user && (await argon2.verify(user.hash, password)) ? toAccount(user) : undefined;
 *   },
 *   async create({ email, password, claims }) {
 *     if (await db.users.byEmail(email)) return undefined;
 *     return toAccount(await db.users.insert({ email, hash: await argon2.hash(password), claims, verified: false }));
 *   },
 *   setPassword: (id, password) => argon2.hash(password).then((hash) => db.users.update(id, { hash })),
 *   setEmail: (id, email) => db.users.update(id, { email, verified: true }).then(() => true),
 *   markEmailVerified: (id) => db.users.update(id, { verified: true }),
 * };
 * ```
 */
export interface AccountStore {
  findById(id: string): Promise<Account | undefined>;
  /** Case-insensitive lookup. */
  findByEmail(email: string): Promise<Account | undefined>;
  /**
   * Returns the account when `password` is right, `undefined` otherwise (unknown e-mail included). Should take
   * the same time either way.
   */
  verifyPassword(email: string, password: string): Promise<Account | undefined>;
  /**
   * Creates an unverified account (`emailVerified: false`) and returns it, or `undefined` when the e-mail
   * address (case-insensitive) is already taken. Should hash the password either way, so both answers take
   * the same time.
   */
  create(input: NewAccount): Promise<Account | undefined>;
  /** Replaces the password (clear text in, hash stored) and sets `claims.updated_at`. Unknown ids are ignored. */
  setPassword(id: string, password: string): Promise<void>;
  /**
   * Changes the e-mail address to one the user has just proven (`emailVerified` becomes true) and sets
   * `claims.updated_at`. Returns false when another account holds the address.
   */
  setEmail(id: string, email: string): Promise<boolean>;
  /** Sets `emailVerified: true` (OIDC Core §5.1 `email_verified`) and `claims.updated_at`. */
  markEmailVerified(id: string): Promise<void>;
  /**
   * The account's TOTP secret and recovery codes, or `undefined` when none are enrolled. Needed when `mfa` is on
   * (the default); a store without it gets a `ConfigError` naming the method at start-up.
   */
  getSecondFactor?(id: string): Promise<StoredSecondFactor | undefined>;
  /** Replaces the account's second factors; `undefined` removes them. Unknown ids are ignored. */
  setSecondFactor?(id: string, value: StoredSecondFactor | undefined): Promise<void>;
}

/** The second-factor methods of {@link AccountStore}, checked when `mfa` is on. */
export const SECOND_FACTOR_METHODS = ['getSecondFactor', 'setSecondFactor'] as const;

/** The names of the {@link AccountStore} methods, checked when the server is built. */
export const ACCOUNT_STORE_METHODS = ['findById', 'findByEmail', 'verifyPassword', 'create', 'setPassword', 'setEmail', 'markEmailVerified'] as const;
