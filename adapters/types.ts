/**
 * The storage contract of oidc-provider (its `adapter` option), shared by every Portcullis adapter.
 * `expiresIn` is in seconds. Models linked to a grant carry `grantId`; `revokeByGrantId` removes all of them.
 * Portcullis' own models use the same contract, so every adapter serves them too: `VerificationToken` (e-mail
 * links, id = SHA-256 of the token; relies on the atomic `consume`), `AccountIndex` (id = account id; the
 * sessions and grants of an account, see `lib/accounts/account-sessions.ts`).
 */
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
