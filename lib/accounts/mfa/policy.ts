import { interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';

/**
 * The MFA policy: when a sign-in needs a second factor, and what the ID token then says (`acr`, OIDC Core §2;
 * `amr`, RFC 8176 §2). A second factor is needed when
 * - the account has one enrolled (per account: it is always asked for after the password),
 * - the client was registered with `require_mfa: true` (per client), or
 * - the request asks for it: `acr_values` naming only {@link ACR_MFA} (per request; OIDC Core §3.1.2.1), or an
 *   essential `acr` claim request, which oidc-provider checks itself against the session's `acr`.
 * `max_age` and `prompt=login` ask for a new sign-in, which then follows the same rules.
 */

/** `acr` of a sign-in with one factor (a password). */
export const ACR_PWD = 'urn:portcullis:pwd';
/** `acr` of a sign-in with two factors (password and TOTP or recovery code; or a user-verified passkey). */
export const ACR_MFA = 'urn:portcullis:mfa';
/** The `acr` values this server issues (discovery `acr_values_supported`). */
export const ACR_VALUES = [ACR_PWD, ACR_MFA] as const;

/** Authentication methods of RFC 8176 §2 this server reports. */
export type Amr = 'pwd' | 'otp' | 'hwk' | 'swk' | 'user' | 'mfa';

/**
 * The `login` result of an interaction: the account, `amr` (with `mfa` for two factors) and the matching `acr`, and
 * `firstFactorAt` (epoch ms), when the sign-in's first factor (password or passkey) was checked: a sign-in whose
 * first factor is older than the account's last password or address change is not resumed
 * (lib/oidc/stale-sign-in.ts). A step-up of a signed-in session has none: it keeps that session's sign-in.
 */
export function loginResult(
  accountId: string,
  methods: readonly Amr[],
  firstFactorAt?: number,
): { accountId: string; amr: string[]; acr: string; firstFactorAt?: number } {
  const amr = [...new Set(methods)];
  const factors = new Set(amr.filter((m) => m !== 'user' && m !== 'mfa'));
  const mfa = factors.size >= 2 || amr.includes('mfa');
  if (mfa && !amr.includes('mfa')) amr.push('mfa');
  return { accountId, amr, acr: mfa ? ACR_MFA : ACR_PWD, ...(firstFactorAt === undefined ? {} : { firstFactorAt }) };
}

/**
 * Whether the request's `acr_values` accept only a two-factor sign-in (the known values it lists exclude
 * {@link ACR_PWD}).
 */
export function mfaRequested(acrValues: unknown): boolean {
  if (typeof acrValues !== 'string') return false;
  const wanted = acrValues.split(' ').filter((v) => (ACR_VALUES as readonly string[]).includes(v));
  return wanted.length > 0 && !wanted.includes(ACR_PWD);
}

/** Whether a client's metadata carries `require_mfa: true`. */
export function clientRequiresMfa(client: unknown): boolean {
  return (client as { require_mfa?: unknown } | undefined)?.require_mfa === true;
}

/** What comes after a correct password. */
export type NextStep = 'done' | 'second-factor' | 'enrol';

/**
 * The step after the first factor: the second factor when the account has one; enrolment when the client or the
 * request needs two factors and the account has none yet; else done with one factor.
 */
export function afterFirstFactor(input: {
  enrolled: boolean;
  clientRequiresMfa: boolean;
  requested: boolean;
}): NextStep {
  if (input.enrolled) return 'second-factor';
  return input.clientRequiresMfa || input.requested ? 'enrol' : 'done';
}

/** The reason of the {@link mfaCheck} prompt (in `details.prompt.reasons`). */
export const MFA_REASON = 'mfa_required';

/**
 * A check of oidc-provider's `login` prompt: a signed-in session whose `acr` is not {@link ACR_MFA}, for a client
 * with `require_mfa` or a request whose `acr_values` want two factors, prompts again (the step-up: our login page
 * then asks only for the second factor). With `prompt=none` the client gets `unmet_authentication_requirements`
 * (OIDC Core 1.0 incorporating errata set 2, §3.1.2.6).
 */
export function mfaCheck() {
  return new interactionPolicy.Check(
    MFA_REASON,
    'a second authentication factor is required',
    'unmet_authentication_requirements',
    (ctx: KoaContextWithOIDC) => {
      const { oidc } = ctx;
      if (!oidc.session?.accountId) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
      if (oidc.result?.login && (oidc.result.login as { acr?: string }).acr === ACR_MFA)
        return interactionPolicy.Check.NO_NEED_TO_PROMPT;
      if (oidc.session.acr === ACR_MFA) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
      const wanted = clientRequiresMfa(oidc.client) || mfaRequested(oidc.params?.acr_values);
      return wanted ? interactionPolicy.Check.REQUEST_PROMPT : interactionPolicy.Check.NO_NEED_TO_PROMPT;
    },
  );
}
