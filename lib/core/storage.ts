/**
 * The storage contract of oidc-provider (its `adapter` option), shared by every Portcullis adapter.
 * `expiresIn` is in seconds. `revokeByGrantId` removes the entries of {@link GRANT_LINKED_MODELS} that carry the
 * `grantId`, and nothing else: an Interaction or a Session may carry a `grantId` too, and must survive.
 * Portcullis' own models use the same contract, so every adapter serves them too: `VerificationToken` (e-mail
 * links, id = SHA-256 of the token; relies on the atomic `consume`), `AccountIndex` (id = account id; the
 * sessions and grants of an account, see `lib/accounts/account-sessions.ts`).
 */
/**
 * The models `revokeByGrantId` removes: the tokens and codes issued from a Grant. This is the `grantable` set of
 * oidc-provider's own adapter (`lib/adapters/memory_adapter.js`). An Interaction also carries the `grantId` of the
 * client's current grant; when a user signs in as another account in the same browser (`prompt=login`),
 * oidc-provider revokes the previous account's grants (`end_session`) and then resumes that very Interaction, so
 * revoking it too would end the sign-in with "interaction session not found".
 */
export const GRANT_LINKED_MODELS: ReadonlySet<string> = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'PreAuthorizedCode',
]);

export interface AdapterPayload {
  [key: string]: unknown;
  jti?: string;
  uid?: string;
  userCode?: string;
  grantId?: string;
  /** Epoch seconds at which the entry was consumed. */
  consumed?: number;
}

export interface Adapter {
  upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void>;
  find(id: string): Promise<AdapterPayload | undefined>;
  findByUid(uid: string): Promise<AdapterPayload | undefined>;
  findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
  /**
   * Marks the entry consumed. Must be an atomic check-and-set: when the entry is missing or already consumed it
   * throws (oidc-provider does not look at the result, so throwing is the only way to fail the loser of a race).
   */
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

/** What oidc-provider's `adapter` option accepts: a factory called once per model name. */
export type AdapterFactory = (modelName: string) => Adapter;

/** A storage backend: builds adapters per model and can be closed. */
export interface Storage {
  readonly adapter: AdapterFactory;
  /** Resolves when the backend can serve requests; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
