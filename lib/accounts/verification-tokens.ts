import { createHash, randomBytes } from 'node:crypto';
import type { AdapterFactory } from '../core/storage.js';

/** What a token is for; a token issued for one purpose never works for another. */
export type TokenPurpose = 'verify-email' | 'reset-password' | 'change-email';

/** What a verification token stands for. JSON-serialisable. */
export interface TokenRecord {
  purpose: TokenPurpose;
  accountId: string;
  /** The address the mail went to (for `change-email`: the new address, applied only when the link is used). */
  email: string;
  /** Path of a pending login (`/interaction/<uid>`) to offer after the link is used. */
  returnTo?: string;
  /** When the link was issued, epoch milliseconds (set by {@link VerificationTokens.issue}). */
  issuedAt?: number;
}

/**
 * Purposes whose links die when the account's password or address changes ({@link VerificationTokens.revokeFor}):
 * a reset link or a pending e-mail change asked for before a password reset must not outlive it (OWASP Forgot
 * Password Cheat Sheet). Sign-up confirmations are bound to the address instead (confirm-email.ts).
 */
const CREDENTIAL_BOUND: ReadonlySet<TokenPurpose> = new Set(['reset-password', 'change-email']);

/**
 * Single-use, expiring e-mail tokens (sign-up verification, e-mail change, password reset). The token is 32
 * random bytes (base64url) that only the mail carries; storage keeps its SHA-256 under the model
 * `VerificationToken` of the storage adapter, so a leaked store yields no usable link. Using a token relies on the
 * adapter's atomic `consume` (see `lib/core/storage.ts`): of two concurrent uses exactly one wins, so any adapter
 * that passes the storage conformance suite (`storageConformance` in `portcullis/testing`) gives the same guarantee.
 */
export class VerificationTokens {
  readonly #adapter;
  /** Per account: the time (epoch ms) before which its credential-bound links no longer work. */
  readonly #revoked;
  readonly #revokedTtlSeconds: number;

  /**
   * @param longestTtlSeconds how long a revocation must be remembered, seconds: the longest lifetime of a link or of
   *   a sign-in in the making (an interaction), whose password {@link credentialsChangedAt} is compared with.
   */
  constructor(adapter: AdapterFactory, longestTtlSeconds = 7 * 24 * 3600) {
    this.#adapter = adapter('VerificationToken');
    this.#revoked = adapter('VerificationRevocation');
    this.#revokedTtlSeconds = longestTtlSeconds;
  }

  static #id(token: string): string {
    return createHash('sha256').update(token).digest('base64url');
  }

  /** Stores a new token for `record`, valid for `ttlSeconds`; returns the clear token to put in the link. */
  async issue(record: TokenRecord, ttlSeconds: number): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.#adapter.upsert(VerificationTokens.#id(token), { ...record, issuedAt: Date.now() }, ttlSeconds);
    return token;
  }

  /**
   * Ends every password-reset and e-mail-change link of `accountId` issued until now: called when its password is
   * reset or changed and when its address changes.
   * @throws {StorageUnavailableError} when the storage is unavailable.
   */
  async revokeFor(accountId: string): Promise<void> {
    await this.#revoked.upsert(accountId, { since: Date.now() }, this.#revokedTtlSeconds);
  }

  /**
   * When the account's password or address last changed (epoch ms: the last {@link revokeFor}), if within the
   * longest link lifetime. A sign-in whose password was checked before then must not complete after it
   * (lib/features/mfa/second-step.ts, lib/oidc/stale-sign-in.ts).
   * @throws {StorageUnavailableError} when the storage is unavailable.
   */
  async credentialsChangedAt(accountId: string): Promise<number | undefined> {
    const revoked = await this.#revoked.find(accountId);
    return typeof revoked?.since === 'number' ? revoked.since : undefined;
  }

  /**
   * Looks a token up without using it (to show the form behind a link). `undefined` when unknown, used, expired,
   * issued for another purpose, or revoked by {@link revokeFor}.
   */
  async peek(token: string, purpose: TokenPurpose): Promise<TokenRecord | undefined> {
    if (!/^[\w-]{43}$/.test(token)) return undefined;
    const payload = await this.#adapter.find(VerificationTokens.#id(token));
    if (!payload || payload.consumed || payload.purpose !== purpose) return undefined;
    const record = payload as unknown as TokenRecord;
    if (CREDENTIAL_BOUND.has(purpose)) {
      const since = await this.credentialsChangedAt(record.accountId);
      if (since !== undefined && !((record.issuedAt ?? 0) > since)) return undefined;
    }
    return record;
  }

  /**
   * Uses a token once: returns its record, or `undefined` when it is unknown, expired, already used or issued for
   * another purpose. The entry is deleted after use.
   */
  async consume(token: string, purpose: TokenPurpose): Promise<TokenRecord | undefined> {
    const record = await this.peek(token, purpose);
    if (!record) return undefined;
    const id = VerificationTokens.#id(token);
    try {
      await this.#adapter.consume(id);
    } catch {
      return undefined; // lost a race against a concurrent use
    }
    await this.#adapter.destroy(id);
    return record;
  }
}
