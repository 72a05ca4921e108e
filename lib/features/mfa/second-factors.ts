import { createLimiter, memoryLimiterBackend, type Limiter, type LimiterBackend } from '../../core/limiter.js';
import { ipLimitKey } from '../../core/client-key.js';
import type { LimitConfig } from '../../../config/types.js';
import type { Account, AccountStore, StoredSecondFactor } from '../../core/account-store.js';
import { factorStore, type FactorStore } from './factor-store.js';
import {
  hashRecoveryCode,
  looksLikeRecoveryCode,
  newRecoveryCodes,
  newTotpSecret,
  qrSvg,
  sameHash,
  SecretBox,
  TOTP_PERIOD,
  totpUri,
  verifyTotp,
} from './totp.js';
import type {
  Enrolment,
  EnrolmentResult,
  FactorCheck,
  SecondFactorService,
} from '../../accounts/mfa/second-factor-service.js';

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

/** How long a shown enrolment may be confirmed, seconds. */
const ENROLMENT_TTL = 15 * 60;

/**
 * TOTP and recovery codes of accounts: enrolment, checks at sign-in, removal. Stored through
 * `AccountStore.getSecondFactor`/`setSecondFactor`/`updateSecondFactor` (see {@link factorStore}); the TOTP
 * secret is sealed with AES-256-GCM.
 *
 * Every check counts against `accountLimits.secondFactorPerAccount` and `…PerIp` before the code is looked at.
 * A code is accepted once: the matched time step (or the recovery code) is claimed in the limiter backend (one
 * point each, atomic on Redis, so two concurrent submissions of one code cannot both pass), then recorded as
 * `lastUsedStep` (or `usedAt`) by an atomic change of the stored value, which holds once the claim has expired:
 * a change that finds the code spent, or the factor removed or replaced since the check read it, refuses the code
 * and writes nothing, so a check never undoes another check, a removal, new recovery codes or a new enrolment.
 */
export class SecondFactors implements SecondFactorService {
  readonly #deps: SecondFactorDeps;
  readonly #box: SecretBox;
  readonly #perAccount: Limiter;
  readonly #perIp: Limiter;
  readonly #usedOnce: Limiter;
  readonly #store: FactorStore;

  constructor(deps: SecondFactorDeps) {
    this.#deps = deps;
    this.#box = new SecretBox(deps.encryptionKey);
    const backend = deps.limiterBackend ?? memoryLimiterBackend;
    this.#perAccount = createLimiter('mfa-account', deps.limits.perAccount, backend);
    this.#perIp = createLimiter('mfa-ip', deps.limits.perIp, backend);
    this.#usedOnce = createLimiter('mfa-used', { points: 1, durationSeconds: 3 * TOTP_PERIOD + 30 }, backend);
    this.#store = factorStore(deps.accounts, backend);
  }

  /** Whether the account has TOTP, and how many unused recovery codes it has left. */
  async status(accountId: string): Promise<{ totp: boolean; recoveryCodesLeft: number; enrolledAt?: number }> {
    const stored = await this.#store.get(accountId);
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
    const sealed = this.#box.seal(
      JSON.stringify({ a: account.id, s: secret, e: Math.floor(Date.now() / 1000) + ENROLMENT_TTL }),
    );
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
    const byIp = await this.#perIp.consume(ipLimitKey(ip));
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
   * new recovery codes, returned in clear this once. For the account page, behind a fresh sign-in.
   * @returns the recovery codes, `'wrong'` (bad code or expired enrolment) or a rate-limit refusal.
   */
  async confirmEnrolment(accountId: string, sealed: string, code: string, ip: string): Promise<EnrolmentResult> {
    return this.#confirm(accountId, sealed, code, ip, true) as Promise<EnrolmentResult>;
  }

  /**
   * {@link confirmEnrolment} for an account that had no TOTP when its enrolment began (a sign-in after the password
   * alone): `'already-enrolled'`, writing nothing, when the account has TOTP by now, so the password never replaces
   * the account's second factor and recovery codes. The check and the write are one atomic change.
   */
  async confirmFirstEnrolment(
    accountId: string,
    sealed: string,
    code: string,
    ip: string,
  ): Promise<EnrolmentResult | { kind: 'already-enrolled' }> {
    return this.#confirm(accountId, sealed, code, ip, false);
  }

  async #confirm(
    accountId: string,
    sealed: string,
    code: string,
    ip: string,
    replace: boolean,
  ): Promise<EnrolmentResult | { kind: 'already-enrolled' }> {
    const limited = await this.#limit(accountId, ip);
    if (limited) return limited as EnrolmentResult;
    const secret = this.#openEnrolment(accountId, sealed);
    const step = secret ? await verifyTotp(secret, code.replace(/\s/g, '')) : undefined;
    if (step === undefined || !(await this.#claim(accountId, `totp:${step}`))) return { kind: 'wrong' };
    const recoveryCodes = newRecoveryCodes();
    const value: StoredSecondFactor = {
      totp: { secret: this.#box.seal(secret!), createdAt: Date.now(), lastUsedStep: step },
      recoveryCodes: recoveryCodes.map((c) => ({ hash: hashRecoveryCode(c) })),
    };
    if (replace) {
      await this.#store.set(accountId, value);
    } else {
      let written = false;
      await this.#store.update(accountId, (now) => {
        written = !now?.totp;
        return written ? value : now;
      });
      if (!written) return { kind: 'already-enrolled' };
    }
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
    const stored = await this.#store.get(accountId);
    if (!stored) return { kind: 'wrong' };
    const digits = code.replace(/\s/g, '');
    if (stored.totp && /^\d{6}$/.test(digits)) {
      const sealed = stored.totp.secret;
      const secret = this.#box.open(sealed);
      const step = secret ? await verifyTotp(secret, digits, stored.totp.lastUsedStep) : undefined;
      if (step === undefined || !(await this.#claim(accountId, `totp:${step}`))) return { kind: 'wrong' };
      // Still the enrolment the code was checked against, and no later step accepted meanwhile.
      return this.#spend(accountId, 'totp', `totp:${step}`, (now) =>
        now?.totp?.secret === sealed && (now.totp.lastUsedStep ?? -1) < step
          ? { ...now, totp: { ...now.totp, lastUsedStep: step } }
          : undefined,
      );
    }
    if (looksLikeRecoveryCode(code)) {
      const hash = hashRecoveryCode(code);
      const unused = (value: StoredSecondFactor | undefined) =>
        value?.recoveryCodes?.find((c) => !c.usedAt && sameHash(c.hash, hash));
      if (!unused(stored) || !(await this.#claim(accountId, `recovery:${hash}`))) return { kind: 'wrong' };
      return this.#spend(accountId, 'recovery', `recovery:${hash}`, (now) => {
        const entry = unused(now);
        return entry
          ? { ...now, recoveryCodes: now!.recoveryCodes!.map((c) => (c === entry ? { ...c, usedAt: Date.now() } : c)) }
          : undefined;
      });
    }
    return { kind: 'wrong' };
  }

  /**
   * Records a code as used with an atomic change: `spend` answers the stored value with the code spent, or
   * `undefined` when it can no longer be (already spent, factor removed or replaced), and the code is refused.
   * When the change itself fails (the store throws, e.g. `StorageUnavailableError` 503), nothing was spent: the
   * code's claim (`claimed`, see {@link #claim}) is given back, so the same code works on the user's retry rather
   * than being refused for the claim's 120 s; the error is thrown on.
   */
  async #spend(
    accountId: string,
    method: 'totp' | 'recovery',
    claimed: string,
    spend: (now: StoredSecondFactor | undefined) => StoredSecondFactor | undefined,
  ): Promise<FactorCheck> {
    let spent: StoredSecondFactor | undefined;
    try {
      await this.#store.update(accountId, (now) => {
        // The store may call this more than once; the last call is the one written.
        spent = spend(now);
        return spent ?? now;
      });
    } catch (err) {
      await this.#usedOnce.reset(`${accountId}:${claimed}`).catch(() => {
        /* the backend is down too: the claim expires */
      });
      throw err;
    }
    if (!spent) return { kind: 'wrong' };
    await this.#perAccount.reset(accountId);
    return { kind: 'ok', method, recoveryCodesLeft: spent.recoveryCodes?.filter((c) => !c.usedAt).length ?? 0 };
  }

  /** Removes TOTP and the recovery codes. */
  async remove(accountId: string): Promise<void> {
    await this.#store.set(accountId, undefined);
  }

  /**
   * Replaces the recovery codes with ten new ones (returned in clear this once); only with TOTP enrolled, checked
   * in the same atomic change, so a removal racing it is not undone.
   */
  async regenerateRecoveryCodes(accountId: string): Promise<string[] | undefined> {
    const codes = newRecoveryCodes();
    const recoveryCodes = codes.map((c) => ({ hash: hashRecoveryCode(c) }));
    let replaced = false;
    await this.#store.update(accountId, (now) => {
      replaced = Boolean(now?.totp);
      return replaced ? { ...now, recoveryCodes } : now;
    });
    return replaced ? codes : undefined;
  }
}
