import type { Next } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { PortcullisError } from '../core/errors.js';
import { raw } from '../ui/html.js';
import { setPageSecurityHeaders } from '../http/security-headers.js';
import { useUiLocales } from '../ui/ui.js';
import { logoutPage, signedOutPage } from './views.js';

/** The `<form id="op.logoutForm">` oidc-provider passes in: its own action and CSRF (`xsrf`) field, nothing else. */
const PROVIDER_FORM = new RegExp(
  '^<form id="op\\.logoutForm" method="post" action="[^"<>]+">' +
    '<input type="hidden" name="xsrf" value="[\\w-]+"/></form>$',
);

function clientLabel(ctx: KoaContextWithOIDC): string | undefined {
  return ctx.oidc.client?.clientName ?? ctx.oidc.client?.clientId;
}

/** The request's UI, with the logout request's `ui_locales` (RP-Initiated Logout 1.0 §2) first. */
function uiFor(ctx: KoaContextWithOIDC) {
  return useUiLocales(ctx as never, (ctx.oidc.params as { ui_locales?: unknown } | undefined)?.ui_locales);
}

/**
 * `features.rpInitiatedLogout.logoutSource` (OpenID Connect RP-Initiated Logout 1.0 §2): asks the signed-in
 * user to confirm. The POST is protected by oidc-provider's session-bound `xsrf` field; the page gets the same
 * security headers as our other pages. Buttons: `logout=yes` signs out, the other keeps the session.
 */
export async function logoutSource(ctx: KoaContextWithOIDC, form: string): Promise<void> {
  if (!PROVIDER_FORM.test(form)) throw new PortcullisError('ERR_INTERNAL', 'unexpected logout form from oidc-provider');
  const nonce = setPageSecurityHeaders(ctx as never);
  ctx.type = 'html';
  ctx.body = logoutPage({ nonce, ui: uiFor(ctx), clientName: clientLabel(ctx), form: raw(form) });
}

/** The client's home page (`client_uri`) when it is an http(s) URL. */
function clientHome(ctx: KoaContextWithOIDC): string | undefined {
  const uri = (ctx.oidc.client as { clientUri?: string } | undefined)?.clientUri;
  return uri && URL.canParse(uri) && /^https?:$/.test(new URL(uri).protocol) ? uri : undefined;
}

/**
 * `features.rpInitiatedLogout.postLogoutSuccessSource`: shown when no `post_logout_redirect_uri` applies. Links
 * onward to the client's `client_uri`, else to `ui.homeUrl`.
 */
export async function postLogoutSuccessSource(ctx: KoaContextWithOIDC): Promise<void> {
  const nonce = setPageSecurityHeaders(ctx as never);
  const ui = uiFor(ctx);
  const client = clientLabel(ctx);
  const home = clientHome(ctx);
  const onward =
    home && client
      ? { href: home, text: ui.t.t('signedOut.backTo', { client }) }
      : ui.settings.homeUrl
        ? { href: ui.settings.homeUrl, text: ui.t.t('signedOut.home', { product: ui.settings.productName }) }
        : undefined;
  // oidc-provider names the client here after "Yes, sign me out" (see nameClientAfterLogout) and after "No, stay
  // signed in"; only the second keeps the session cookie.
  const stillSignedIn = client !== undefined && ctx.cookies.get(ctx.oidc.provider.cookieName('session')) !== undefined;
  ctx.type = 'html';
  ctx.body = signedOutPage({ nonce, ui, clientName: client, stillSignedIn, onward });
}

/**
 * On `/session/end/confirm`. After "Yes, sign me out" oidc-provider sends the browser to the "signed out" page
 * without the client (it forwards `client_id` only when the session stays), so that page could neither name the
 * client that asked nor link to its `client_uri`. This adds that client (the logout request's `id_token_hint`
 * audience or `client_id`, which oidc-provider keeps in the session's logout state and loads on confirm) to the
 * redirect. A client id is no secret, and the page takes `client_id` from anyone already. Redirects to a
 * `post_logout_redirect_uri` are left alone.
 */
export async function nameClientAfterLogout(ctx: KoaContextWithOIDC, next: Next): Promise<void> {
  await next();
  const clientId = ctx.oidc?.client?.clientId;
  if (ctx.status !== 303 || clientId === undefined) return;
  const success = ctx.oidc.urlFor('end_session_success');
  if (ctx.response.get('Location') === success)
    ctx.redirect(`${success}?${new URLSearchParams({ client_id: clientId })}`);
}
