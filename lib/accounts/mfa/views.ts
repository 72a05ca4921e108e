import { html, raw, type SafeHtml } from '../../http/html.js';
import { layout } from '../../http/pages.js';
import type { PageUi } from '../../ui/templates.js';

/**
 * The second-factor pages: the code prompt, TOTP enrolment (QR code as inline SVG, no external asset) and the
 * recovery codes shown once. The English strings of each page are in one object, so a message catalog can take
 * them over (not yet done: these pages are branded by `ui` but still in English).
 */
export const MFA_TEXT = {
  codeTitle: 'Two-step verification',
  codeIntro: 'Enter the 6-digit code from your authenticator app, or one of your recovery codes.',
  codeLabel: 'Code',
  codeSubmit: 'Verify',
  enrolTitle: 'Set up two-step verification',
  enrolIntro: 'Scan this QR code with an authenticator app (or type the key below), then enter the 6-digit code it shows.',
  enrolRequired: 'This application requires two-step verification for your account.',
  enrolKey: 'Key',
  enrolSubmit: 'Turn on',
  recoveryTitle: 'Your recovery codes',
  recoveryIntro: 'Keep these codes somewhere safe. Each works once, instead of a code from your app, if you lose your phone. They are shown only now.',
  recoveryContinue: 'I saved them — continue',
  wrongCode: 'That code is not right, or was already used. Try the next code from your app.',
  tooMany: 'Too many attempts. Please try again later.',
} as const;

export interface CodeView {
  nonce: string; /** The request's branding (`ui`). @default unbranded */ ui?: PageUi; action: string; csrfToken: string; clientName?: string; error?: string;
  /** Another way to pass the step, shown below the code form (the passkey button, lib/accounts/passkeys/views.ts). */
  passkey?: SafeHtml;
}

/** The second step of a sign-in: field `code` (TOTP or recovery code). */
export function codePage(v: CodeView): string {
  const t = MFA_TEXT;
  return layout(v.nonce, t.codeTitle, html`<h1>${t.codeTitle}</h1>
${v.clientName ? html`<p>to continue to <strong>${v.clientName}</strong></p>` : ''}
<p>${t.codeIntro}</p>
${v.error ? html`<p class="error" role="alert">${v.error}</p>` : ''}
<form method="post" action="${v.action}">
<input type="hidden" name="csrf" value="${v.csrfToken}">
<label for="code">${t.codeLabel}</label><input id="code" type="text" name="code" required autofocus autocomplete="one-time-code" inputmode="text" maxlength="32">
<button type="submit">${t.codeSubmit}</button>
</form>
${v.passkey ?? ''}`, v.ui);
}

export interface EnrolView { nonce: string; /** The request's branding (`ui`). @default unbranded */ ui?: PageUi; action: string; csrfToken: string; svg: string; secret: string; sealed: string; required?: boolean; error?: string; hidden?: Record<string, string> }

/** TOTP enrolment: the QR code, the key in text, field `code` and the sealed enrolment in hidden `enrolment`. */
export function enrolPage(v: EnrolView): string {
  const t = MFA_TEXT;
  return layout(v.nonce, t.enrolTitle, html`<h1>${t.enrolTitle}</h1>
${v.required ? html`<p>${t.enrolRequired}</p>` : ''}
<p>${t.enrolIntro}</p>
<div id="qr">${raw(v.svg)}</div>
<p>${t.enrolKey}: <code id="totp-secret">${v.secret}</code></p>
${v.error ? html`<p class="error" role="alert">${v.error}</p>` : ''}
<form method="post" action="${v.action}">
<input type="hidden" name="csrf" value="${v.csrfToken}">
<input type="hidden" name="enrolment" value="${v.sealed}">
${Object.entries(v.hidden ?? {}).map(([k, val]) => html`<input type="hidden" name="${k}" value="${val}">`)}
<label for="code">${t.codeLabel}</label><input id="code" type="text" name="code" required autofocus autocomplete="one-time-code" inputmode="numeric" pattern="[0-9 ]{6,7}" maxlength="7">
<button type="submit">${t.enrolSubmit}</button>
</form>`, v.ui);
}

export interface RecoveryView { nonce: string; /** The request's branding (`ui`). @default unbranded */ ui?: PageUi; codes: string[]; next: { action: string; csrfToken: string } | { href: string; text: string } }

/** The recovery codes (`#recovery-codes li`), shown once, with a way on. */
export function recoveryCodesPage(v: RecoveryView): string {
  const t = MFA_TEXT;
  return layout(v.nonce, t.recoveryTitle, html`<h1>${t.recoveryTitle}</h1>
<p>${t.recoveryIntro}</p>
<ul id="recovery-codes">${v.codes.map((c) => html`<li><code>${c}</code></li>`)}</ul>
${'action' in v.next
    ? html`<form method="post" action="${v.next.action}"><input type="hidden" name="csrf" value="${v.next.csrfToken}"><button type="submit">${t.recoveryContinue}</button></form>`
    : html`<p><a id="continue" href="${v.next.href}">${v.next.text}</a></p>`}`, v.ui);
}
