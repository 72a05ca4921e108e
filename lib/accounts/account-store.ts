/**
 * An end-user account as Portcullis sees it. `claims` holds OpenID Connect Core §5.1 standard claims
 * (`given_name`, `family_name`, `birthdate`, `address`, `phone_number`, …); `email` and `email_verified` are
 * taken from the top-level members.
 */
export interface Account {
  /** Subject identifier (`sub`): stable, never reassigned, not the e-mail address. */
  id: string;
  email: string;
  emailVerified: boolean;
  roles: readonly string[];
  claims: Readonly<Record<string, unknown>>;
}

/**
 * Where accounts live. Portcullis ships an in-memory implementation; a host plugs in its own user database by
 * implementing these three methods and passing the object as `accountStore`.
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
}
