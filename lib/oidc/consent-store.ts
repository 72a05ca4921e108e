import type { AdapterFactory } from '../core/storage.js';

/**
 * Remembered consent: the scopes an account approved for a client, kept until revoked, in the same storage as
 * the provider's models. Each browser session still gets its own Grant copied from it, so that revoking one
 * session's grant (e.g. after a replayed code) does not revoke every session's tokens.
 */
export class ConsentStore {
  readonly #adapter;

  constructor(adapter: AdapterFactory) {
    this.#adapter = adapter('RememberedConsent');
  }

  static #id(accountId: string, clientId: string): string {
    return `${encodeURIComponent(accountId)}:${encodeURIComponent(clientId)}`;
  }

  /** Approved scopes, or `undefined` when the account never consented for this client. */
  async find(accountId: string, clientId: string): Promise<string[] | undefined> {
    const payload = await this.#adapter.find(ConsentStore.#id(accountId, clientId));
    return Array.isArray(payload?.scopes) ? (payload.scopes as string[]) : undefined;
  }

  /**
   * Adds scopes to the remembered consent.
   * @param known what {@link find} answered earlier in the same request, when the caller read it already (saves
   *   the read; the merge is a read-modify-write either way).
   */
  async remember(accountId: string, clientId: string, scopes: Iterable<string>, known?: { previous: string[] | undefined }): Promise<void> {
    const previous = known ? known.previous : await this.find(accountId, clientId);
    const merged = new Set([...(previous ?? []), ...scopes]);
    await this.#adapter.upsert(ConsentStore.#id(accountId, clientId), { scopes: [...merged] });
  }

  /** Forgets the consent; the next authorization request prompts again. */
  async revoke(accountId: string, clientId: string): Promise<void> {
    await this.#adapter.destroy(ConsentStore.#id(accountId, clientId));
  }
}
