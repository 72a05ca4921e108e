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
 * storage's {@link Storage.accountStore} writes these at start-up, with exactly one of `password` (hashed then,
 * scrypt) or `passwordHash` (stored as given).
 */
export interface AccountSeed {
  /** Subject; without it, one derived from the e-mail address (stable across instances). */
  id?: string;
  email: string;
  /** Clear text; hashed at start-up, never stored. Exactly one of `password` and `passwordHash`. */
  password?: string;
  /**
   * A hash made by `hashPassword` (or `npx portcullis hash-password`): `scrypt$N$r$p$salt$key`
   * (lib/core/password-hash.ts), stored as it is, so no clear-text password sits in the configuration.
   */
  passwordHash?: string;
  email_verified?: boolean;
  roles?: readonly string[];
  /** OpenID Connect Core §5.1 claims; `sub`, `email` and `email_verified` are ignored here. */
  claims?: Readonly<Record<string, unknown>>;
}

/**
 * The second factors of an account other than passkeys: a TOTP secret (RFC 6238) and single-use recovery codes.
 * Read whole by {@link AccountStore.getSecondFactor}, replaced whole by {@link AccountStore.setSecondFactor} and
 * changed in place by {@link AccountStore.updateSecondFactor}; a store keeps it as an opaque JSON value beside the
 * account.
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
 * Addresses: key accounts by `canonicalEmail(address)` (exported; for a plain ASCII address it is the address
 * lower-cased), so that every spelling of one mailbox (`bob@bücher.example`, `BOB@xn--bcher-kva.example.`) finds
 * the same account and none of them can create a second one. Keep `email` as it was given to `create`/`setEmail`
 * (the address as typed, trimmed and NFC: shown, mailed and released as the `email` claim). Portcullis refuses
 * addresses that `canonicalEmail` does not accept before it creates or changes an account; at login a store may
 * still be asked about any text typed into the form, and should find nothing for one without a canonical form.
 *
 * @example
 * ```ts
 * const accountStore: AccountStore = {
 *   findById: (id) => db.users.byId(id).then(toAccount),
 *   findByEmail: (email) => db.users.byEmailKey(canonicalEmail(email)).then(toAccount),
 *   async verifyPassword(email, password) {
 *     const user = await db.users.byEmailKey(canonicalEmail(email));
 *     return user && (await argon2.verify(user.hash, password)) ? toAccount(user) : undefined;
 *   },
 *   async create({ email, password, claims }) {
 *     const emailKey = canonicalEmail(email); // a unique column
 *     if (await db.users.byEmailKey(emailKey)) return undefined;
 *     const hash = await argon2.hash(password);
 *     return toAccount(await db.users.insert({ email, emailKey, hash, claims, verified: false }));
 *   },
 *   setPassword: (id, password) => argon2.hash(password).then((hash) => db.users.update(id, { hash })),
 *   setEmail: (id, email) =>
 *     db.users.update(id, { email, emailKey: canonicalEmail(email), verified: true }).then(() => true),
 *   markEmailVerified: (id) => db.users.update(id, { verified: true }),
 * };
 * ```
 */
export interface AccountStore {
  findById(id: string): Promise<Account | undefined>;
  /** The account whose address has the same `canonicalEmail` as `email`; `undefined` when none has. */
  findByEmail(email: string): Promise<Account | undefined>;
  /**
   * Returns the account when `password` is right, `undefined` otherwise (unknown e-mail included). Should take
   * the same time either way.
   */
  verifyPassword(email: string, password: string): Promise<Account | undefined>;
  /**
   * Creates an unverified account (`emailVerified: false`) and returns it, or `undefined` when an account with
   * the same `canonicalEmail` exists (or `input.email` has none). Should hash the password either way, so both
   * answers take the same time.
   */
  create(input: NewAccount): Promise<Account | undefined>;
  /** Replaces the password (clear text in, hash stored) and sets `claims.updated_at`. Unknown ids are ignored. */
  setPassword(id: string, password: string): Promise<void>;
  /**
   * Changes the e-mail address to one the user has just proven (`emailVerified` becomes true) and sets
   * `claims.updated_at`. Returns false when another account holds the address (the same `canonicalEmail`).
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
  /**
   * Changes the account's second factors atomically (a spent recovery code, the last used TOTP step, new recovery
   * codes): `change` gets what is stored (a copy, `undefined` when none) and returns what to store instead
   * (`undefined` removes them), or the value it got, unchanged, to write nothing. `change` is synchronous, has no
   * side effects and does not modify its argument, because the store must apply its answer only if nothing wrote
   * the account's second factors since it read the value it passed, and otherwise call `change` again with the
   * new value: a compare-and-set on the stored JSON or a version column, a row lock (`SELECT … FOR UPDATE`),
   * Redis `WATCH`/`MULTI` or a script. A plain read followed by a write is not enough: two sign-ins with two
   * recovery codes would each write back the other's code unused, and a sign-in could undo a removal.
   *
   * Optional, so that a store written before it keeps working: without it, every write of an account's second
   * factors (`setSecondFactor`, and `getSecondFactor` then `setSecondFactor` for a change) waits for a lock of that
   * account in the rate-limit backend (`Storage.limiterBackend`, shared by every instance on Redis), held at most
   * 10 s and waited for at most 3 s (then `StorageUnavailableError`, 503): slower, and sound only while every
   * instance shares that backend and no write takes longer. docs/guides/second-factors-and-passkeys.md ("Your own
   * account store", under two-step verification) shows one with a version column.
   * @returns what is stored once it returns; `undefined` for an unknown id (nothing is written).
   * @throws `StorageUnavailableError` (503) when the value kept changing under it (the Redis store reads again up
   *   to 50 times) or the storage is unavailable.
   */
  updateSecondFactor?(
    id: string,
    change: (current: StoredSecondFactor | undefined) => StoredSecondFactor | undefined,
  ): Promise<StoredSecondFactor | undefined>;

  // Passkeys (WebAuthn Level 3 §4 "credential record"). Optional in the type so a host store written before them
  // keeps compiling; both shipped stores implement them, and `passkeys.enabled` refuses a store without them
  // (ConfigError naming the method, see PASSKEY_STORE_METHODS).
  /** The account's passkeys, oldest `createdAt` first; `[]` for an unknown id. */
  listPasskeys?(id: string): Promise<StoredPasskey[]>;
  /**
   * Inserts the passkey, or replaces the account's passkey with the same `credentialId` (counter, name, last use).
   * @throws Error when another account holds that `credentialId` (WebAuthn §7.1 step 26: a credential id is
   *   registered to one user only); the caller checks with {@link findAccountByPasskey} first.
   */
  savePasskey?(id: string, passkey: StoredPasskey): Promise<void>;
  /** Removes the account's passkey; false when the account has no passkey with that id. */
  deletePasskey?(id: string, credentialId: string): Promise<boolean>;
  /** The account holding a passkey (discoverable sign-in finds the user from the credential). */
  findAccountByPasskey?(credentialId: string): Promise<Account | undefined>;
}

/**
 * A registered passkey: what a relying party keeps of a WebAuthn credential (WebAuthn Level 3 §4 "credential
 * record"). JSON-serialisable.
 */
export interface StoredPasskey {
  /** Credential id, base64url (at most 1023 bytes before encoding, WebAuthn §5.1). */
  credentialId: string;
  /** The credential public key as COSE_Key (RFC 9052 §7), base64url. */
  publicKey: string;
  /** Signature counter last seen (WebAuthn §6.1.1); 0 for authenticators without one. */
  counter: number;
  /** Transport hints reported at registration (`internal`, `hybrid`, `usb`, `nfc`, `ble`). */
  transports?: string[];
  /** The user's label for it. */
  name: string;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Epoch milliseconds of the last sign-in with it. */
  lastUsedAt?: number;
  /** Backup state flag (BS, WebAuthn §6.1): the private key is synced to other devices. */
  backedUp?: boolean;
  /** `multiDevice` when the credential is backup eligible (BE flag): a synced passkey. */
  deviceType?: 'singleDevice' | 'multiDevice';
}

/**
 * The second-factor methods of {@link AccountStore}, checked when `mfa` is on ({@link AccountStore.updateSecondFactor}
 * is used when present, see there).
 */
export const SECOND_FACTOR_METHODS = ['getSecondFactor', 'setSecondFactor'] as const;

/** The names of the {@link AccountStore} methods, checked when the server is built. */
export const ACCOUNT_STORE_METHODS = [
  'findById',
  'findByEmail',
  'verifyPassword',
  'create',
  'setPassword',
  'setEmail',
  'markEmailVerified',
] as const;

/** The {@link AccountStore} methods passkeys need, checked when `passkeys.enabled` is on. */
export const PASSKEY_STORE_METHODS = ['listPasskeys', 'savePasskey', 'deletePasskey', 'findAccountByPasskey'] as const;

/** An {@link AccountStore} with the passkey methods. */
export type PasskeyAccountStore = AccountStore & Required<Pick<AccountStore, (typeof PASSKEY_STORE_METHODS)[number]>>;

/** Whether `store` implements every method of {@link PASSKEY_STORE_METHODS}. */
export function hasPasskeyMethods(store: AccountStore): store is PasskeyAccountStore {
  return PASSKEY_STORE_METHODS.every((m) => typeof store[m] === 'function');
}
