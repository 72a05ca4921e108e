import { html, type SafeHtml } from '../http/html.js';
import { layout } from '../http/pages.js';

export interface LoginView {
  nonce: string;
  action: string;
  csrfToken: string;
  clientName: string;
  email?: string;
  error?: string;
  /** Link to the sign-up page (shown when sign-up is on). */
  signupUrl?: string;
  /** Link to the password reset page (shown when mail is available). */
  resetUrl?: string;
  /**
   * The passkey sign-in block (lib/accounts/passkeys/views.ts `passkeySignIn`), when passkeys are on; the e-mail
   * field then also offers passkeys in its autofill (`autocomplete="username webauthn"`).
   */
  passkey?: SafeHtml;
}

/** The login form: fields `email`, `password` and the hidden `csrf` token. */
export function loginPage(v: LoginView): string {
  return layout(v.nonce, 'Sign in', html`<h1>Sign in</h1>
<p>to continue to <strong>${v.clientName}</strong></p>
${v.error ? html`<p class="error" role="alert">${v.error}</p>` : ''}
<form method="post" action="${v.action}" autocomplete="on">
<input type="hidden" name="csrf" value="${v.csrfToken}">
<label for="email">E-mail</label><input id="email" type="email" name="email" required autofocus value="${v.email ?? ''}"${v.passkey ? html` autocomplete="username webauthn"` : ''}>
<label for="password">Password</label><input id="password" type="password" name="password" required autocomplete="current-password">
<button type="submit">Sign in</button>
</form>
${v.passkey ?? ''}
${v.resetUrl ? html`<p><a id="reset" href="${v.resetUrl}">Forgot your password?</a></p>` : ''}
${v.signupUrl ? html`<p>No account yet? <a id="signup" href="${v.signupUrl}">Create one</a></p>` : ''}`);
}

export interface ConsentView {
  nonce: string;
  action: string;
  csrfToken: string;
  clientName: string;
  accountEmail: string;
  scopes: Array<{ name: string; description: string }>;
  /** The client's https logo, shown only when the deployment allows remote logos (see client-logo.ts). */
  logoUri?: string;
}

/** The consent form: one form, two submit buttons (`decision=allow` / `decision=deny`). */
export function consentPage(v: ConsentView): string {
  return layout(v.nonce, 'Allow access?', html`${v.logoUri ? html`<img id="client-logo" src="${v.logoUri}" alt="" width="64" height="64" referrerpolicy="no-referrer">` : ''}<h1>Allow access?</h1>
<p><strong>${v.clientName}</strong> asks to access your account <strong>${v.accountEmail}</strong>. It will be able to:</p>
<ul>${v.scopes.map((s) => html`<li>${s.description} <code>${s.name}</code></li>`)}</ul>
<form method="post" action="${v.action}">
<input type="hidden" name="csrf" value="${v.csrfToken}">
<button type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>`);
}
