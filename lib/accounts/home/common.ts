import type { Context } from 'koa';
import type { Account } from '../../core/account-store.js';
import type { CsrfForm } from '../../http/csrf.js';
import { html, raw, type SafeHtml } from '../../ui/html.js';
import { renderPage } from '../../http/pages.js';
import { mountedPath } from '../../core/mount-path.js';
import { HOME_PATHS } from '../paths.js';
import { messagePage } from '../views.js';

/**
 * The signed-in browser of an account page (`ctx.state.signedIn`): its account, provider session id (the `_session`
 * cookie value, renewed at each sign-in through oidc-provider), the session's `uid` (the same for the session's
 * whole life), sign-in time (epoch s) and `acr`.
 */
export interface SignedIn {
  account: Account;
  sessionId: string;
  sessionUid: string;
  loginTs: number;
  acr?: string;
}

/**
 * The CSRF form of a signed-in account page: `scope` (under the issuer's path) bound to the browser's provider
 * session by its `uid` and account, so a token minted in another session (the attacker's own) does not verify in
 * this one. The uid, not the cookie value: oidc-provider renews the cookie whenever the browser signs in to a
 * client, and a page open in another tab must keep working.
 */
export function signedInForm(ctx: Context, scope: string): CsrfForm {
  const { sessionUid, account } = ctx.state.signedIn as SignedIn;
  return { scope: mountedPath(ctx, scope), binding: `session:${sessionUid}:${account.id}` };
}

/** A titled section of the account page. */
export function section(title: string, body: SafeHtml, id?: string): SafeHtml {
  return html`<section${id ? html` id="${id}"` : ''}><h2>${title}</h2>${body}</section>`;
}

/** A one-button POST form carrying the CSRF token and `fields` as hidden inputs; `id` is the button's. */
export function button(
  action: string,
  csrfToken: string,
  label: string,
  id: string,
  secondary = false,
  fields: Record<string, string> = {},
): SafeHtml {
  const hidden = [['csrf', csrfToken], ...Object.entries(fields)].map(
    ([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`,
  );
  const submit = html`<button type="submit" id="${id}"${secondary ? raw(' class="secondary"') : ''}>${label}</button>`;
  return html`<form method="post" action="${action}">${hidden}${submit}</form>`;
}

/**
 * Answers 200 (or `status`) with a message page (`#message`) titled `title` and a link back to the account page
 * (`#back`) labelled `back`.
 */
export function finished(ctx: Context, title: string, text: string, back: string, status = 200): void {
  renderPage(ctx, status, (nonce, ui) =>
    messagePage(nonce, title, text, {
      error: status >= 400,
      links: [{ id: 'back', href: mountedPath(ctx, HOME_PATHS.home), text: back }],
      ui,
    }),
  );
}
