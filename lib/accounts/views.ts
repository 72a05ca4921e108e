import { html, type SafeHtml } from '../http/html.js';
import { layout } from '../http/pages.js';

/** A form field of an account page. */
export interface Field {
  name: string;
  label: string;
  type: 'email' | 'password' | 'text';
  value?: string;
  autocomplete?: string;
  required?: boolean;
  /** HTML `minlength`/`maxlength` hints (the server checks again). */
  minLength?: number;
  maxLength?: number;
}

export interface FormView {
  nonce: string;
  title: string;
  intro?: string;
  action: string;
  csrfToken: string;
  fields: Field[];
  hidden?: Record<string, string>;
  submit: string;
  error?: string;
  /** Links under the form. */
  links?: Array<{ id: string; href: string; text: string }>;
}

function links(items: FormView['links']): SafeHtml | string {
  return items?.length ? html`${items.map((l) => html`<p><a id="${l.id}" href="${l.href}">${l.text}</a></p>`)}` : '';
}

/** A form page of the account flows (sign-up, resend, reset request, new password, e-mail change). */
export function formPage(v: FormView): string {
  return layout(v.nonce, v.title, html`<h1>${v.title}</h1>
${v.intro ? html`<p>${v.intro}</p>` : ''}
${v.error ? html`<p class="error" role="alert">${v.error}</p>` : ''}
<form method="post" action="${v.action}" autocomplete="on">
<input type="hidden" name="csrf" value="${v.csrfToken}">
${Object.entries(v.hidden ?? {}).map(([k, val]) => html`<input type="hidden" name="${k}" value="${val}">`)}
${v.fields.map((f) => html`<label for="${f.name}">${f.label}</label><input id="${f.name}" type="${f.type}" name="${f.name}" value="${f.value ?? ''}"${f.required === false ? '' : html` required`}${f.autocomplete ? html` autocomplete="${f.autocomplete}"` : ''}${f.minLength ? html` minlength="${f.minLength}"` : ''}${f.maxLength ? html` maxlength="${f.maxLength}"` : ''}>`)}
<button type="submit">${v.submit}</button>
</form>
${links(v.links)}`);
}

/** A page with a message and optional links (check your mail, done, link expired, too many attempts). */
export function messagePage(nonce: string, title: string, message: string, opts: { error?: boolean; links?: FormView['links'] } = {}): string {
  return layout(nonce, title, html`<h1>${title}</h1>
<p id="message"${opts.error ? html` class="error" role="alert"` : ''}>${message}</p>
${links(opts.links)}`);
}
