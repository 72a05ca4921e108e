import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { extname } from 'node:path';
import type { Context, Middleware, Next } from 'koa';
import { DEFAULTS } from '../../config/defaults.js';
import type { ResolvedOptions } from '../../config/options.js';
import { ConfigError } from '../core/errors.js';
import { html, raw, type SafeHtml } from './html.js';
import { requestSlot } from '../core/request-slot.js';
import { mountedPath } from '../core/mount-path.js';
import { CATALOG_TEXTS, isLocale, LOCALES, negotiateLocale, Translator, type Locale, type MessageKey } from './i18n.js';
import {
  TEMPLATE_NAMES,
  templateOutput,
  type Logo,
  type PageUi,
  type TemplateKit,
  type UiSettings,
  type UiTemplates,
} from './templates.js';

export type { Logo, PageUi, UiSettings } from './templates.js';

/** The `ui` options as configured (defaults applied). */
export type UiOptions = ResolvedOptions['ui'];
type Palette = UiOptions['colors'];

/** Largest logo file accepted, in bytes (256 KiB). */
export const MAX_LOGO_BYTES = 256 * 1024;
/** The path the logo is served at. */
export const LOGO_PATH = '/ui/logo';

const EXTENSIONS: Record<Logo['type'], string[]> = {
  'image/png': ['.png'],
  'image/jpeg': ['.jpg', '.jpeg'],
  'image/gif': ['.gif'],
  'image/webp': ['.webp'],
  'image/svg+xml': ['.svg'],
};

/** The image type the bytes of a file show (magic numbers; SVG: text whose root element is `<svg`). */
export function sniffImageType(bytes: Buffer): Logo['type'] | undefined {
  const starts = (...sig: number[]) => sig.every((b, i) => bytes[i] === b);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  const ascii = bytes.subarray(0, 12).toString('latin1');
  if (ascii.startsWith('GIF87a') || ascii.startsWith('GIF89a')) return 'image/gif';
  if (ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WEBP') return 'image/webp';
  if (!bytes.includes(0)) {
    // Prolog (XML declaration, comments, doctype) then the root element.
    const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
    const root = text.replace(/^(\s+|<\?xml[^>]*\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>)*/i, '');
    if (/^<svg[\s>]/i.test(root)) return 'image/svg+xml';
  }
  return undefined;
}

/**
 * Reads and checks the logo file of `ui.logo`: at most {@link MAX_LOGO_BYTES}, a PNG, JPEG, GIF, WebP or SVG by
 * its bytes, and the extension of that type.
 * @throws {ConfigError} at `ui.logo` when the file cannot be read, is empty, too large, of another type, or its
 *   extension does not match its bytes.
 */
export function readLogo(path: string): Logo {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (err) {
    throw new ConfigError('ui.logo', `cannot read ${path}: ${(err as Error).message}`);
  }
  if (size === 0) throw new ConfigError('ui.logo', `${path} is empty`);
  if (size > MAX_LOGO_BYTES)
    throw new ConfigError('ui.logo', `${path} has ${size} bytes; at most ${MAX_LOGO_BYTES} (256 KiB) are served`);
  const body = readFileSync(path);
  const type = sniffImageType(body);
  if (!type) throw new ConfigError('ui.logo', `${path} is not a PNG, JPEG, GIF, WebP or SVG image`);
  if (!EXTENSIONS[type].includes(extname(path).toLowerCase())) {
    throw new ConfigError(
      'ui.logo',
      `${path} holds ${type} but its extension says otherwise; use ${EXTENSIONS[type].join(' or ')}`,
    );
  }
  return { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

function variables(p: Palette): string {
  return Object.entries(p)
    .map(([name, value]) => `--pc-${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}:${value}`)
    .join(';');
}

/**
 * The style sheet: hex colours only (checked by the option schema), so nothing else reaches it. `overflow-wrap:
 * anywhere` breaks a word that cannot fit (a client name or address without a break, or padded with no-break
 * spaces), so no part of it runs off the card out of sight.
 */
function styleSheet(colors: Palette, dark: Palette): string {
  return `:root{color-scheme:light dark;${variables(colors)}}
@media (prefers-color-scheme:dark){:root{${variables(dark)}}}
body{font-family:system-ui,sans-serif;background:var(--pc-background);margin:0;padding:32px 16px;color:var(--pc-text);
line-height:1.45;overflow-wrap:anywhere}
header.brand,main,footer{max-width:400px;margin:0 auto}header.brand{margin-bottom:16px;display:flex;align-items:center;
gap:10px;font-weight:700;font-size:1.15em}
header.brand img{max-height:48px;max-width:220px}header.brand a{color:inherit;text-decoration:none}
main{background:var(--pc-surface);border-radius:8px;padding:28px;box-shadow:0 1px 4px rgba(0,0,0,.15)}
h1{font-size:1.3em;margin:0 0 16px}label{display:block;margin:12px 0 4px;font-weight:600}
input[type=email],input[type=password],input[type=text]{width:100%;box-sizing:border-box;padding:8px;
border:1px solid var(--pc-border);border-radius:4px;font-size:1em;background:var(--pc-surface);color:var(--pc-text)}
button{margin-top:18px;padding:9px 18px;border:1px solid var(--pc-primary);border-radius:4px;font-size:1em;
cursor:pointer;background:var(--pc-primary);color:var(--pc-on-primary)}
button.secondary{background:transparent;color:var(--pc-text);border-color:var(--pc-border);margin-left:8px}
form.inline{display:inline}
a{color:var(--pc-primary)}:focus-visible{outline:3px solid var(--pc-primary);outline-offset:2px}
.error{background:var(--pc-error-background);color:var(--pc-error);padding:10px;border-radius:4px}
.hint,.small,footer{color:var(--pc-muted);font-size:.88em}.hint{margin:4px 0 0}footer{margin-top:16px;text-align:center}
ul{padding-left:20px}li{margin:6px 0}code{background:var(--pc-background);padding:1px 4px;border-radius:3px}`;
}

/**
 * Resolves the `ui` options: reads the logo, builds a translator per language (with `ui.messages` over the
 * shipped catalogs) and the style sheet.
 * @throws {ConfigError} at `ui.logo` (see {@link readLogo}), `ui.messages.<locale>` for an unknown language or
 *   key or a non-string message, `ui.templates.<name>` for an unknown page or a value that is not a function.
 */
export function resolveUi(options: UiOptions): UiSettings {
  const messages = (options.messages ?? {}) as Record<string, Record<string, unknown>>;
  for (const [locale, overrides] of Object.entries(messages)) {
    if (!isLocale(locale))
      throw new ConfigError(`ui.messages.${locale}`, `unknown language; shipped: ${LOCALES.join(', ')}`);
    for (const [key, text] of Object.entries(overrides ?? {})) {
      if (!(key in CATALOG_TEXTS.en))
        throw new ConfigError(`ui.messages.${locale}.${key}`, 'unknown message key (see lib/ui/messages/en.ts)');
      if (typeof text !== 'string') throw new ConfigError(`ui.messages.${locale}.${key}`, 'must be a string');
    }
  }
  const templates = (options.templates ?? {}) as Record<string, unknown>;
  for (const [name, fn] of Object.entries(templates)) {
    if (!(TEMPLATE_NAMES as readonly string[]).includes(name))
      throw new ConfigError(`ui.templates.${name}`, `unknown page; one of ${TEMPLATE_NAMES.join(', ')}`);
    if (typeof fn !== 'function')
      throw new ConfigError(`ui.templates.${name}`, 'must be a function (view, kit) => SafeHtml');
  }
  const translators = Object.fromEntries(
    LOCALES.map((l) => [l, new Translator(l, messages[l] as Partial<Record<MessageKey, string>>)]),
  ) as Record<Locale, Translator>;
  return Object.freeze({
    productName: options.productName,
    logo: options.logo ? readLogo(options.logo) : undefined,
    logoAlt: options.logoAlt ?? options.productName,
    supportUrl: options.supportUrl,
    homeUrl: options.homeUrl,
    footer: options.footer,
    defaultLocale: options.defaultLocale,
    translators,
    templates: Object.freeze({ ...templates }) as UiTemplates,
    styleSheet: styleSheet(options.colors, options.darkColors),
  });
}

/** The settings of a request that no {@link uiContext} saw (a page rendered outside our route table). */
let fallbackSettings: UiSettings | undefined;
function defaults(): UiSettings {
  return (fallbackSettings ??= resolveUi(DEFAULTS.ui as UiOptions));
}

/** A request's UI, or how to work it out: most requests (tokens, userinfo, JWKS) never render a page. */
const perRequest = requestSlot<PageUi | (() => PageUi)>('portcullis.pageUi');

function pageUi(settings: UiSettings, uiLocales: unknown, acceptLanguage: string | undefined, mountPath = ''): PageUi {
  const locale = negotiateLocale(uiLocales, acceptLanguage, settings.defaultLocale);
  const fromUiLocales = typeof uiLocales === 'string' && locale === negotiateLocale(uiLocales, undefined, '' as Locale);
  return {
    settings,
    locale,
    t: settings.translators[locale],
    localeQuery: fromUiLocales ? `ui_locales=${locale}` : undefined,
    mountPath,
  };
}

/**
 * Middleware: the request's UI, from the `ui_locales` query parameter (our pages keep it on their links and
 * forms) then `Accept-Language`. Keyed by the Node request, so oidc-provider's own context for the same request
 * (error and logout pages) finds it too.
 */
export function uiContext(settings: UiSettings): Middleware {
  return function uiContext(ctx: Context, next: Next) {
    // Worked out on first use (uiOf): the mount path is taken now, while this route's `ctx.mountPath` is set.
    const mountPath = mountedPath(ctx, '');
    perRequest.set(ctx.req, () => pageUi(settings, ctx.query.ui_locales, ctx.get('accept-language'), mountPath));
    return next();
  };
}

/** The UI of the request of `ctx` (defaults, by `Accept-Language`, when {@link uiContext} did not run). */
export function uiOf(ctx: { req: IncomingMessage }): PageUi {
  const known = perRequest.get(ctx.req);
  if (typeof known !== 'function') return known ?? pageUi(defaults(), undefined, ctx.req.headers['accept-language']);
  const ui = known();
  perRequest.set(ctx.req, ui);
  return ui;
}

/**
 * Sets the language of this request from an authorization request's `ui_locales` (OpenID Connect Core
 * §3.1.2.1), which comes before `Accept-Language`. Returns the request's UI.
 */
export function useUiLocales(ctx: { req: IncomingMessage }, uiLocales: unknown): PageUi {
  const current = uiOf(ctx);
  if (typeof uiLocales !== 'string' || !uiLocales) return current;
  const ui = pageUi(current.settings, uiLocales, ctx.req.headers['accept-language'], current.mountPath);
  perRequest.set(ctx.req, ui);
  return ui;
}

/** `url` with the request's `ui_locales` carried on (when it chose the language). */
export function withLocale(ui: PageUi, url: string): string {
  if (!ui.localeQuery || /[?&]ui_locales=/.test(url)) return url;
  return `${url}${url.includes('?') ? '&' : '?'}${ui.localeQuery}`;
}

/** The kit a host template receives. */
export function templateKit(ui: PageUi): TemplateKit {
  return { html, raw, t: ui.t, locale: ui.locale, productName: ui.settings.productName };
}

/**
 * The body of page `name`: the host's template when `ui.templates[name]` is set (its result escaped unless it
 * is {@link SafeHtml}), else ours.
 */
export function pageBody<N extends keyof UiTemplates>(
  ui: PageUi,
  name: N,
  view: Parameters<NonNullable<UiTemplates[N]>>[0],
  ours: () => SafeHtml,
): SafeHtml {
  const custom = ui.settings.templates[name] as ((v: unknown, kit: TemplateKit) => unknown) | undefined;
  return custom ? templateOutput(custom(view, templateKit(ui))) : ours();
}

/** Our page frame's pieces. */
export function frameParts(ui: PageUi): { header: SafeHtml; footer: SafeHtml } {
  const s = ui.settings;
  const mark = s.logo
    ? html`<img src="${ui.mountPath}${LOGO_PATH}" alt="${s.logoAlt}">`
    : html`<span id="product-name">${s.productName}</span>`;
  const header = html`<header class="brand">${s.homeUrl ? html`<a href="${s.homeUrl}">${mark}</a>` : mark}</header>`;
  const footer =
    s.footer || s.supportUrl
      ? html`<footer>${s.footer ? html`<p id="footer-text">${s.footer}</p>` : ''}${
          s.supportUrl ? html`<p><a id="support" href="${s.supportUrl}">${ui.t.t('layout.support')}</a></p>` : ''
        }</footer>`
      : html``;
  return { header, footer };
}
