import { html, type SafeHtml } from '../../http/html.js';
import { layout } from '../../http/pages.js';
import type { StoredPasskey } from '../../core/account-store.js';

/** Where our passkey script is served (lib/accounts/passkeys/routes.ts). */
export const PASSKEY_SCRIPT_PATH = '/account/passkeys/client.js';

/** Paths of the passkey pages. */
export const PASSKEY_PATHS = Object.freeze({
  list: '/account/passkeys',
  register: '/account/passkeys/register',
  rename: '/account/passkeys/rename',
  remove: '/account/passkeys/delete',
  script: PASSKEY_SCRIPT_PATH,
});

/**
 * Every string of the passkey pages in one object per page (English), so a message catalog can replace them by
 * key. `t` is the hook for it; the default returns the English text.
 */
export const PASSKEY_TEXT = Object.freeze({
  list: {
    title: 'Passkeys',
    signedInAs: 'Signed in as',
    intro: 'A passkey signs you in with your device\'s screen lock (fingerprint, face or PIN) instead of a password.',
    none: 'You have no passkeys yet.',
    created: 'Added',
    lastUsed: 'Last used',
    never: 'never',
    signatures: 'Signatures counted',
    synced: 'synced across your devices',
    rename: 'Rename',
    remove: 'Delete',
    nameLabel: 'Name',
    addTitle: 'Add a passkey',
    add: 'Add a passkey',
    defaultName: 'Passkey',
    added: 'The passkey was added.',
    renamed: 'The passkey was renamed.',
    removed: 'The passkey was deleted.',
    notFound: 'That passkey does not exist (any more).',
    noCredential: 'Your browser did not create a passkey. Your browser must support passkeys and allow JavaScript on this page.',
    expired: 'The request to add a passkey expired. Try again.',
    notVerified: 'The passkey could not be verified: it must be made on this site and unlock with your screen lock (PIN, fingerprint or face).',
    taken: 'This passkey is already registered.',
    msgCancelled: 'The passkey request was cancelled or timed out.',
    msgExists: 'This device already holds a passkey for your account.',
    msgFailed: 'Your browser could not create a passkey.',
    back: 'Back to your account',
  },
  login: {
    or: 'or',
    button: 'Sign in with a passkey',
    msgCancelled: 'The passkey request was cancelled or timed out.',
    msgFailed: 'Your browser could not use a passkey.',
    expired: 'The passkey sign-in expired. Try again.',
    refused: 'This passkey could not be used to sign in.',
  },
  secondFactor: {
    title: 'Confirm with your passkey',
    text: 'Your account is protected with a passkey. Use it to finish signing in.',
    button: 'Use my passkey',
  },
});

/** Message catalog hook: the text for `key`, else `fallback` (English). */
export type Translate = (key: string, fallback: string) => string;
const english: Translate = (_key, fallback) => fallback;

function messages(t: Translate, page: 'list' | 'login', keys: { cancelled: string; failed: string; exists?: string }) {
  return {
    cancelled: t(`passkeys.${page}.msgCancelled`, keys.cancelled),
    failed: t(`passkeys.${page}.msgFailed`, keys.failed),
    exists: keys.exists ? t(`passkeys.${page}.msgExists`, keys.exists) : undefined,
  };
}

function scriptTag(nonce: string, mount = ''): SafeHtml {
  return html`<script nonce="${nonce}" src="${mount + PASSKEY_SCRIPT_PATH}" defer></script>`;
}

function date(ms: number | undefined, never: string): string {
  return ms ? new Date(ms).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : never;
}

export interface PasskeyListView {
  nonce: string;
  csrfToken: string;
  email: string;
  passkeys: StoredPasskey[];
  /** `PublicKeyCredentialCreationOptionsJSON`. */
  creationOptions: unknown;
  notice?: string;
  error?: string;
  /** The issuer's path (`mountedPath`), put before every link and form action: `''` at the host root. */
  mount?: string;
  t?: Translate;
}

/** `/account/passkeys`: the account's passkeys (rename, delete) and the form that adds one. */
export function passkeyListPage(v: PasskeyListView): string {
  const t = v.t ?? english;
  const s = PASSKEY_TEXT.list;
  const tx = (key: keyof typeof s) => t(`passkeys.list.${key}`, s[key]);
  const msg = messages(t, 'list', { cancelled: s.msgCancelled, failed: s.msgFailed, exists: s.msgExists });
  const at = (path: string) => (v.mount ?? '') + path;
  const item = (p: StoredPasskey) => html`<li class="passkey" data-credential-id="${p.credentialId}">
<strong class="passkey-name">${p.name}</strong>${p.deviceType === 'multiDevice' ? html` <small>(${tx('synced')})</small>` : ''}<br>
<small>${tx('created')}: <span class="created">${date(p.createdAt, tx('never'))}</span> · ${tx('lastUsed')}: <span class="last-used">${date(p.lastUsedAt, tx('never'))}</span> · ${tx('signatures')}: <span class="counter">${p.counter}</span></small>
<form method="post" action="${at(PASSKEY_PATHS.rename)}" class="rename"><input type="hidden" name="csrf" value="${v.csrfToken}"><input type="hidden" name="credential_id" value="${p.credentialId}">
<label>${tx('nameLabel')} <input type="text" name="name" value="${p.name}" maxlength="64" required autocomplete="off"></label><button type="submit" class="secondary">${tx('rename')}</button></form>
<form method="post" action="${at(PASSKEY_PATHS.remove)}" class="delete"><input type="hidden" name="csrf" value="${v.csrfToken}"><input type="hidden" name="credential_id" value="${p.credentialId}"><button type="submit" class="secondary">${tx('remove')}</button></form>
</li>`;
  return layout(v.nonce, tx('title'), html`<h1>${tx('title')}</h1>
<p>${tx('signedInAs')} <strong id="account-email">${v.email}</strong></p>
<p>${tx('intro')}</p>
${v.notice ? html`<p id="notice" role="status">${v.notice}</p>` : ''}
${v.error ? html`<p class="error" role="alert" id="error">${v.error}</p>` : ''}
<p class="error" role="alert" id="passkey-error" hidden></p>
${v.passkeys.length ? html`<ul id="passkeys">${v.passkeys.map(item)}</ul>` : html`<p id="no-passkeys">${tx('none')}</p>`}
<h2>${tx('addTitle')}</h2>
<form method="post" action="${at(PASSKEY_PATHS.register)}" id="passkey-register" data-passkey="create" data-options="${JSON.stringify(v.creationOptions)}"
 data-error="passkey-error" data-msg-cancelled="${msg.cancelled}" data-msg-failed="${msg.failed}" data-msg-exists="${msg.exists ?? ''}" hidden>
<input type="hidden" name="csrf" value="${v.csrfToken}"><input type="hidden" name="credential" value="">
<label for="passkey-name">${tx('nameLabel')}</label><input id="passkey-name" type="text" name="name" maxlength="64" value="${tx('defaultName')} ${v.passkeys.length + 1}" autocomplete="off">
<button type="submit" id="add-passkey">${tx('add')}</button>
</form>
<p><a id="back" href="${at('/account')}">${tx('back')}</a></p>
${scriptTag(v.nonce, v.mount)}`);
}

export interface PasskeySignInView {
  nonce: string;
  /** `POST /interaction/<uid>/passkey`. */
  action: string;
  csrfToken: string;
  /** `PublicKeyCredentialRequestOptionsJSON`. */
  requestOptions: unknown;
  /** Offer the passkeys in the e-mail field's autofill (conditional mediation) as well as by the button. */
  conditional: boolean;
  /** The issuer's path (`mountedPath`) for the script's URL: `''` at the host root. */
  mount?: string;
  t?: Translate;
}

/**
 * The passkey part of the login page: a form with a button (hidden until the script finds WebAuthn) that posts
 * the assertion, and the script. Put it after the password form; the e-mail field gets
 * `autocomplete="username webauthn"` so the browser offers passkeys there (conditional UI).
 */
export function passkeySignIn(v: PasskeySignInView): SafeHtml {
  const t = v.t ?? english;
  const s = PASSKEY_TEXT.login;
  const msg = messages(t, 'login', { cancelled: s.msgCancelled, failed: s.msgFailed });
  return html`<form method="post" action="${v.action}" id="passkey-signin" data-passkey="get" data-options="${JSON.stringify(v.requestOptions)}"${v.conditional ? html` data-conditional` : ''}
 data-error="passkey-error" data-msg-cancelled="${msg.cancelled}" data-msg-failed="${msg.failed}" hidden>
<p>${t('passkeys.login.or', s.or)}</p>
<input type="hidden" name="csrf" value="${v.csrfToken}"><input type="hidden" name="credential" value="">
<button type="submit" id="passkey-button" class="secondary">${t('passkeys.login.button', s.button)}</button>
</form>
<p class="error" role="alert" id="passkey-error" hidden></p>
${scriptTag(v.nonce, v.mount)}`;
}

/**
 * The passkey as the second factor after a right password: a button that asks for one of the account's passkeys
 * and posts the assertion. The whole page (passkeys only) or a part of the TOTP code page (both enrolled).
 */
export function passkeySecondFactor(v: Omit<PasskeySignInView, 'conditional'>): SafeHtml {
  const t = v.t ?? english;
  const s = PASSKEY_TEXT.secondFactor;
  const msg = messages(t, 'login', { cancelled: PASSKEY_TEXT.login.msgCancelled, failed: PASSKEY_TEXT.login.msgFailed });
  return html`<p class="error" role="alert" id="passkey-error" hidden></p>
<form method="post" action="${v.action}" id="passkey-second-factor" data-passkey="get" data-options="${JSON.stringify(v.requestOptions)}"
 data-error="passkey-error" data-msg-cancelled="${msg.cancelled}" data-msg-failed="${msg.failed}" hidden>
<input type="hidden" name="csrf" value="${v.csrfToken}"><input type="hidden" name="credential" value="">
<button type="submit" id="passkey-button" autofocus>${t('passkeys.secondFactor.button', s.button)}</button>
</form>
${scriptTag(v.nonce, v.mount)}`;
}

/** After a right password, for an account whose only second factor is a passkey. */
export function secondFactorPage(v: Omit<PasskeySignInView, 'conditional'> & { error?: string }): string {
  const t = v.t ?? english;
  const s = PASSKEY_TEXT.secondFactor;
  return layout(v.nonce, t('passkeys.secondFactor.title', s.title), html`<h1>${t('passkeys.secondFactor.title', s.title)}</h1>
<p>${t('passkeys.secondFactor.text', s.text)}</p>
${v.error ? html`<p class="error" role="alert">${v.error}</p>` : ''}
${passkeySecondFactor(v)}`);
}
