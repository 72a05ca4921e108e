import { html, type SafeHtml } from '../../ui/html.js';
import { layout } from '../../http/pages.js';
import type { StoredPasskey } from '../../core/account-store.js';
import type { MessageKey } from '../../ui/i18n.js';
import type { PageUi, PasskeyPageView } from '../../ui/templates.js';
import { pageBody } from '../../ui/ui.js';
import { HOME_PATHS } from '../../accounts/paths.js';
import { PASSKEY_PATHS } from './paths.js';
import './messages.js'; // the passkey.* messages these views show

/** The messages the page script shows when the browser's passkey call fails, by the error's kind. */
function scriptMessages(ui: PageUi, creating: boolean): string {
  const { t } = ui;
  return JSON.stringify({
    cancelled: t.t('passkey.script.cancelled'),
    failed: t.t(creating ? 'passkey.script.createFailed' : 'passkey.script.failed'),
    ...(creating ? { exists: t.t('passkey.script.exists') } : {}),
  });
}

function scriptTag(nonce: string, mount = ''): SafeHtml {
  return html`<script nonce="${nonce}" src="${mount + PASSKEY_PATHS.script}" defer></script>`;
}

function date(ms: number | undefined, never: string): string {
  return ms ? new Date(ms).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : never;
}

export interface PasskeyListView {
  nonce: string;
  /** The request's language and branding. */
  ui: PageUi;
  csrfToken: string;
  email: string;
  passkeys: StoredPasskey[];
  /** `PublicKeyCredentialCreationOptionsJSON`. */
  creationOptions: unknown;
  notice?: string;
  error?: string;
  /** The issuer's path (`mountedPath`), put before every link and form action: `''` at the host root. */
  mount?: string;
}

/**
 * `/account/passkeys`: the account's passkeys (rename, delete) and the form that adds one (`passkey.list.*` messages).
 */
export function passkeyListPage(v: PasskeyListView): string {
  const { t } = v.ui;
  const tx = (key: Exclude<Extract<MessageKey, `passkey.list.${string}`>, 'passkey.list.defaultName'>) => t.t(key);
  const at = (path: string) => (v.mount ?? '') + path;
  const never = tx('passkey.list.never');
  const secondary = (label: string) => html`<button type="submit" class="secondary">${label}</button>`;
  const item = (p: StoredPasskey) => html`<li class="passkey" data-credential-id="${p.credentialId}">
<strong class="passkey-name">${p.name}</strong>${
    p.deviceType === 'multiDevice' ? html` <small>(${tx('passkey.list.synced')})</small>` : ''
  }<br>
<small>${[
    html`${tx('passkey.list.created')}: <span class="created">${date(p.createdAt, never)}</span> · `,
    html`${tx('passkey.list.lastUsed')}: <span class="last-used">${date(p.lastUsedAt, never)}</span> · `,
    html`${tx('passkey.list.signatures')}: <span class="counter">${p.counter}</span>`,
  ]}</small>
<form method="post" action="${at(PASSKEY_PATHS.rename)}" class="rename"><input type="hidden" name="csrf" value="${
    v.csrfToken
  }"><input type="hidden" name="credential_id" value="${p.credentialId}">
<label>${tx('passkey.list.nameLabel')} <input type="text" name="name" value="${
    p.name
  }" maxlength="64" required autocomplete="off"></label>${secondary(tx('passkey.list.rename'))}</form>
<form method="post" action="${at(PASSKEY_PATHS.remove)}" class="delete"><input type="hidden" name="csrf" value="${
    v.csrfToken
  }"><input type="hidden" name="credential_id" value="${p.credentialId}">${secondary(tx('passkey.list.remove'))}</form>
</li>`;
  const register = at(PASSKEY_PATHS.register);
  const options = JSON.stringify(v.creationOptions);
  const defaultName = t.t('passkey.list.defaultName', { number: v.passkeys.length + 1 });
  const nameAttributes = html` maxlength="64" value="${defaultName}" autocomplete="off"`;
  const nameInput = html`<input id="passkey-name" type="text" name="name"${nameAttributes}>`;
  return layout(
    v.nonce,
    tx('passkey.list.title'),
    html`<h1>${tx('passkey.list.title')}</h1>
<p>${tx('passkey.list.signedInAs')} <strong id="account-email">${v.email}</strong></p>
<p>${tx('passkey.list.intro')}</p>
${v.notice ? html`<p id="notice" role="status">${v.notice}</p>` : ''}
${v.error ? html`<p class="error" role="alert" id="error">${v.error}</p>` : ''}
<p class="error" role="alert" id="passkey-error" hidden></p>
${
  v.passkeys.length
    ? html`<ul id="passkeys">${v.passkeys.map(item)}</ul>`
    : html`<p id="no-passkeys">${tx('passkey.list.none')}</p>`
}
<h2>${tx('passkey.list.addTitle')}</h2>
<form method="post" action="${register}" id="passkey-register" data-passkey="create" data-options="${options}"
 data-error="passkey-error" data-messages="${scriptMessages(v.ui, true)}" hidden>
<input type="hidden" name="csrf" value="${v.csrfToken}"><input type="hidden" name="credential" value="">
<label for="passkey-name">${tx('passkey.list.nameLabel')}</label>${nameInput}
<button type="submit" id="add-passkey">${tx('passkey.list.add')}</button>
</form>
<p><a id="back" href="${at(HOME_PATHS.home)}">${tx('passkey.list.back')}</a></p>
${scriptTag(v.nonce, v.mount)}`,
    v.ui,
  );
}

export interface PasskeySignInView {
  nonce: string;
  /** The request's language and branding. */
  ui: PageUi;
  /** `POST /interaction/<uid>/passkey`. */
  action: string;
  csrfToken: string;
  /** `PublicKeyCredentialRequestOptionsJSON`. */
  requestOptions: unknown;
  /** Offer the passkeys in the e-mail field's autofill (conditional mediation) as well as by the button. */
  conditional: boolean;
  /** The issuer's path (`mountedPath`) for the script's URL: `''` at the host root. */
  mount?: string;
}

/**
 * The passkey part of the login page: a form with a button (hidden until the script finds WebAuthn) that posts
 * the assertion, and the script. Put it after the password form; the e-mail field gets
 * `autocomplete="username webauthn"` so the browser offers passkeys there (conditional UI).
 */
export function passkeySignIn(v: PasskeySignInView): SafeHtml {
  const { t } = v.ui;
  return html`<form method="post" action="${
    v.action
  }" id="passkey-signin" data-passkey="get" data-options="${JSON.stringify(v.requestOptions)}"${
    v.conditional ? html` data-conditional` : ''
  }
 data-error="passkey-error" data-messages="${scriptMessages(v.ui, false)}" hidden>
<p>${t.t('passkey.login.or')}</p>
<input type="hidden" name="csrf" value="${v.csrfToken}"><input type="hidden" name="credential" value="">
<button type="submit" id="passkey-button" class="secondary">${t.t('passkey.login.button')}</button>
</form>
<p class="error" role="alert" id="passkey-error" hidden></p>
${scriptTag(v.nonce, v.mount)}`;
}

/**
 * The passkey as the second factor after a right password: a button that asks for one of the account's passkeys
 * and posts the assertion. The whole page (passkeys only) or a part of the TOTP code page (both enrolled).
 */
export function passkeySecondFactor(v: Omit<PasskeySignInView, 'conditional'>): SafeHtml {
  return html`<p class="error" role="alert" id="passkey-error" hidden></p>
<form method="post" action="${
    v.action
  }" id="passkey-second-factor" data-passkey="get" data-options="${JSON.stringify(v.requestOptions)}"
 data-error="passkey-error" data-messages="${scriptMessages(v.ui, false)}" hidden>
<input type="hidden" name="csrf" value="${v.csrfToken}"><input type="hidden" name="credential" value="">
<button type="submit" id="passkey-button" autofocus>${v.ui.t.t('passkey.secondFactor.button')}</button>
</form>
${scriptTag(v.nonce, v.mount)}`;
}

/**
 * After a right password, for an account whose only second factor is a passkey (`passkey.secondFactor.*`
 * messages); `ui.templates.passkey` replaces the body around our form.
 */
export function secondFactorPage(v: Omit<PasskeySignInView, 'conditional'> & { error?: string }): string {
  const { ui } = v;
  const { t } = ui;
  const view: PasskeyPageView = { nonce: v.nonce, ui, error: v.error, form: passkeySecondFactor(v) };
  const body = pageBody(
    ui,
    'passkey',
    view,
    () => html`<h1>${t.t('passkey.secondFactor.title')}</h1>
<p>${t.t('passkey.secondFactor.text')}</p>
${v.error ? html`<p class="error" role="alert">${v.error}</p>` : ''}
${view.form}`,
  );
  return layout(v.nonce, t.t('passkey.secondFactor.title'), body, ui);
}
