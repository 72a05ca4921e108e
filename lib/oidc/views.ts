import { html, raw, type SafeHtml } from '../http/html.js';

const STYLE = `body{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0;padding:40px 16px;color:#1d2330}
main{max-width:380px;margin:0 auto;background:#fff;border-radius:8px;padding:28px;box-shadow:0 1px 4px rgba(0,0,0,.15)}
h1{font-size:1.3em;margin:0 0 16px}label{display:block;margin:12px 0 4px;font-weight:600}
input[type=email],input[type=password],input[type=text]{width:100%;box-sizing:border-box;padding:8px;border:1px solid #9aa3b2;border-radius:4px;font-size:1em}
button{margin-top:18px;padding:9px 18px;border:0;border-radius:4px;font-size:1em;cursor:pointer;background:#2457c5;color:#fff}
button.secondary{background:#e4e7ec;color:#1d2330;margin-left:8px}.error{background:#fdecea;color:#8a1c12;padding:10px;border-radius:4px}
ul{padding-left:20px}li{margin:6px 0}code{background:#eef0f3;padding:1px 4px;border-radius:3px}`;

/** The page frame shared by every Portcullis page: inline style under the CSP `nonce`, no external assets. */
export function layout(nonce: string, title: string, body: SafeHtml): string {
  return html`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><style nonce="${nonce}">${raw(STYLE)}</style></head>
<body><main>${body}</main></body></html>`.value;
}

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
}

/** The login form: fields `email`, `password` and the hidden `csrf` token. */
export function loginPage(v: LoginView): string {
  return layout(v.nonce, 'Sign in', html`<h1>Sign in</h1>
<p>to continue to <strong>${v.clientName}</strong></p>
${v.error ? html`<p class="error" role="alert">${v.error}</p>` : ''}
<form method="post" action="${v.action}" autocomplete="on">
<input type="hidden" name="csrf" value="${v.csrfToken}">
<label for="email">E-mail</label><input id="email" type="email" name="email" required autofocus value="${v.email ?? ''}">
<label for="password">Password</label><input id="password" type="password" name="password" required autocomplete="current-password">
<button type="submit">Sign in</button>
</form>
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

/** An error page for errors that cannot be sent back to the client. Names the OAuth `error` code. */
export function errorPage(nonce: string, error: string, description?: string): string {
  return layout(nonce, 'Request refused', html`<h1>Request refused</h1>
<p class="error">error: <code id="error">${error}</code></p>
${description ? html`<p id="error_description">${description}</p>` : ''}
<p>The application that sent you here made a request this server cannot accept. No data was shared.</p>`);
}
