import type { Adapter, AdapterFactory } from '../../core/storage.js';

/** What a challenge was issued for. */
export type ChallengePurpose =
  /** Passwordless sign-in on the login page: any discoverable credential, user verification required. */
  | 'login'
  /** The passkey after a right password: only `accountId`'s credentials. */
  | 'second-factor'
  /** Registration from `/account/passkeys` by the signed-in `accountId`. */
  | 'register';

/** A pending WebAuthn ceremony. JSON-serialisable. */
export interface PendingChallenge {
  purpose: ChallengePurpose;
  /** base64url challenge as sent in the options (WebAuthn §13.4.3: at least 16 random bytes; ours are 32). */
  challenge: string;
  /** The account the ceremony is for (second factor, registration). */
  accountId?: string;
  /** Methods already passed in this sign-in (RFC 8176 `amr`), e.g. `['pwd']` before the second factor. */
  amr?: string[];
}

/**
 * Server-side WebAuthn challenges (WebAuthn §13.4.3), one per binding: the interaction uid of a sign-in, or the
 * session of the account page. Kept in the storage adapter (model `PasskeyChallenge`, memory or Redis) with a
 * short lifetime; a new page for the same binding replaces the previous challenge, and a challenge is used at most
 * once through the adapter's atomic `consume`, so a replayed response finds nothing.
 */
export class PasskeyChallenges {
  readonly #adapter: Adapter;

  /** @param ttlSeconds lifetime of a challenge (`passkeys.challengeTtl`). */
  constructor(adapter: AdapterFactory, private readonly ttlSeconds: number) {
    this.#adapter = adapter('PasskeyChallenge');
  }

  /** Stores `pending` for `binding` (replacing what was there). */
  async issue(binding: string, pending: PendingChallenge): Promise<void> {
    await this.#adapter.upsert(binding, { ...pending }, this.ttlSeconds);
  }

  /**
   * Takes the challenge of `binding` if it was issued for one of `purposes`: at most one caller ever gets it.
   * @returns `undefined` when there is none (expired, used, replaced by nothing) or it is for another purpose.
   */
  async take(binding: string, purposes: readonly ChallengePurpose[]): Promise<PendingChallenge | undefined> {
    const id = binding;
    const payload = await this.#adapter.find(id);
    if (!payload || payload.consumed || !purposes.includes(payload.purpose as ChallengePurpose)) return undefined;
    try {
      await this.#adapter.consume(id);
    } catch {
      return undefined; // a concurrent submission of the same challenge won
    }
    await this.#adapter.destroy(id);
    return payload as unknown as PendingChallenge;
  }
}
