/**
 * What a host's replacement template works with (`ui.templates`, the hook in templates.ts): the kit it receives,
 * the view of the frame around every page, and how its result becomes markup.
 */
import { escapeHtml, html, raw, SafeHtml } from './html.js';
import type { Locale, Translator } from './i18n.js';

/**
 * The template hook (`ui.templates`): a host replaces the body of any page, or the frame around every page, with
 * its own function. The function receives the page's view (the data our own template uses, already in the
 * request's language) and a {@link TemplateKit}, and returns {@link SafeHtml} built with the kit's `html` tag,
 * which escapes every interpolated value. Escaping is on by default: a plain string returned instead is escaped
 * as a whole; only values wrapped with the kit's `raw` are put in unescaped.
 *
 * @example
 * ```ts
 * createServer({ ..., ui: { templates: {
 *   login: (v, { html, t }) => html`<h1>${t.t('login.title')}</h1><p>Welcome to ${v.clientName}</p>${v.form}`,
 * } } });
 * ```
 */
export interface TemplateKit {
  /** Escaping tagged template (`html\`<p>${value}</p>\``). */
  html: typeof html;
  /** Marks trusted markup; never pass it user or client data. */
  raw: typeof raw;
  /** The request's messages (`t.t(key, params)` text, `t.html(key, params)` escaped markup). */
  t: Translator;
  /** The request's language. */
  locale: Locale;
  /** `ui.productName`. */
  productName: string;
}

/** A replacement for the body (the content of `<main>`) of one page. */
export type PageTemplate<V> = (view: V, kit: TemplateKit) => SafeHtml | string;

/** What a `layout` replacement receives: the pieces of our frame, each already safe markup. */
export interface FrameView {
  lang: Locale;
  /** The page title (escape it when you put it in: it is text). */
  title: string;
  /** The CSP nonce; our `<style>` element already carries it (`style`). */
  nonce: string;
  /** Our `<style nonce=…>` element with the colour variables. */
  style: SafeHtml;
  header: SafeHtml;
  body: SafeHtml;
  footer: SafeHtml;
}

/** A template's result as markup: {@link SafeHtml} as it is, anything else escaped as text. */
export function templateOutput(result: unknown): SafeHtml {
  return result instanceof SafeHtml ? result : new SafeHtml(escapeHtml(String(result)));
}
