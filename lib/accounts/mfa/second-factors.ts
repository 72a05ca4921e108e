import { createLimiter, memoryLimiterBackend, type Limiter, type LimiterBackend } from '../../core/limiter.js';
import type { LimitConfig } from '../../../config/types.js';
import type { Account, AccountStore, StoredSecondFactor } from '../../core/account-store.js';
import {
  hashRecoveryCode, looksLikeRecoveryCode, newRecoveryCodes, newTotpSecret, qrSvg, sameHash, SecretBox, TOTP_PERIOD, totpUri, verifyTotp,
} from './totp.js';

/** What {@link SecondFactors} needs; built once by `createServer`. */
export interface SecondFactorDeps {
  accounts: AccountStore;
  /** `mfa.encryptionKey` (or the development key derived from the cookie key). */
  encryptionKey: string;
  /** Name in authenticator apps (`mfa.issuerLabel`, else the issuer's host). */
  issuerLabel: string;
  /** `accountLimits.secondFactorPerAccount` and `secondFactorPerIp`. */
  limits: { perAccount: LimitConfig; perIp: LimitConfig };
  limiterBackend?: LimiterBackend;
}

/** A TOTP enrolment being shown: the QR code, the secret for typing in, and the sealed form to post back. */
export interface Enrolment {
  /** `otpauth://` URI. */
  uri: string;
  /** Inline `<svg>` of the URI. */
  svg: string;
  /** The base32 secret, for apps that cannot scan. */
  secret: string;
  /** The secret and account sealed together (hidden form field); only this server can open it. */
  sealed: string;
}

/** Outcome of a second-factor check. */
export type FactorCheck =
  | { kind: 'ok'; method: 'totp' | 'recovery'; recoveryCodesLeft: number }
  | { kind: 'wrong' }
  | { kind: 'rate-limited'; retryAfterSeconds: number };

/** How long a shown enrolment may be confirmed, seconds. */
const ENROLMENT_TTL = 15 * 60;

/**
 * TOTP and recovery codes of accounts: enrolment, checks at sign-in, removal. Stored through
 * `AccountStore.getSecondFactor`/`setSecondFactor`; the TOTP secret is sealed with AES-256-GCM.
 *
 * Every check counts against `accountLimits.secondFactorPerAccount` and `…PerIp` before the code is looked at.
 * A code is accepted once: the matched time step is claimed in the limiter backend (one point per step, atomic
 * on Redis, so two concurrent submissions of one code cannot both pass) and recorded as `lastUsedStep`.
 */
export class SecondFactors {
  readonly #deps: SecondFactorDeps;
  readonly #box: SecretBox;
  readonly #perAccount: Limiter;
  readonly #perIp: Limiter;
  readonly #usedOnce: Limiter;

  constructor(deps: SecondFactorDeps) {
    this.#deps = deps;
    this.#box = new SecretBox(deps.encryptionKey);
    const backend = deps.limiterBackend ?? memoryLimiterBackend;
    this.#perAccount = createLimiter('mfa-account', deps.limits.perAccount, backend);
    this.#perIp = createLimiter('mfa-ip', deps.limits.perIp, backend);
    this.#usedOnce = createLimiter('mfa-used', { points: 1, durationSeconds: 3 * TOTP_PERIOD + 30 }, backend);
  }

  #store() {
    const { accounts } = this.#deps;
    return { get: (id: string) => accounts.getSecondFactor!(id), set: (id: string, v: StoredSecondFactor | undefined) => accounts.setSecondFactor!(id, v) };
  }

  /** Whether the account has TOTP, and how many unused recovery codes it has left. */
  async status(accountId: string): Promise<{ totp: boolean; recoveryCodesLeft: number; enrolledAt?: number }> {
    const stored = await this.#store().get(accountId);
    return {
      totp: Boolean(stored?.totp),
      recoveryCodesLeft: stored?.recoveryCodes?.filter((c) => !c.usedAt).length ?? 0,
      enrolledAt: stored?.totp?.createdAt,
    };
  }

  /** A new secret for `account`, with its QR code; nothing is stored until {@link confirmEnrolment}. */
  async startEnrolment(account: Account): Promise<Enrolment> {
    const secret = newTotpSecret();
    const uri = totpUri(secret, this.#deps.issuerLabel, account.email);
    const sealed = this.#box.seal(JSON.stringify({ a: account.id, s: secret, e: Math.floor(Date.now() / 1000) + ENROLMENT_TTL }));
    return { uri, svg: await qrSvg(uri), secret, sealed };
  }

  /** The enrolment of `sealed` again (its QR code), after a wrong confirmation code; `undefined` if not valid. */
  async reopenEnrolment(account: Account, sealed: string): Promise<Enrolment | undefined> {
    const secret = this.#openEnrolment(account.id, sealed);
    if (!secret) return undefined;
    const uri = totpUri(secret, this.#deps.issuerLabel, account.email);
    return { uri, svg: await qrSvg(uri), secret, sealed };
  }

  #openEnrolment(accountId: string, sealed: string): string | undefined {
    const opened = this.#box.open(sealed);
    if (!opened) return undefined;
    const { a, s, e } = JSON.parse(opened) as { a: string; s: string; e: number };
    return a === accountId && e > Date.now() / 1000 ? s : undefined;
  }

  async #limit(accountId: string, ip: string): Promise<FactorCheck | undefined> {
    const byIp = await this.#perIp.consume(ip);
    if (!byIp.allowed) return { kind: 'rate-limited', retryAfterSeconds: byIp.retryAfterSeconds };
    const byAccount = await this.#perAccount.consume(accountId);
    if (!byAccount.allowed) return { kind: 'rate-limited', retryAfterSeconds: byAccount.retryAfterSeconds };
    return undefined;
  }

  async #claim(accountId: string, what: string): Promise<boolean> {
    return (await this.#usedOnce.consume(`${accountId}:${what}`)).allowed;
  }

  /**
   * Confirms an enrolment with a code from the app: stores the sealed secret (replacing any earlier TOTP) and ten
   * new recovery codes, returned in clear this once.
   * @returns the recovery codes, `'wrong'` (bad code or expired enrolment) or a rate-limit refusal.
   */
  async confirmEnrolment(accountId: string, sealed: string, code: string, ip: string): Promise<{ kind: 'enrolled'; recoveryCodes: string[] } | Exclude<FactorCheck, { kind: 'ok' }>> {
    const limited = await this.#limit(accountId, ip);
    if (limited) return limited as Exclude<FactorCheck, { kind: 'ok' }>;
    const secret = this.#openEnrolment(accountId, sealed);
    const step = secret ? await verifyTotp(secret, code.replace(/\s/g, '')) : undefined;
    if (step === undefined || !(await this.#claim(accountId, `totp:${step}`))) return { kind: 'wrong' };
    const recoveryCodes = newRecoveryCodes();
    await this.#store().set(accountId, {
      totp: { secret: this.#box.seal(secret!), createdAt: Date.now(), lastUsedStep: step },
      recoveryCodes: recoveryCodes.map((c) => ({ hash: hashRecoveryCode(c) })),
    });
    await this.#perAccount.reset(accountId);
    return { kind: 'enrolled', recoveryCodes };
  }

  /**
   * Checks a TOTP code (6 digits, ±1 step, never twice) or an unused recovery code of the account, counted
   * against the rate limits first. A used recovery code is marked used.
   */
  async check(accountId: string, input: string, ip: string): Promise<FactorCheck> {
    const limited = await this.#limit(accountId, ip);
    if (limited) return limited;
    const code = input.trim();
    const stored = await this.#store().get(accountId);
    if (!stored) return { kind: 'wrong' };
    const left = () => stored.recoveryCodes?.filter((c) => !c.usedAt).length ?? 0;
    const digits = code.replace(/\s/g, '');
    if (stored.totp && /^\d{6}$/.test(digits)) {
      const secret = this.#box.open(stored.totp.secret);
      const step = secret ? await verifyTotp(secret, digits, stored.totp.lastUsedStep) : undefined;
      if (step === undefined || !(await this.#claim(accountId, `totp:${step}`))) return { kind: 'wrong' };
      stored.totp.lastUsedStep = step;
      await this.#store().set(accountId, stored);
      await this.#perAccount.reset(accountId);
      return { kind: 'ok', method: 'totp', recoveryCodesLeft: left() };
    }
    if (looksLikeRecoveryCode(code)) {
      const hash = hashRecoveryCode(code);
      const entry = stored.recoveryCodes?.find((c) => !c.usedAt && sameHash(c.hash, hash));
      if (!entry || !(await this.#claim(accountId, `recovery:${hash}`))) return { kind: 'wrong' };
      entry.usedAt = Date.now();
      await this.#store().set(accountId, stored);
      await this.#perAccount.reset(accountId);
      return { kind: 'ok', method: 'recovery', recoveryCodesLeft: left() };
    }
    return { kind: 'wrong' };
  }

  /** Removes TOTP and the recovery codes. */
  async remove(accountId: string): Promise<void> {
    await this.#store().set(accountId, undefined);
  }

  /** Replaces the recovery codes with ten new ones (returned in clear this once); only with TOTP enrolled. */
  async regenerateRecoveryCodes(accountId: string): Promise<string[] | undefined> {
    const stored = await this.#store().get(accountId);
    if (!stored?.totp) return undefined;
    const codes = newRecoveryCodes();
    await this.#store().set(accountId, { ...stored, recoveryCodes: codes.map((c) => ({ hash: hashRecoveryCode(c) })) });
    return codes;
  }
}
