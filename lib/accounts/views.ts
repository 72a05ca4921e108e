import { html, type SafeHtml } from '../ui/html.js';
import { layout } from '../http/pages.js';
import type { Field, FormView, MessageView, PageUi } from '../ui/templates.js';
import { pageBody, uiOf, withLocale } from '../ui/ui.js';

export type { Field, FormView, MessageView } from '../ui/templates.js';

const noRequestUi = (): PageUi => uiOf({ req: { headers: {} } as never });

function links(ui: PageUi, items: FormView['links']): SafeHtml | string {
  return items?.length
    ? html`${items.map((l) => html`<p><a id="${l.id}" href="${withLocale(ui, l.href)}">${l.text}</a></p>`)}`
    : '';
}

function field(f: Field): SafeHtml {
  return html`<label for="${f.name}">${f.label}</label><input id="${f.name}" type="${f.type}" name="${f.name}" value="${
    f.value ?? ''
  }"${f.required === false ? '' : html` required`}${f.autocomplete ? html` autocomplete="${f.autocomplete}"` : ''}${
    f.minLength ? html` minlength="${f.minLength}"` : ''
  }${f.maxLength ? html` maxlength="${f.maxLength}"` : ''}${f.hint ? html` aria-describedby="${f.name}-hint"` : ''}>${
    f.hint ? html`<p class="hint" id="${f.name}-hint">${f.hint}</p>` : ''
  }`;
}

/** A form page of the account flows (sign-up, resend, reset request, new password, e-mail change). */
export function formPage(v: FormView): string {
  const ui = v.ui ?? noRequestUi();
  const body = pageBody(
    ui,
    'form',
    v,
    () => html`<h1>${v.title}</h1>
${v.intro ? html`<p>${v.intro}</p>` : ''}
${v.error ? html`<p class="error" role="alert">${v.error}</p>` : ''}
<form method="post" action="${withLocale(ui, v.action)}" autocomplete="on">
<input type="hidden" name="csrf" value="${v.csrfToken}">
${Object.entries(v.hidden ?? {}).map(([k, val]) => html`<input type="hidden" name="${k}" value="${val}">`)}
${v.fields.map(field)}
<button type="submit">${v.submit}</button>
</form>
${links(ui, v.links)}`,
  );
  return layout(v.nonce, v.title, body, ui);
}

/** A page with a message and optional links (check your mail, done, link expired, too many attempts). */
export function messagePage(
  nonce: string,
  title: string,
  message: string,
  opts: { error?: boolean; links?: FormView['links']; ui?: PageUi } = {},
): string {
  const ui = opts.ui ?? noRequestUi();
  const view: MessageView = { nonce, ui, title, message, error: opts.error, links: opts.links };
  const body = pageBody(
    ui,
    'message',
    view,
    () => html`<h1>${title}</h1>
<p id="message"${opts.error ? html` class="error" role="alert"` : ''}>${message}</p>
${links(ui, opts.links)}`,
  );
  return layout(nonce, title, body, ui);
}
