import { html, raw, type SafeHtml } from '../../ui/html.js';
import { layout } from '../../http/pages.js';
import type { CodeView, EnrolView, PageUi, RecoveryView } from '../../ui/templates.js';
import { pageBody, uiOf } from '../../ui/ui.js';

export type { CodeView, EnrolView, RecoveryView } from '../../ui/templates.js';

/**
 * The second-factor pages: the code prompt, TOTP enrolment (QR code as inline SVG, no external asset) and the
 * recovery codes shown once. Their words are the `mfa.*` messages of the request's language (`v.ui`); a host's
 * `ui.templates.secondFactor` / `totpEnrol` / `recoveryCodes` replaces the body.
 */

/** The UI of a page rendered without a request (defaults, English). */
const noRequestUi = (): PageUi => uiOf({ req: { headers: {} } as never });

/** The focused one-time-code field `code` (`#code`), then the attributes of `more` (escaped already). */
function codeInput(more: SafeHtml): SafeHtml {
  return html`<input id="code" type="text" name="code" required autofocus autocomplete="one-time-code"${more}>`;
}

/** The second step of a sign-in: field `code` (TOTP or recovery code). */
export function codePage(v: CodeView): string {
  const ui = v.ui ?? noRequestUi();
  const { t } = ui;
  const body = pageBody(
    ui,
    'secondFactor',
    v,
    () => html`<h1>${t.t('mfa.code.title')}</h1>
${v.clientName ? html`<p>${t.html('login.continueTo', { client: html`<strong>${v.clientName}</strong>` })}</p>` : ''}
<p>${t.t('mfa.code.intro')}</p>
${v.error ? html`<p class="error" role="alert">${v.error}</p>` : ''}
<form method="post" action="${v.action}">
<input type="hidden" name="csrf" value="${v.csrfToken}">
<label for="code">${t.t('mfa.code.label')}</label>${codeInput(html` inputmode="text" maxlength="32"`)}
<button type="submit">${t.t('mfa.code.submit')}</button>
</form>
${v.passkey ?? ''}`,
  );
  return layout(v.nonce, t.t('mfa.code.title'), body, ui);
}

/** TOTP enrolment: the QR code, the key in text, field `code` and the sealed enrolment in hidden `enrolment`. */
export function enrolPage(v: EnrolView): string {
  const ui = v.ui ?? noRequestUi();
  const { t } = ui;
  const digits = html` inputmode="numeric" pattern="[0-9 ]{6,7}" maxlength="7"`;
  const body = pageBody(
    ui,
    'totpEnrol',
    v,
    () => html`<h1>${t.t('mfa.enrol.title')}</h1>
${v.required ? html`<p>${t.t('mfa.enrol.required')}</p>` : ''}
<p>${t.t('mfa.enrol.intro')}</p>
<div id="qr">${raw(v.svg)}</div>
<p>${t.t('mfa.enrol.key')}: <code id="totp-secret">${v.secret}</code></p>
${v.error ? html`<p class="error" role="alert">${v.error}</p>` : ''}
<form method="post" action="${v.action}">
<input type="hidden" name="csrf" value="${v.csrfToken}">
<input type="hidden" name="enrolment" value="${v.sealed}">
${Object.entries(v.hidden ?? {}).map(([k, val]) => html`<input type="hidden" name="${k}" value="${val}">`)}
<label for="code">${t.t('mfa.code.label')}</label>${codeInput(digits)}
<button type="submit">${t.t('mfa.enrol.submit')}</button>
</form>`,
  );
  return layout(v.nonce, t.t('mfa.enrol.title'), body, ui);
}

/** The recovery codes (`#recovery-codes li`), shown once, with a way on. */
export function recoveryCodesPage(v: RecoveryView): string {
  const ui = v.ui ?? noRequestUi();
  const { t } = ui;
  const body = pageBody(
    ui,
    'recoveryCodes',
    v,
    () => html`<h1>${t.t('mfa.recovery.title')}</h1>
<p>${t.t('mfa.recovery.intro')}</p>
<ul id="recovery-codes">${v.codes.map((c) => html`<li><code>${c}</code></li>`)}</ul>
${
  'action' in v.next
    ? html`<form method="post" action="${v.next.action}"><input type="hidden" name="csrf" value="${
        v.next.csrfToken
      }"><button type="submit">${t.t('mfa.recovery.continue')}</button></form>`
    : html`<p><a id="continue" href="${v.next.href}">${v.next.text}</a></p>`
}`,
  );
  return layout(v.nonce, t.t('mfa.recovery.title'), body, ui);
}
