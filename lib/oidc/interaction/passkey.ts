import type { Context, Middleware } from 'koa';
import { PASSKEY_TEXT, secondFactorPage } from '../../accounts/passkeys/views.js';
import { formBody, formField, parseForm, renderPage } from '../../http/pages.js';
import {
  detailsOf, finishInteraction, interactionCsrf, interactionPath, loadInteraction, refuse, requirePrompt,
  type Details, type InteractionActionDeps,
} from './common.js';
import { showLogin } from './login.js';

/** Largest credential JSON we accept from the form. */
const MAX_CREDENTIAL_JSON = 12_000;

/** The challenge binding of a sign-in: its interaction. */
export function passkeyBinding(details: Details): string {
  return `interaction:${details.uid}`;
}

/**
 * The second-factor page: after `amr` (the factors already passed, e.g. `['pwd']`), the account's own passkeys,
 * with a challenge bound to this interaction that remembers who passed what.
 */
export async function showSecondFactor(ctx: Context, deps: InteractionActionDeps, details: Details, accountId: string, amr: string[], status = 200, error?: string): Promise<void> {
  const scope = interactionPath(details);
  const csrfToken = deps.csrf.issue(ctx, scope);
  const requestOptions = await deps.passkeys!.service.authenticationOptions(passkeyBinding(details), { purpose: 'second-factor', accountId, amr });
  renderPage(ctx, status, (nonce) => secondFactorPage({ nonce, action: `${scope}/passkey`, csrfToken, requestOptions, error }));
}

/**
 * `POST /interaction/:uid/passkey`: a passkey assertion (WebAuthn Level 3 §7.2) for this interaction's challenge,
 * either a passwordless sign-in (discoverable credential, user verification required) or the second factor after
 * the password. Ends the login prompt as the password login does, with `amr` `hwk`/`swk` (+ `user`, + `pwd`) and
 * `mfa`, `acr` `urn:portcullis:mfa` (RFC 8176). Counted under the per-IP login limit. 404 when passkeys are off.
 */
export function passkeyLoginActions(deps: InteractionActionDeps): Middleware[] {
  return [
    parseForm,
    loadInteraction(deps.provider),
    interactionCsrf(deps.csrf),
    requirePrompt('login', 'This sign-in step is already complete.'),
    async function checkPasskey(ctx: Context) {
      const details = detailsOf(ctx);
      if (!deps.passkeys) return refuse(ctx, 404, 'invalid_request', 'Passkeys are not enabled on this server.');
      const limit = await deps.limits.loginAttemptFromIp(ctx.ip);
      if (!limit.allowed) {
        ctx.set('Retry-After', String(limit.retryAfterSeconds));
        return showLogin(ctx, deps, details, 429, 'Too many sign-in attempts. Please try again later.');
      }
      const credential = formField(formBody(ctx), 'credential', MAX_CREDENTIAL_JSON);
      const result = await deps.passkeys.service.authenticate(passkeyBinding(details), credential);
      if (!result.ok) {
        const text = result.reason === 'expired' ? PASSKEY_TEXT.login.expired : PASSKEY_TEXT.login.refused;
        return showLogin(ctx, deps, details, result.reason === 'expired' ? 400 : 401, text);
      }
      const { account, amr, acr } = result.value;
      if (!account.emailVerified && deps.requireVerifiedEmail) {
        await deps.flows.resendVerification(ctx, account, details.uid);
        return showLogin(ctx, deps, details, 403, 'Confirm your e-mail address first: we have sent you a new confirmation link.');
      }
      await finishInteraction(ctx, details, { login: { accountId: account.id, amr, acr } }, false);
    },
  ];
}
