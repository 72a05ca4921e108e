import type { InputProblem } from './use-cases/services.js';

export { MAX_EMAIL_LENGTH } from '../core/email-address.js';

/** Longest accepted password in characters; longer input is refused, never truncated. */
export const MAX_PASSWORD_LENGTH = 256;

/**
 * Why `password` is not acceptable (too short or too long, counted in Unicode code points), or `undefined`
 * when it is. `minLength` is `selfService.passwordMinLength`.
 */
export function passwordProblem(password: string, minLength: number): InputProblem | undefined {
  if ([...password].length < minLength) return { key: 'account.invalid.passwordShort', params: { min: minLength } };
  if ([...password].length > MAX_PASSWORD_LENGTH)
    return { key: 'account.invalid.passwordLong', params: { max: MAX_PASSWORD_LENGTH } };
  return undefined;
}
