import type Provider from 'oidc-provider';
import { GRANT_LINKED_MODELS, overriding, type Adapter, type AdapterFactory } from '../core/storage.js';
import type { Logger } from '../core/logger.js';

interface IndexEntry {
  id: string;
  exp: number /* epoch seconds */;
}
interface IndexPayload {
  [key: string]: unknown;
  sessions: IndexEntry[];
  grants: IndexEntry[];
}

/** A storage's one-step write of one index entry (`exp` in epoch seconds), e.g. `RedisStorage.addToAccountIndex`. */
export type AtomicIndexAdd = (accountId: string, kind: 'sessions' | 'grants', id: string, exp: number) => Promise<void>;

/** Expiry of an index entry whose session or grant carries none: 30 days from now, epoch seconds. */
const defaultExp = () => Math.floor(Date.now() / 1000) + 30 * 24 * 3600;

/**
 * A per-account index of oidc-provider sessions and grants, so that a password reset or an e-mail change can end
 * every session of the account and revoke its grants with their tokens (OIDC Core §2: the tokens stand for an
 * authentication the user no longer trusts). oidc-provider's adapter contract has no lookup by account, so the
 * index is kept by our own code, from the provider's `session.saved` and `grant.saved` events, in the storage
 * model `AccountIndex` (id = account id; payload `{ sessions: [{id, exp}], grants: [{id, exp}] }`, JSON). Any
 * adapter implementing the storage contract (memory now, Redis later) therefore works unchanged.
 */
export class AccountSessions {
  readonly #index: Adapter;
  readonly #adapter: AdapterFactory;
  #queue: Promise<unknown> = Promise.resolve();

  readonly #atomicAdd: AtomicIndexAdd | undefined;

  /**
   * @param atomicAdd the storage's own one-step index write (Redis: one script, one round trip), used instead of
   *   the adapter's find-then-upsert when given; it must store what {@link AccountSessions} would.
   */
  constructor(
    adapter: AdapterFactory,
    private readonly logger: Logger,
    atomicAdd?: AtomicIndexAdd,
  ) {
    this.#adapter = adapter;
    this.#index = adapter('AccountIndex');
    this.#atomicAdd = atomicAdd;
  }

  /**
   * Starts following `provider`'s session and grant writes. With an atomic index write the index is instead written
   * together with each Session and Grant (see {@link wrap}), and no event is followed.
   */
  attach(provider: Provider): void {
    if (this.#atomicAdd) return;
    provider.on('session.saved', (session: { jti: string; accountId?: string; exp?: number }) => {
      if (session.accountId) this.#add(session.accountId, 'sessions', session.jti, session.exp);
    });
    provider.on('grant.saved', (grant: { jti: string; accountId?: string; exp?: number }) => {
      if (grant.accountId) this.#add(grant.accountId, 'grants', grant.jti, grant.exp);
    });
  }

  #add(accountId: string, kind: 'sessions' | 'grants', id: string, exp = defaultExp()): void {
    // Writes are serialised so two events of one request do not overwrite each other's read-modify-write.
    this.#queue = this.#queue
      .then(async () => {
        const now = Math.floor(Date.now() / 1000);
        const current = (await this.#index.find(accountId)) as IndexPayload | undefined;
        const payload: IndexPayload = { sessions: [], grants: [], ...current };
        payload[kind] = [...payload[kind].filter((e) => e.exp > now && e.id !== id), { id, exp }];
        const maxExp = Math.max(...payload.sessions.map((e) => e.exp), ...payload.grants.map((e) => e.exp));
        await this.#index.upsert(accountId, payload, Math.max(1, maxExp - now));
      })
      .catch((err: unknown) => this.logger.error({ err }, 'account session index: write failed'));
  }

  /**
   * The adapter factory to give oidc-provider. With an atomic index write, a Session or Grant upsert naming an
   * account sends the index write in the same tick as the entry itself, so both go to Redis in one round trip
   * (with the events of {@link attach}, the index write followed the entry's). A failed index write is logged, as
   * before, and does not fail the request. Without an atomic write the factory is returned unchanged.
   */
  wrap(factory: AdapterFactory): AdapterFactory {
    const atomicAdd = this.#atomicAdd;
    if (!atomicAdd) return factory;
    return (model) => {
      const inner = factory(model);
      const kind = model === 'Session' ? 'sessions' : model === 'Grant' ? 'grants' : undefined;
      if (!kind) return inner;
      return overriding(inner, {
        upsert: (id, payload, expiresIn) => {
          const stored = inner.upsert(id, payload, expiresIn);
          const accountId = payload.accountId;
          if (typeof accountId === 'string' && accountId) {
            const exp = typeof payload.exp === 'number' ? payload.exp : undefined;
            const write = atomicAdd(accountId, kind, id, exp ?? defaultExp())
              .catch((err: unknown) => this.logger.error({ err }, 'account session index: write failed'))
              .finally(() => this.#pending.delete(write));
            this.#pending.add(write);
          }
          return stored;
        },
      });
    };
  }

  readonly #pending = new Set<Promise<unknown>>();

  /** Waits for pending index writes (tests, shutdown). */
  async settled(): Promise<void> {
    await Promise.all([this.#queue, ...this.#pending]);
  }

  /**
   * Ends every session of the account and revokes every grant with its codes, access and refresh tokens.
   * @returns how many sessions and grants were found in the index.
   */
  async revokeAll(accountId: string): Promise<{ sessions: number; grants: number }> {
    await this.settled();
    const payload = (await this.#index.find(accountId)) as IndexPayload | undefined;
    if (!payload) return { sessions: 0, grants: 0 };
    const sessions = this.#adapter('Session');
    const grants = this.#adapter('Grant');
    for (const { id } of payload.sessions) await sessions.destroy(id);
    for (const { id } of payload.grants) {
      // Each grant-linked model's adapter (the one list, lib/core/storage.ts), as oidc-provider's own revocation does.
      for (const model of GRANT_LINKED_MODELS) await this.#adapter(model).revokeByGrantId(id);
      await grants.destroy(id);
    }
    await this.#index.destroy(accountId);
    return { sessions: payload.sessions.length, grants: payload.grants.length };
  }

  /**
   * Ends every session of the account except `keepSessionId` (a Session id, the `_session` cookie value) and
   * revokes every grant except the ones that session holds (what a second-factor change does: the browser that
   * made the change stays signed in, every other one is signed out with its tokens).
   * @returns how many sessions and grants were ended.
   */
  async revokeOthers(
    accountId: string,
    keepSessionId: string | undefined,
  ): Promise<{ sessions: number; grants: number }> {
    if (!keepSessionId) return this.revokeAll(accountId);
    await this.settled();
    const payload = (await this.#index.find(accountId)) as IndexPayload | undefined;
    if (!payload) return { sessions: 0, grants: 0 };
    const sessions = this.#adapter('Session');
    const grants = this.#adapter('Grant');
    const kept = (await sessions.find(keepSessionId)) as
      | { accountId?: string; authorizations?: Record<string, { grantId?: string }> }
      | undefined;
    const keepGrants = new Set(
      kept?.accountId === accountId
        ? Object.values(kept.authorizations ?? {})
            .map((a) => a.grantId)
            .filter(Boolean)
        : [],
    );
    const endSessions = payload.sessions.filter((e) => e.id !== keepSessionId);
    const endGrants = payload.grants.filter((e) => !keepGrants.has(e.id));
    for (const { id } of endSessions) await sessions.destroy(id);
    for (const { id } of endGrants) {
      for (const model of GRANT_LINKED_MODELS) await this.#adapter(model).revokeByGrantId(id);
      await grants.destroy(id);
    }
    const rest: IndexPayload = {
      ...payload,
      sessions: payload.sessions.filter((e) => e.id === keepSessionId),
      grants: payload.grants.filter((e) => keepGrants.has(e.id)),
    };
    const now = Math.floor(Date.now() / 1000);
    const maxExp = Math.max(now + 1, ...rest.sessions.map((e) => e.exp), ...rest.grants.map((e) => e.exp));
    await this.#index.upsert(accountId, rest, maxExp - now);
    return { sessions: endSessions.length, grants: endGrants.length };
  }

  /**
   * The account's live grants as indexed: `{ id, exp }` (exp in epoch seconds), e.g. for the connected applications.
   */
  async grants(accountId: string): Promise<Array<{ id: string; exp: number }>> {
    await this.settled();
    const payload = (await this.#index.find(accountId)) as IndexPayload | undefined;
    const now = Math.floor(Date.now() / 1000);
    return (payload?.grants ?? []).filter((e) => e.exp > now);
  }

  /**
   * Ends the given sessions and revokes the given grants of the account (each grant's codes, access and refresh
   * tokens first, then the Grant), and drops them from the index. Ids the index does not hold for this account
   * are ignored, so a caller cannot end another account's session or grant through it.
   * @returns how many sessions and grants were ended.
   */
  async revoke(
    accountId: string,
    ids: { sessions?: readonly string[]; grants?: readonly string[] },
  ): Promise<{ sessions: number; grants: number }> {
    await this.settled();
    const payload = (await this.#index.find(accountId)) as IndexPayload | undefined;
    if (!payload) return { sessions: 0, grants: 0 };
    const endSessions = payload.sessions.filter((e) => ids.sessions?.includes(e.id));
    const endGrants = payload.grants.filter((e) => ids.grants?.includes(e.id));
    for (const { id } of endSessions) await this.#adapter('Session').destroy(id);
    for (const { id } of endGrants) {
      for (const model of GRANT_LINKED_MODELS) await this.#adapter(model).revokeByGrantId(id);
      await this.#adapter('Grant').destroy(id);
    }
    const ended = new Set([...endSessions, ...endGrants].map((e) => e.id));
    const rest: IndexPayload = {
      ...payload,
      sessions: payload.sessions.filter((e) => !ended.has(e.id)),
      grants: payload.grants.filter((e) => !ended.has(e.id)),
    };
    const now = Math.floor(Date.now() / 1000);
    const maxExp = Math.max(now + 1, ...rest.sessions.map((e) => e.exp), ...rest.grants.map((e) => e.exp));
    await this.#index.upsert(accountId, rest, maxExp - now);
    return { sessions: endSessions.length, grants: endGrants.length };
  }

  /** The account's live sessions as indexed: `{ id, exp }` (exp in epoch seconds). */
  async list(accountId: string): Promise<Array<{ id: string; exp: number }>> {
    await this.settled();
    const payload = (await this.#index.find(accountId)) as IndexPayload | undefined;
    const now = Math.floor(Date.now() / 1000);
    return (payload?.sessions ?? []).filter((e) => e.exp > now);
  }
}
