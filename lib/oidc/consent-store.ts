import type { AdapterFactory } from '../core/storage.js';
import { requestSlot } from '../core/request-slot.js';

/**
 * Remembered consent: the scopes an account approved for a client, kept until revoked, in the same storage as
 * the provider's models. Each browser session still gets its own Grant copied from it, so that revoking one
 * session's grant (e.g. after a replayed code) does not revoke every session's tokens.
 */
export class ConsentStore {
  readonly #adapter;
  /** Per account, the clients it has a remembered consent for (`{ clients: string[] }`), for the account page. */
  readonly #byAccount;

  constructor(adapter: AdapterFactory) {
    this.#adapter = adapter('RememberedConsent');
    this.#byAccount = adapter('RememberedConsentIndex');
  }

  async #clients(accountId: string): Promise<string[]> {
    const payload = await this.#byAccount.find(accountId);
    return Array.isArray(payload?.clients) ? (payload.clients as string[]) : [];
  }

  /**
   * Every client the account has a remembered consent for, with the approved scopes (what `/account` lists as
   * connected applications). Consents remembered before this index existed appear once they are given again.
   */
  async list(accountId: string): Promise<Array<{ clientId: string; scopes: string[] }>> {
    const clients = await this.#clients(accountId);
    const found = await Promise.all(
      clients.map(async (clientId) => ({ clientId, scopes: await this.find(accountId, clientId) })),
    );
    return found.filter((c): c is { clientId: string; scopes: string[] } => c.scopes !== undefined);
  }

  static #id(accountId: string, clientId: string): string {
    return `${encodeURIComponent(accountId)}:${encodeURIComponent(clientId)}`;
  }

  /** Reads started ahead for a request ({@link prefetch}), each used once by {@link findFor}. */
  readonly #ahead = requestSlot<Map<string, Promise<string[] | undefined>>>('portcullis.consentsAhead');

  /**
   * Starts reading the consent of `accountId` for `clientId` for request `req` (the Node request), so that it
   * travels with the storage reads already under way (one round trip less on Redis); {@link findFor} in the same
   * request uses it. A failure surfaces there, never unhandled.
   */
  prefetch(req: object, accountId: string, clientId: string): void {
    let ahead = this.#ahead.get(req);
    if (!ahead) this.#ahead.set(req, (ahead = new Map()));
    const key = ConsentStore.#id(accountId, clientId);
    if (ahead.has(key)) return;
    const read = this.find(accountId, clientId);
    read.catch(() => undefined);
    ahead.set(key, read);
  }

  /** {@link find}, answered by this request's {@link prefetch} when there was one (used once, then read afresh). */
  findFor(req: object, accountId: string, clientId: string): Promise<string[] | undefined> {
    const ahead = this.#ahead.get(req);
    const key = ConsentStore.#id(accountId, clientId);
    const read = ahead?.get(key);
    if (!read) return this.find(accountId, clientId);
    ahead!.delete(key);
    return read;
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
  async remember(
    accountId: string,
    clientId: string,
    scopes: Iterable<string>,
    known?: { previous: string[] | undefined },
  ): Promise<void> {
    const previous = known ? known.previous : await this.find(accountId, clientId);
    const merged = new Set([...(previous ?? []), ...scopes]);
    // A first consent for this client joins the account's index: read beside the write (one round trip on Redis).
    const [, clients] = await Promise.all([
      this.#adapter.upsert(ConsentStore.#id(accountId, clientId), { scopes: [...merged] }),
      previous === undefined ? this.#clients(accountId) : undefined,
    ]);
    if (clients && !clients.includes(clientId))
      await this.#byAccount.upsert(accountId, { clients: [...clients, clientId] });
  }

  /** Forgets the consent; the next authorization request prompts again. */
  async revoke(accountId: string, clientId: string): Promise<void> {
    await this.#adapter.destroy(ConsentStore.#id(accountId, clientId));
    const clients = await this.#clients(accountId);
    if (clients.includes(clientId))
      await this.#byAccount.upsert(accountId, { clients: clients.filter((c) => c !== clientId) });
  }
}
