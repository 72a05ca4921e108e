import { html, type SafeHtml } from '../ui/html.js';
import { layout } from '../http/pages.js';
import type { ConsentView, LoginView, LogoutView, PageUi, SignedOutView } from '../ui/templates.js';
import { pageBody, uiOf } from '../ui/ui.js';

export type { ConsentView, LoginView, LogoutView, SignedOutView } from '../ui/templates.js';

/** The UI of pages rendered without a request (defaults, English). */
const noRequestUi = (): PageUi => uiOf({ req: { headers: {} } as never });

/** Who the client is: its name in bold, and the domain it sends the user back to in small print. */
function clientLabel(name: string, domain?: string): SafeHtml {
  return html`<strong>${name}</strong>${
    domain ? html` <span class="small" id="client-domain-inline">(${domain})</span>` : ''
  }`;
}

/**
 * The login form: fields `email` (`autocomplete="username"`) and `password` (`current-password`), the hidden
 * `csrf` token, and a Cancel form posting to `cancelAction`.
 */
export function loginPage(v: LoginView): string {
  const ui = v.ui ?? noRequestUi();
  const { t } = ui;
  const focus = v.focusPassword ? html` autofocus` : '';
  const described = v.error ? html` aria-describedby="login-error"` : '';
  const passwordAttributes = html` autocomplete="current-password"${focus}${described}`;
  const passwordInput = html`<input id="password" type="password" name="password" required${passwordAttributes}>`;
  const body = pageBody(
    ui,
    'login',
    v,
    () => html`<h1>${t.t('login.title')}</h1>
<p>${t.html('login.continueTo', { client: clientLabel(v.clientName, v.clientDomain) })}</p>
${v.error ? html`<p class="error" role="alert" id="login-error">${v.error}</p>` : ''}
<form method="post" action="${v.action}" autocomplete="on">
<input type="hidden" name="csrf" value="${v.csrfToken}">
<label for="email">${t.t('login.email')}</label><input id="email" type="email" name="email" required autocomplete="${
      v.passkey ? 'username webauthn' : 'username'
    }"${v.focusPassword ? '' : html` autofocus`} value="${v.email ?? ''}">
<label for="password">${t.t('login.password')}</label>${passwordInput}
<button type="submit">${t.t('login.submit')}</button>
</form>
${v.passkey ?? ''}
${
  v.cancelAction
    ? html`<form method="post" action="${v.cancelAction}" class="inline"><input type="hidden" name="csrf" value="${
        v.csrfToken
      }"><button type="submit" id="cancel" class="secondary">${t.t('login.cancel')}</button></form>`
    : ''
}
${v.resetUrl ? html`<p><a id="reset" href="${v.resetUrl}">${t.t('login.forgot')}</a></p>` : ''}
${
  v.signupUrl
    ? html`<p>${t.t('login.noAccount')} <a id="signup" href="${v.signupUrl}">${t.t('login.createAccount')}</a></p>`
    : ''
}`,
  );
  return layout(v.nonce, t.t('login.title'), body, ui);
}

/** The consent form: one form, two submit buttons (`decision=allow` / `decision=deny`). */
export function consentPage(v: ConsentView): string {
  const ui = v.ui ?? noRequestUi();
  const { t } = ui;
  const denyText = t.t('consent.deny');
  const deny = html`<button type="submit" name="decision" value="deny" class="secondary">${denyText}</button>`;
  const body = pageBody(
    ui,
    'consent',
    v,
    () => html`${
      v.logoUri
        ? html`<img id="client-logo" src="${v.logoUri}" alt="" width="64" height="64" referrerpolicy="no-referrer">`
        : ''
    }<h1>${t.t('consent.title')}</h1>
<p>${t.html('consent.asks', {
      client: html`<strong>${v.clientName}</strong>`,
      account: html`<strong>${v.accountEmail}</strong>`,
    })}</p>
<ul>${v.scopes.map((s) => html`<li>${s.description} <code>${s.name}</code></li>`)}</ul>
${
  v.clientDomain
    ? html`<p class="small" id="client-domain">${t.html('consent.site', {
        domain: html`<strong>${v.clientDomain}</strong>`,
      })}</p>`
    : ''
}
<form method="post" action="${v.action}">
<input type="hidden" name="csrf" value="${v.csrfToken}">
<button type="submit" name="decision" value="allow">${t.t('consent.allow')}</button>${deny}
</form>
${
  v.switchAccountUrl
    ? html`<p class="small">${t.t('consent.notYou')} <a id="switch-account" href="${
        v.switchAccountUrl
      }">${t.t('consent.switch')}</a></p>`
    : ''
}`,
  );
  return layout(v.nonce, t.t('consent.title'), body, ui);
}

/** The logout confirmation: `logout=yes` signs out, the other button keeps the session. */
export function logoutPage(v: LogoutView): string {
  const { ui } = v;
  const { t } = ui;
  const product = ui.settings.productName;
  const stay = html`<button type="submit" form="op.logoutForm" class="secondary">${t.t('logout.no')}</button>`;
  const body = pageBody(
    ui,
    'logout',
    v,
    () => html`<h1>${t.t('logout.title')}</h1>
<p>${
      v.clientName
        ? t.html('logout.clientAsks', { client: html`<strong>${v.clientName}</strong>`, product })
        : t.t('logout.question', { product })
    }</p>
${v.form}
<button type="submit" form="op.logoutForm" name="logout" value="yes" autofocus>${t.t('logout.yes')}</button>${stay}`,
  );
  return layout(v.nonce, t.t('logout.title'), body, ui);
}

/** "Signed out", with a link onward when there is somewhere to go. */
export function signedOutPage(v: SignedOutView): string {
  const { ui } = v;
  const { t } = ui;
  const product = ui.settings.productName;
  const body = pageBody(
    ui,
    'signedOut',
    v,
    () => html`<h1>${t.t('signedOut.title')}</h1>
<p id="message">${
      v.clientName
        ? t.html(v.stillSignedIn ? 'signedOut.messageClientOnly' : 'signedOut.messageClient', {
            client: html`<strong>${v.clientName}</strong>`,
            product,
          })
        : t.t('signedOut.message', { product })
    }</p>
${
  v.onward
    ? html`<p><a id="onward" href="${v.onward.href}">${v.onward.text}</a></p>`
    : html`<p>${t.t('signedOut.close')}</p>`
}`,
  );
  return layout(v.nonce, t.t('signedOut.title'), body, ui);
}
