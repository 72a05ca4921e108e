import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { formBody, formField, renderPage } from '../../http/pages.js';
import { mountedPath } from '../../core/mount-path.js';
import { accountChange, requireSignIn, type AccountHomeDeps, type SignedIn } from '../../accounts/account-home.js';
import { signedInForm } from '../../accounts/home/common.js';
import type { FactorChanges } from '../../accounts/mfa/factor-changes.js';
import { PASSKEY_SCRIPT } from './browser-script.js';
import { MAX_PASSKEY_NAME, type PasskeyRefusal, type PasskeyService } from './passkey-service.js';
import type { PlainKey } from '../../ui/i18n.js';
import { uiOf } from '../../ui/ui.js';
import { PASSKEY_PATHS } from './paths.js';
import { passkeyListPage } from './views.js';

/** What {@link passkeyAccountRoutes} needs. */
export interface PasskeyRouteDeps {
  /** The account page's deps: its sign-in guard (with the re-authentication window) guards these pages too. */
  home: AccountHomeDeps;
  passkeys: PasskeyService;
  /** Adding or deleting a passkey signs the other sessions out and mails a notice, as a TOTP change does. */
  changes: FactorChanges;
}

/** The CSRF scope of the passkey forms (under the issuer's path). */
const CSRF_SCOPE = PASSKEY_PATHS.list;
const MAX_CREDENTIAL_JSON = 12_000;
const NOTICES = {
  added: 'passkey.list.added',
  renamed: 'passkey.list.renamed',
  removed: 'passkey.list.removed',
} as const satisfies Record<string, PlainKey>;
const REFUSALS: Record<PasskeyRefusal, PlainKey> = {
  expired: 'passkey.list.expired',
  malformed: 'passkey.list.noCredential',
  'unknown-credential': 'passkey.list.notVerified',
  'not-verified': 'passkey.list.notVerified',
  taken: 'passkey.list.taken',
};

const signedInOf = (ctx: Context) => ctx.state.signedIn as SignedIn;
/** The challenge binding of the account page: this browser's oidc-provider session. */
const bindingOf = (ctx: Context) => `session:${signedInOf(ctx).sessionId}`;

/**
 * The list page renderer of {@link passkeyAccountRoutes}: the page with the message `error` (a `passkey.list.*` key)
 * when a change was refused, or the notice named by `?done=` after a change went through.
 */
function listPageOf({ passkeys, home }: PasskeyRouteDeps) {
  return async function showList(ctx: Context, status = 200, error?: PlainKey): Promise<void> {
    const { account } = signedInOf(ctx);
    const [list, creationOptions] = await Promise.all([
      passkeys.list(account.id),
      passkeys.registrationOptions(account, bindingOf(ctx)),
    ]);
    const done =
      typeof ctx.query.done === 'string' && Object.hasOwn(NOTICES, ctx.query.done)
        ? NOTICES[ctx.query.done as keyof typeof NOTICES]
        : undefined;
    const { t } = uiOf(ctx);
    const csrfToken = home.csrf.issue(ctx, signedInForm(ctx, CSRF_SCOPE));
    renderPage(ctx, status, (nonce, ui) =>
      passkeyListPage({
        nonce,
        ui,
        csrfToken,
        email: account.email,
        passkeys: list,
        creationOptions,
        notice: error || !done ? undefined : t.t(done),
        error: error && t.t(error),
        mount: mountedPath(ctx, ''),
      }),
    );
  };
}

/** The POST/redirect/GET answer of a change that went through: a 303 to the list, which shows `done`. */
function backToList(ctx: Context, done: keyof typeof NOTICES): void {
  ctx.status = 303;
  ctx.redirect(`${mountedPath(ctx, PASSKEY_PATHS.list)}?done=${done}`);
}

/** `GET /account/passkeys/client.js`: the list page's browser script (a constant; cached for 5 minutes). */
function servePasskeyScript(ctx: Context): void {
  ctx.type = 'text/javascript; charset=utf-8';
  ctx.set('Cache-Control', 'public, max-age=300');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
  ctx.body = PASSKEY_SCRIPT;
}

/**
 * `/account/passkeys` (WebAuthn Level 3 §7.1 registration, plus rename and delete) for the user signed in to
 * oidc-provider in this browser (the `/account` guard: a browser without a session is sent to sign in; a change
 * after `mfa.reauthenticateAfterSeconds` signs in again first), and `GET /account/passkeys/client.js`, the browser
 * script. Every form has a CSRF token; every change answers with a 303 back to the list (POST/redirect/GET),
 * which shows what happened. Adding or deleting a passkey goes through {@link FactorChanges}.
 */
export function passkeyAccountRoutes(deps: PasskeyRouteDeps): Middleware {
  const { passkeys, changes, home } = deps;
  const signedIn = requireSignIn(home);
  const change = accountChange(home, CSRF_SCOPE);

  const showList = listPageOf(deps);

  const router = new Router();
  router.get(PASSKEY_PATHS.script, servePasskeyScript);
  router.get(PASSKEY_PATHS.list, signedIn, function showPasskeys(ctx: Context) {
    return showList(ctx);
  });
  router.post(PASSKEY_PATHS.register, ...change, async function registerPasskey(ctx: Context) {
    const body = formBody(ctx);
    const credential = formField(body, 'credential', MAX_CREDENTIAL_JSON);
    if (!credential) return showList(ctx, 400, 'passkey.list.noCredential');
    const result = await passkeys.register(
      signedInOf(ctx).account,
      bindingOf(ctx),
      credential,
      formField(body, 'name', 1000).slice(0, MAX_PASSKEY_NAME),
    );
    if (!result.ok) return showList(ctx, result.reason === 'taken' ? 409 : 400, REFUSALS[result.reason]);
    await changes.changed(signedInOf(ctx).account, 'added', 'a passkey', signedInOf(ctx).sessionId, uiOf(ctx).locale);
    backToList(ctx, 'added');
  });
  router.post(PASSKEY_PATHS.rename, ...change, async function renamePasskey(ctx: Context) {
    const body = formBody(ctx);
    const renamed = await passkeys.rename(
      signedInOf(ctx).account.id,
      formField(body, 'credential_id', 1400),
      formField(body, 'name', 1000),
    );
    if (!renamed) return showList(ctx, 404, 'passkey.list.notFound');
    backToList(ctx, 'renamed');
  });
  router.post(PASSKEY_PATHS.remove, ...change, async function deletePasskey(ctx: Context) {
    const { account, sessionId } = signedInOf(ctx);
    const removed = await passkeys.remove(account.id, formField(formBody(ctx), 'credential_id', 1400));
    if (!removed) return showList(ctx, 404, 'passkey.list.notFound');
    await changes.changed(account, 'removed', 'a passkey', sessionId, uiOf(ctx).locale);
    backToList(ctx, 'removed');
  });
  return router.routes() as unknown as Middleware;
}
