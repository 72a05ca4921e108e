import type { AccountLimitsConfig } from '../../config/types.js';
import { ipLimitKey } from '../core/client-key.js';
import { canonicalEmail } from '../core/email-address.js';
import { createLimiter, type LimitResult, type LimiterBackend, memoryLimiterBackend } from '../core/limiter.js';

/**
 * The limit key of an address: its canonical form, so every spelling of one mailbox shares one counter. Text that
 * is no accepted address is counted under itself lower-cased, the key of earlier versions (no new account gets such
 * an address; one stored before may still sign in with it, see the Redis account store).
 */
function addressKey(email: string): string {
  return canonicalEmail(email) ?? email.toLowerCase();
}

/**
 * The rate limits of the login form and of the account mail (rate-limiter-flexible through `createLimiter`).
 * Keys are the canonical e-mail address (`canonicalEmail`; whether or not an account has it, so the limit itself
 * reveals nothing) and the client IP (`ctx.ip`, which honours `proxy`; an IPv6 address counts by its /56 network,
 * `ipLimitKey`).
 */
export class AccountLimits {
  readonly #loginAccount;
  readonly #loginIp;
  readonly #mailAddress;
  readonly #mailIp;

  constructor(
    limits: Pick<Required<AccountLimitsConfig>, 'loginPerAccount' | 'loginPerIp' | 'mailPerAddress' | 'mailPerIp'>,
    backend: LimiterBackend = memoryLimiterBackend,
  ) {
    this.#loginAccount = createLimiter('login-account', limits.loginPerAccount, backend);
    this.#loginIp = createLimiter('login-ip', limits.loginPerIp, backend);
    this.#mailAddress = createLimiter('mail-address', limits.mailPerAddress, backend);
    this.#mailIp = createLimiter('mail-ip', limits.mailPerIp, backend);
  }

  /**
   * Counts one login attempt for `ip` and `email` before the password is checked (so parallel guesses are
   * counted too). A refused answer carries `retryAfterSeconds` for `Retry-After`.
   */
  async loginAttempt(ip: string, email: string): Promise<LimitResult> {
    const byIp = await this.#loginIp.consume(ipLimitKey(ip));
    if (!byIp.allowed) return byIp;
    return this.#loginAccount.consume(addressKey(email));
  }

  /** Counts one sign-in attempt from `ip` that names no address (a passkey); the per-IP login limit applies. */
  async loginAttemptFromIp(ip: string): Promise<LimitResult> {
    return this.#loginIp.consume(ipLimitKey(ip));
  }

  /** A successful login clears the account's counter (OWASP Authentication Cheat Sheet). */
  async loginSucceeded(email: string): Promise<void> {
    await this.#loginAccount.reset(addressKey(email));
  }

  /** Counts one sign-up, resend or reset request from `ip`; with `email`, one mail to that address as well. */
  async mailRequest(ip: string, email?: string): Promise<LimitResult> {
    const byIp = await this.#mailIp.consume(ipLimitKey(ip));
    if (!byIp.allowed || email === undefined) return byIp;
    return this.#mailAddress.consume(addressKey(email));
  }
}
