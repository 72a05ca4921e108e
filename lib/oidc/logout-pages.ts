import type { KoaContextWithOIDC } from 'oidc-provider';
import { PortcullisError } from '../core/errors.js';
import { html, raw } from '../http/html.js';
import { setPageSecurityHeaders } from '../http/security-headers.js';
import { layout } from '../http/pages.js';

/** The `<form id="op.logoutForm">` oidc-provider passes in: its own action and CSRF (`xsrf`) field, nothing else. */
const PROVIDER_FORM = /^<form id="op\.logoutForm" method="post" action="[^"<>]+"><input type="hidden" name="xsrf" value="[\w-]+"\/><\/form>$/;

function clientLabel(ctx: KoaContextWithOIDC): string | undefined {
  return ctx.oidc.client?.clientName ?? ctx.oidc.client?.clientId;
}

/**
 * `features.rpInitiatedLogout.logoutSource` (OpenID Connect RP-Initiated Logout 1.0 §2): asks the signed-in
 * user to confirm. The POST is protected by oidc-provider's session-bound `xsrf` field; the page gets the same
 * security headers as our other pages. Buttons: `logout=yes` signs out, the other keeps the session.
 */
export async function logoutSource(ctx: KoaContextWithOIDC, form: string): Promise<void> {
  if (!PROVIDER_FORM.test(form)) throw new PortcullisError('ERR_INTERNAL', 'unexpected logout form from oidc-provider');
  const nonce = setPageSecurityHeaders(ctx as never);
  const client = clientLabel(ctx);
  ctx.type = 'html';
  ctx.body = layout(nonce, 'Sign out', html`<h1>Sign out?</h1>
<p>${client ? html`<strong>${client}</strong> asks to sign you out of this server.` : 'Do you want to sign out of this server?'}</p>
${raw(form)}
<button type="submit" form="op.logoutForm" name="logout" value="yes" autofocus>Yes, sign me out</button><button type="submit" form="op.logoutForm" class="secondary">No, stay signed in</button>`);
}

/** `features.rpInitiatedLogout.postLogoutSuccessSource`: shown when no `post_logout_redirect_uri` applies. */
export async function postLogoutSuccessSource(ctx: KoaContextWithOIDC): Promise<void> {
  const nonce = setPageSecurityHeaders(ctx as never);
  const client = clientLabel(ctx);
  ctx.type = 'html';
  ctx.body = layout(nonce, 'Signed out', html`<h1>Signed out</h1>
<p id="message">You are signed out${client ? html` of <strong>${client}</strong> and this server` : ''}.</p>`);
}
