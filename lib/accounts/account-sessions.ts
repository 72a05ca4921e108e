import type Provider from 'oidc-provider';
import { GRANT_LINKED_MODELS, type Adapter, type AdapterFactory } from '../../adapters/types.js';
import type { Logger } from '../logger.js';


interface IndexEntry { id: string; exp: number /* epoch seconds */ }
interface IndexPayload { [key: string]: unknown; sessions: IndexEntry[]; grants: IndexEntry[] }

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

  constructor(adapter: AdapterFactory, private readonly logger: Logger) {
    this.#adapter = adapter;
    this.#index = adapter('AccountIndex');
  }

  /** Starts following `provider`'s session and grant writes. */
  attach(provider: Provider): void {
    provider.on('session.saved', (session: { jti: string; accountId?: string; exp?: number }) => {
      if (session.accountId) this.#add(session.accountId, 'sessions', session.jti, session.exp);
    });
    provider.on('grant.saved', (grant: { jti: string; accountId?: string; exp?: number }) => {
      if (grant.accountId) this.#add(grant.accountId, 'grants', grant.jti, grant.exp);
    });
  }

  #add(accountId: string, kind: 'sessions' | 'grants', id: string, exp = Math.floor(Date.now() / 1000) + 30 * 24 * 3600): void {
    // Writes are serialised so two events of one request do not overwrite each other's read-modify-write.
    this.#queue = this.#queue.then(async () => {
      const now = Math.floor(Date.now() / 1000);
      const current = (await this.#index.find(accountId)) as IndexPayload | undefined;
      const payload: IndexPayload = { sessions: [], grants: [], ...current };
      payload[kind] = [...payload[kind].filter((e) => e.exp > now && e.id !== id), { id, exp }];
      const maxExp = Math.max(...payload.sessions.map((e) => e.exp), ...payload.grants.map((e) => e.exp));
      await this.#index.upsert(accountId, payload, Math.max(1, maxExp - now));
    }).catch((err: unknown) => this.logger.error({ err }, 'account session index: write failed'));
  }

  /** Waits for pending index writes (tests, shutdown). */
  async settled(): Promise<void> {
    await this.#queue;
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
      // Each grant-linked model's adapter (the one list, adapters/types.ts), as oidc-provider's own revocation does.
      for (const model of GRANT_LINKED_MODELS) await this.#adapter(model).revokeByGrantId(id);
      await grants.destroy(id);
    }
    await this.#index.destroy(accountId);
    return { sessions: payload.sessions.length, grants: payload.grants.length };
  }
}
