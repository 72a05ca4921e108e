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

/** How many challenges one binding keeps pending at most (one per open page); the oldest goes first. */
export const MAX_PENDING_CHALLENGES = 5;

/**
 * Server-side WebAuthn challenges (WebAuthn §13.4.3), bound to a binding: the interaction uid of a sign-in, or the
 * session of the account page. Each page shown for a binding gets its own challenge, and up to
 * {@link MAX_PENDING_CHALLENGES} stay pending side by side, so a second open tab (or a page shown again after a
 * refusal) does not void the first one's; a response names its challenge (in its `clientDataJSON`), which is
 * looked up under its binding only. Kept in the storage adapter (model `PasskeyChallenge`, memory or Redis: one
 * record per challenge, `<binding>|<challenge>`, and the binding's list of pending ones, `<binding>`) with a short
 * lifetime; a challenge is used at most once through the adapter's atomic `consume`, so a replayed response finds
 * nothing.
 */
export class PasskeyChallenges {
  readonly #adapter: Adapter;

  /** @param ttlSeconds lifetime of a challenge (`passkeys.challengeTtl`). */
  constructor(
    adapter: AdapterFactory,
    private readonly ttlSeconds: number,
  ) {
    this.#adapter = adapter('PasskeyChallenge');
  }

  /**
   * Stores `pending` for `binding` beside the challenges already pending there; beyond
   * {@link MAX_PENDING_CHALLENGES} the oldest are dropped (two pages issuing at once may keep one more until it
   * expires).
   */
  async issue(binding: string, pending: PendingChallenge): Promise<void> {
    await this.#adapter.upsert(challengeKey(binding, pending.challenge), { ...pending }, this.ttlSeconds);
    const listed = (await this.#adapter.find(binding))?.challenges;
    const before = Array.isArray(listed) ? listed.filter((c): c is string => typeof c === 'string') : [];
    const challenges = [...before, pending.challenge];
    const dropped = challenges.splice(0, Math.max(0, challenges.length - MAX_PENDING_CHALLENGES));
    await this.#adapter.upsert(binding, { challenges }, this.ttlSeconds);
    for (const old of dropped) await this.#adapter.destroy(challengeKey(binding, old));
  }

  /**
   * Takes `challenge` (base64url, as the response's client data names it) of `binding` if it is pending there for
   * one of `purposes`: at most one caller ever gets it.
   * @returns `undefined` when there is none (expired, used, dropped, never issued to this binding) or it is for
   *   another purpose.
   */
  async take(
    binding: string,
    challenge: string,
    purposes: readonly ChallengePurpose[],
  ): Promise<PendingChallenge | undefined> {
    const id = challengeKey(binding, challenge);
    const payload = await this.#adapter.find(id);
    if (!payload || payload.consumed || payload.challenge !== challenge) return undefined;
    if (!purposes.includes(payload.purpose as ChallengePurpose)) return undefined;
    try {
      await this.#adapter.consume(id);
    } catch {
      return undefined; // a concurrent submission of the same challenge won
    }
    await this.#adapter.destroy(id);
    return payload as unknown as PendingChallenge;
  }
}

/** The record of one challenge: `|` is in no binding's tail and no base64url challenge. */
const challengeKey = (binding: string, challenge: string) => `${binding}|${challenge}`;
