import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type Provider from 'oidc-provider';
import { CsrfGuard } from '../../http/csrf.js';
import { csrfCheck, formBody, formField, parseForm, renderPage } from '../../http/pages.js';
import type { AccountStore } from '../account-store.js';
import { message } from '../actions/common.js';
import { PASSKEY_SCRIPT } from './browser-script.js';
import { MAX_PASSKEY_NAME, type PasskeyRefusal, type PasskeyService } from './passkey-service.js';
import { requireSignedIn, signedInOf } from './session-guard.js';
import { PASSKEY_PATHS, PASSKEY_TEXT, passkeyListPage, signedOutPage } from './views.js';

/** What {@link passkeyAccountRoutes} needs. */
export interface PasskeyRouteDeps {
  provider: Provider;
  accounts: AccountStore;
  passkeys: PasskeyService;
  csrfSecret: string;
}

/** The CSRF cookie path of the passkey forms. */
const CSRF_SCOPE = PASSKEY_PATHS.list;
const MAX_CREDENTIAL_JSON = 12_000;
const NOTICES = { added: PASSKEY_TEXT.list.added, renamed: PASSKEY_TEXT.list.renamed, removed: PASSKEY_TEXT.list.removed } as const;
const REFUSALS: Record<PasskeyRefusal, string> = {
  expired: PASSKEY_TEXT.list.expired,
  malformed: PASSKEY_TEXT.list.noCredential,
  'unknown-credential': PASSKEY_TEXT.list.notVerified,
  'not-verified': PASSKEY_TEXT.list.notVerified,
  taken: PASSKEY_TEXT.list.taken,
};

/** The challenge binding of the account page: this browser's oidc-provider session. */
const bindingOf = (ctx: Context) => `session:${signedInOf(ctx).sessionUid}`;

/**
 * `/account/passkeys` (WebAuthn Level 3 §7.1 registration, plus rename and delete) for the user signed in to
 * oidc-provider in this browser, and `GET /account/passkeys/client.js`, the browser script. Every form has a CSRF
 * token; every change answers with a 303 back to the list (POST/redirect/GET), which shows what happened.
 */
export function passkeyAccountRoutes(deps: PasskeyRouteDeps): Middleware {
  const csrf = new CsrfGuard(deps.csrfSecret);
  const { passkeys } = deps;
  const signedIn = requireSignedIn(deps.provider, deps.accounts, (ctx) => renderPage(ctx, 401, (nonce) => signedOutPage(nonce)));
  const checkCsrf = csrfCheck(csrf, () => CSRF_SCOPE, (ctx) =>
    message(ctx, 403, 'Request refused', 'The form was not submitted from this page (missing or wrong CSRF token). Reload the page and try again.'));

  async function showList(ctx: Context, status = 200, error?: string): Promise<void> {
    const { account } = signedInOf(ctx);
    const [list, creationOptions] = await Promise.all([passkeys.list(account.id), passkeys.registrationOptions(account, bindingOf(ctx))]);
    const done = typeof ctx.query.done === 'string' && ctx.query.done in NOTICES ? NOTICES[ctx.query.done as keyof typeof NOTICES] : undefined;
    const csrfToken = csrf.issue(ctx, CSRF_SCOPE);
    renderPage(ctx, status, (nonce) => passkeyListPage({ nonce, csrfToken, email: account.email, passkeys: list, creationOptions, notice: error ? undefined : done, error }));
  }

  function backToList(ctx: Context, done: keyof typeof NOTICES): void {
    ctx.status = 303;
    ctx.redirect(`${PASSKEY_PATHS.list}?done=${done}`);
  }

  const router = new Router();
  router.get(PASSKEY_PATHS.script, function servePasskeyScript(ctx: Context) {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
    ctx.body = PASSKEY_SCRIPT;
  });
  router.get(PASSKEY_PATHS.list, signedIn, function showPasskeys(ctx: Context) {
    return showList(ctx);
  });
  router.post(PASSKEY_PATHS.register, parseForm, signedIn, checkCsrf, async function registerPasskey(ctx: Context) {
    const body = formBody(ctx);
    const credential = formField(body, 'credential', MAX_CREDENTIAL_JSON);
    if (!credential) return showList(ctx, 400, PASSKEY_TEXT.list.noCredential);
    const result = await passkeys.register(signedInOf(ctx).account, bindingOf(ctx), credential, formField(body, 'name', 1000).slice(0, MAX_PASSKEY_NAME));
    if (!result.ok) return showList(ctx, result.reason === 'taken' ? 409 : 400, REFUSALS[result.reason]);
    backToList(ctx, 'added');
  });
  router.post(PASSKEY_PATHS.rename, parseForm, signedIn, checkCsrf, async function renamePasskey(ctx: Context) {
    const body = formBody(ctx);
    const renamed = await passkeys.rename(signedInOf(ctx).account.id, formField(body, 'credential_id', 1400), formField(body, 'name', 1000));
    if (!renamed) return showList(ctx, 404, PASSKEY_TEXT.list.notFound);
    backToList(ctx, 'renamed');
  });
  router.post(PASSKEY_PATHS.remove, parseForm, signedIn, checkCsrf, async function deletePasskey(ctx: Context) {
    const removed = await passkeys.remove(signedInOf(ctx).account.id, formField(formBody(ctx), 'credential_id', 1400));
    if (!removed) return showList(ctx, 404, PASSKEY_TEXT.list.notFound);
    backToList(ctx, 'removed');
  });
  return router.routes() as unknown as Middleware;
}
