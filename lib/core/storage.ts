import type { AccountSeed, AccountStore } from './account-store.js';
import type { LimiterBackend } from './limiter.js';
import type { Logger } from './logger.js';

/**
 * The storage contract of oidc-provider (its `adapter` option), shared by every Portcullis adapter.
 * `expiresIn` is in seconds: undefined means no expiry, 0 or less an entry already expired (upsert removes it, as
 * oidc-provider saves `exp - now` at the end of a lifetime), any larger number is kept. `revokeByGrantId` removes the
 * entries of {@link GRANT_LINKED_MODELS} that carry the
 * `grantId`, and nothing else: an Interaction or a Session may carry a `grantId` too, and must survive.
 * Portcullis' own models use the same contract, so every adapter serves them too: `VerificationToken` (e-mail
 * links, id = SHA-256 of the token; relies on the atomic `consume`), `AccountIndex` (id = account id; the
 * sessions and grants of an account, see `lib/accounts/account-sessions.ts`), `SessionDevice` (id = Session id;
 * the User-Agent and IP a session signed in with, expiring with it, see `lib/accounts/session-devices.ts`),
 * `RememberedConsent` (id = account and client) and `RememberedConsentIndex` (id = account id; the clients it
 * consented to), see `lib/oidc/consent-store.ts`.
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

/**
 * The value of an index member (`uid`, `userCode`, `grantId`) of a payload that the storages index: a non-empty
 * string, else `undefined` (a null, a number or an object stays data and is not looked up by).
 */
export function indexValue(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

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

/**
 * `adapter` with the methods of `overrides` in place of its own; every other method calls `adapter`'s (on
 * `adapter` itself, so a class adapter keeps its private state: spreading or `Object.create` would not).
 */
export function overriding(adapter: Adapter, overrides: Partial<Adapter>): Adapter {
  return {
    upsert: (id, payload, expiresIn) => adapter.upsert(id, payload, expiresIn),
    find: (id) => adapter.find(id),
    findByUid: (uid) => adapter.findByUid(uid),
    findByUserCode: (userCode) => adapter.findByUserCode(userCode),
    consume: (id) => adapter.consume(id),
    destroy: (id) => adapter.destroy(id),
    revokeByGrantId: (grantId) => adapter.revokeByGrantId(grantId),
    ...overrides,
  };
}

/**
 * `adapter` with `seen(entry, key)` called on every entry its reads (`find`, `findByUid`, `findByUserCode`)
 * return, `undefined` included, before the caller gets it; the other methods are passed through. A throw from
 * `seen` rejects the read with that error.
 */
export function watchReads(adapter: Adapter, seen: (entry: AdapterPayload | undefined, key: string) => void): Adapter {
  const after = (key: string) => (entry: AdapterPayload | undefined) => {
    seen(entry, key);
    return entry;
  };
  return overriding(adapter, {
    find: (id) => adapter.find(id).then(after(id)),
    findByUid: (uid) => adapter.findByUid(uid).then(after(uid)),
    findByUserCode: (userCode) => adapter.findByUserCode(userCode).then(after(userCode)),
  });
}

/**
 * A storage backend: the one contract every storage implements (memory and Redis here; a host's own passed as
 * `storage: { type: 'custom', instance }`). Besides oidc-provider's adapters it builds what must live where the
 * tokens live: the account store and the rate-limit counters, so that the server never asks which storage it has.
 */
export interface Storage {
  readonly adapter: AdapterFactory;
  /** Resolves when the backend can serve requests; rejects otherwise (`GET /readyz` answers 503). */
  ping(): Promise<void>;
  /** Releases what the storage opened (a client passed in stays open). */
  close(): Promise<void>;
  /**
   * Builds the account store kept in this storage and writes the seed accounts into it (idempotent: the same seed
   * gives the same ids on every instance). Called once at start-up unless the `accountStore` option is set, with the
   * server's `logger` for what opening the store has to report (a one-off migration, say).
   */
  accountStore(seed: readonly AccountSeed[], logger?: Logger): Promise<AccountStore>;
  /** The rate-limit backend whose counters live in this storage (shared by every instance when the storage is). */
  limiterBackend(): LimiterBackend;
  /**
   * Optional fast path of the account index (`AccountIndex`, see `lib/accounts/account-sessions.ts`): adds
   * `{ id, exp }` (exp in epoch seconds) to the `kind` list of `accountId` in one atomic step. Without it the
   * index is kept with adapter reads and writes.
   */
  addToAccountIndex?(accountId: string, kind: 'sessions' | 'grants', id: string, exp: number): Promise<void>;
}

/** The methods every {@link Storage} has (`adapter` included), checked when a host passes its own. */
export const STORAGE_METHODS = ['adapter', 'ping', 'close', 'accountStore', 'limiterBackend'] as const;
