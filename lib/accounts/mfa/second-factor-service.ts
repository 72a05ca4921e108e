import type { Account } from '../../core/account-store.js';

/**
 * What the second sign-in step, the account page and the account use cases need of an account's second factors
 * (TOTP and recovery codes), implemented by the mfa feature's `SecondFactors` (lib/features/mfa/second-factors.ts):
 * the modules name this interface, not the feature's code.
 */
export interface SecondFactorService {
  /** Whether the account has TOTP, how many unused recovery codes it has left, and when it was enrolled. */
  status(accountId: string): Promise<{ totp: boolean; recoveryCodesLeft: number; enrolledAt?: number }>;
  /** A new TOTP secret to show (QR code, secret, sealed form); nothing is stored until it is confirmed. */
  startEnrolment(account: Account): Promise<Enrolment>;
  /** The enrolment a form posted back (`sealed`) again, after a wrong confirmation code; `undefined` if not valid. */
  reopenEnrolment(account: Account, sealed: string): Promise<Enrolment | undefined>;
  /** Confirms an enrolment with a code from the app (replacing a TOTP enrolled before), under the limits. */
  confirmEnrolment(accountId: string, sealed: string, code: string, ip: string): Promise<EnrolmentResult>;
  /** Like {@link confirmEnrolment}, but refuses when the account got a TOTP meanwhile (the sign-in's enrolment). */
  confirmFirstEnrolment(
    accountId: string,
    sealed: string,
    code: string,
    ip: string,
  ): Promise<EnrolmentResult | { kind: 'already-enrolled' }>;
  /** Checks a TOTP or recovery code, under the limits; a code passes once. */
  check(accountId: string, input: string, ip: string): Promise<FactorCheck>;
  /** Removes the TOTP with its recovery codes. */
  remove(accountId: string): Promise<void>;
  /** Ten new recovery codes (in clear this once), only with TOTP enrolled; `undefined` without. */
  regenerateRecoveryCodes(accountId: string): Promise<string[] | undefined>;
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

/** Outcome of confirming an enrolment: the recovery codes to show once, or why not. */
export type EnrolmentResult = { kind: 'enrolled'; recoveryCodes: string[] } | Exclude<FactorCheck, { kind: 'ok' }>;
