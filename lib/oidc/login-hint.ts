import { interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';
import { mfaCheck } from '../accounts/mfa/policy.js';
import { sameEmailAddress } from '../core/email-address.js';
import type { AccountLookup } from './provider-accounts.js';

/** The reason of the {@link loginHintCheck} prompt (in `details.prompt.reasons`). */
export const LOGIN_HINT_REASON = 'login_hint';

/** The longest `login_hint` taken as an address: what the login form keeps of a typed address (320 characters). */
const MAX_HINT = 320;

/**
 * The request's `login_hint` as this server reads it: the e-mail address the end-user signs in with (the only
 * login identifier here), trimmed; `undefined` when absent, empty or longer than an address can be.
 */
export function loginHintOf(params: { login_hint?: unknown } | undefined): string | undefined {
  const hint = typeof params?.login_hint === 'string' ? params.login_hint.trim() : '';
  return hint && hint.length <= MAX_HINT ? hint : undefined;
}

/**
 * A check of oidc-provider's `login` prompt (OIDC Core §3.1.2.1 `login_hint`): a session whose account's e-mail
 * address is not the hint (one mailbox by `sameEmailAddress`, the rule the login form applies: case, an IDN
 * domain's Unicode or punycode form, a trailing dot; or the same text case-insensitively) prompts for a sign-in, so the
 * client that asked for
 * another user is never answered with this one's code. With `prompt=none` that is `login_required` (§3.1.2.6), as
 * oidc-provider answers an `id_token_hint` naming another subject; without it, the login page, its address field
 * filled with the hint. oidc-provider itself only passes `login_hint` on to the login page. The account's own
 * subject identifier (`sub`, compared exactly) counts as naming it too: relying parties written for other OPs send
 * the `sub` they already hold, and a subject names one account as surely as its address.
 *
 * The hint is not looked up: any address other than the session's (another account's or one no account has)
 * gets the same answer, so the check tells nothing about which addresses have accounts. Once the end-user has
 * signed in within this authorization request (`result.login`), the choice made on the login page stands, even
 * when it is not the hinted account: the hint is a hint, and asking again would loop.
 */
export function loginHintCheck(accounts: AccountLookup) {
  return new interactionPolicy.Check(
    LOGIN_HINT_REASON,
    'login_hint does not name the signed-in account',
    'login_required',
    async (ctx: KoaContextWithOIDC) => {
      const { oidc } = ctx;
      // No session: oidc-provider's own no_session check asks for the sign-in.
      const accountId = oidc.session?.accountId;
      const raw = oidc.params?.login_hint;
      if (!accountId || oidc.result?.login || typeof raw !== 'string' || !raw.trim())
        return interactionPolicy.Check.NO_NEED_TO_PROMPT;
      const hint = loginHintOf(oidc.params);
      const account = await accounts.findById(ctx, accountId);
      // The account's own subject is also accepted, exactly (relying parties built for other OPs send `sub` as the
      // hint).
      const same =
        hint !== undefined &&
        account !== undefined &&
        (hint === account.id ||
          sameEmailAddress(hint, account.email) ||
          hint.toLowerCase() === account.email.toLowerCase());
      return same ? interactionPolicy.Check.NO_NEED_TO_PROMPT : interactionPolicy.Check.REQUEST_PROMPT;
    },
  );
}

/**
 * The interaction policy: oidc-provider's default, with {@link loginHintCheck} and, when `mfa` is on, the MFA
 * step-up check ({@link mfaCheck}) added to the `login` prompt, in that order: a `prompt=none` request for another
 * user is `login_required` whatever else it asks for (the first failing check names the error).
 */
export function interactionPolicyOf(accounts: AccountLookup, mfa: boolean) {
  const policy = interactionPolicy.base();
  const login = policy.get('login')!;
  login.checks.add(loginHintCheck(accounts));
  if (mfa) login.checks.add(mfaCheck());
  return policy;
}
