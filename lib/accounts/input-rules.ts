import type { InputProblem } from './use-cases/services.js';

/** Longest accepted password in characters; longer input is refused, never truncated. */
export const MAX_PASSWORD_LENGTH = 256;

/** Longest accepted e-mail address (RFC 5321 §4.5.3.1.3 path limit less the brackets). */
export const MAX_EMAIL_LENGTH = 254;

const EMAIL = /^[^\s@<>()",;:\\]+@[^\s@<>()",;:\\]+\.[^\s@<>()",;:\\]+$/;

/** A plausible mail address: one `@`, a dot in the domain, no spaces or characters that need quoting. */
export function isEmailAddress(value: string): boolean {
  return EMAIL.test(value);
}

/**
 * Why `password` is not acceptable (too short or too long, counted in Unicode code points), or `undefined`
 * when it is. `minLength` is `selfService.passwordMinLength`.
 */
export function passwordProblem(password: string, minLength: number): InputProblem | undefined {
  if ([...password].length < minLength) return { key: 'account.invalid.passwordShort', params: { min: minLength } };
  if ([...password].length > MAX_PASSWORD_LENGTH) return { key: 'account.invalid.passwordLong', params: { max: MAX_PASSWORD_LENGTH } };
  return undefined;
}
