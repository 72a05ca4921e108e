import type { Context, Middleware } from 'koa';
import { mountedPath } from '../../core/mount-path.js';
import { loginResult, type Amr } from '../../accounts/mfa/policy.js';
import { formBody, formField, parseForm } from '../../http/pages.js';
import { uiOf } from '../../ui/ui.js';
import {
  detailsOf,
  finishInteraction,
  interactionCsrf,
  loadInteraction,
  requirePrompt,
  type Details,
  type InteractionActionDeps,
  type SignInMethod,
} from '../../oidc/interaction/common.js';
import { showLogin } from '../../oidc/interaction/login.js';
import type { PasskeyService } from './passkey-service.js';
import { passkeySecondFactor, passkeySignIn, secondFactorPage } from './views.js';

/** The challenge binding of a sign-in's passkey ceremonies: its interaction. */
export function passkeyBinding(details: Details): string {
  return `interaction:${details.uid}`;
}

/** Largest credential JSON we accept from the form. */
const MAX_CREDENTIAL_JSON = 12_000;

/**
 * `POST /interaction/:uid/passkey`: a passkey assertion (WebAuthn Level 3 §7.2) for this interaction's challenge,
 * either a passwordless sign-in (discoverable credential, user verification required) or the second factor of the
 * second sign-in step (the sign-in's `secondStep` point) after the password. Ends the login prompt through the MFA
 * policy's `loginResult`,
 * with `amr` `hwk`/`swk` (+ `user`, + `pwd`) and `mfa`, `acr` `urn:portcullis:mfa` (RFC 8176). Counted under the
 * per-IP login limit. Not routed when passkeys are off (404).
 */
export function passkeyLoginActions(deps: InteractionActionDeps, service: PasskeyService): Middleware[] {
  return [
    parseForm,
    loadInteraction(deps.provider),
    interactionCsrf(deps.csrf),
    requirePrompt('login', 'This sign-in step is already complete.'),
    async function checkPasskey(ctx: Context) {
      const details = detailsOf(ctx);
      const step = deps.secondStep;
      const pending = await step?.of(deps, details);
      const again = (status: number, text: string) =>
        pending?.stage === 'second-factor'
          ? step!.show(ctx, deps, details, pending, status, text)
          : showLogin(ctx, deps, details, status, { text });
      const { t } = uiOf(ctx);
      const limit = await deps.limits.loginAttemptFromIp(ctx.ip);
      if (!limit.allowed) {
        ctx.set('Retry-After', String(limit.retryAfterSeconds));
        return again(429, t.t('login.tooMany'));
      }
      const credential = formField(formBody(ctx), 'credential', MAX_CREDENTIAL_JSON);
      const checkedAt = Date.now();
      const result = await service.authenticate(passkeyBinding(details), credential);
      if (!result.ok) {
        return again(
          result.reason === 'expired' ? 400 : 401,
          t.t(result.reason === 'expired' ? 'passkey.login.expired' : 'passkey.login.refused'),
        );
      }
      const { account, amr } = result.value;
      if (pending) {
        // A second step is pending for one account: only that account's passkey ends it (the password was theirs).
        if (pending.accountId !== account.id) return again(401, t.t('passkey.login.refused'));
        const passed = amr.filter((m): m is Amr => m === 'hwk' || m === 'swk' || m === 'user');
        return step!.finish(ctx, deps, details, pending, passed);
      }
      if (!account.emailVerified && deps.requireVerifiedEmail) {
        await deps.flows.resendVerification(ctx, account, details.uid);
        return showLogin(ctx, deps, details, 403, 'login.confirmFirst');
      }
      await finishInteraction(ctx, details, { login: loginResult(account.id, amr as Amr[], checkedAt) }, false);
    },
  ];
}

/**
 * The passkey sign-in on the login page (the sign-in's `signIn` extension point): a sign-in challenge bound to
 * the interaction, the block with its button and autofill (`passkeySignIn`), and `POST /interaction/:uid/passkey`.
 * With `secondFactor` (`passkeys.secondFactor`) also the second step of an account with at least one passkey: its
 * button below the TOTP code form, or the whole step (`secondFactorPage`) without TOTP.
 */
export function passkeySignInMethod(service: PasskeyService, secondFactor: boolean): SignInMethod {
  return {
    secondStep: secondFactor
      ? {
          has: async (accountId) => (await service.list(accountId)).length > 0,
          async prepare(ctx, details, pending, { scope, csrfToken }) {
            const requestOptions = await service.authenticationOptions(passkeyBinding(details), {
              purpose: 'second-factor',
              accountId: pending.accountId,
              amr: pending.methods as Amr[],
            });
            const view = { action: `${scope}/passkey`, csrfToken, requestOptions, mount: mountedPath(ctx, '') };
            return {
              block: (nonce, ui) => passkeySecondFactor({ nonce, ui, ...view }),
              page: (nonce, ui, error) => secondFactorPage({ nonce, ui, ...view, error }),
            };
          },
        }
      : undefined,
    actions: (deps) => ({ passkey: passkeyLoginActions(deps, service) }),
    async loginBlock(ctx: Context, details, { scope, csrfToken }) {
      const requestOptions = await service.authenticationOptions(passkeyBinding(details), { purpose: 'login' });
      const mount = mountedPath(ctx, '');
      return (nonce, ui) =>
        passkeySignIn({ nonce, ui, action: `${scope}/passkey`, csrfToken, requestOptions, conditional: true, mount });
    },
  };
}
