/**
 * The branding feature's options: `ui` (product name, logo, colours, links, languages, wording and page
 * templates). Its slice of the option schema, composed into the one schema (validation, types, defaults, the option
 * reference) by config/options.ts. Schema only: it imports the option kit (config/option-kit.ts) and the ui types
 * (languages, message keys, the template hook) and nothing else of ours, so that config/ may import it
 * (.dependency-cruiser.cjs).
 */
import { Type } from '@sinclair/typebox';
import { oneOf, optional, section, withDefault } from '../../../config/option-kit.js';
import type { Locale, MessageKey } from '../../ui/i18n.js';
import type { UiTemplates } from '../../ui/templates.js';

/** A hex colour: nothing else can reach the inline style sheet, so no CSS can be injected through it. */
const hexColor = Type.String({ pattern: '^#([0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$' });
/** The colour options of one scheme, each with its default. */
function palette<const N extends string>(defaults: Record<N, string>, scheme: string) {
  return Object.fromEntries(
    Object.entries(defaults).map(([name, value]) => [
      name,
      withDefault(hexColor, value as string, {
        description: `\`--pc-${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}\` (${scheme})`,
      }),
    ]),
  ) as Record<N, ReturnType<typeof withDefault<typeof hexColor>>>;
}

/** Top-level options of the `branding` feature. */
export const brandingOptions = {
  ui: section('Branding and language of the pages and mails', {
    productName: withDefault(Type.String({ minLength: 1, maxLength: 80 }), 'Portcullis', {
      description: 'Name shown in the page header, page titles, messages ("signed out of …") and mail signatures',
    }),
    logo: optional(Type.String({ minLength: 1 }), {
      defaultText: 'unset: the product name in text',
      description:
        'Path of a logo file (PNG, JPEG, GIF, WebP or SVG, at most 256 KiB), read at start-up and served by ' +
        'us at `/ui/logo`; its type is taken from its bytes and must match its extension',
      security: "never hot-linked, so pages keep `img-src 'self'`; an SVG is served with a CSP that runs no script",
    }),
    logoAlt: optional(Type.String({ maxLength: 200 }), {
      defaultText: '`productName`',
      description: 'Text alternative of the logo',
    }),
    colors: section(
      'Colours of the pages (CSS custom properties `--pc-*`); `#rgb`, `#rgba`, `#rrggbb` or `#rrggbbaa` only',
      palette(
        {
          primary: '#2457c5',
          onPrimary: '#ffffff',
          background: '#f4f5f7',
          surface: '#ffffff',
          text: '#1d2330',
          muted: '#5b6474',
          border: '#9aa3b2',
          error: '#8a1c12',
          errorBackground: '#fdecea',
        },
        'light',
      ),
    ),
    darkColors: section(
      'Colours under `prefers-color-scheme: dark`; same names as `ui.colors`',
      palette(
        {
          primary: '#8fb0ff',
          onPrimary: '#0b1020',
          background: '#111418',
          surface: '#1c2028',
          text: '#e6e8ec',
          muted: '#a3abb8',
          border: '#566074',
          error: '#ffb4a9',
          errorBackground: '#3d1713',
        },
        'dark',
      ),
    ),
    supportUrl: optional(Type.String({ pattern: '^(https?://[^\\s]+|mailto:[^\\s]+)$', maxLength: 2000 }), {
      defaultText: 'unset: no link',
      description: 'Help link in the footer of every page (`https://…` or `mailto:…`)',
    }),
    homeUrl: optional(Type.String({ pattern: '^https?://[^\\s]+$', maxLength: 2000 }), {
      defaultText: 'unset',
      description:
        'Where "signed out" sends people onward when the client has no `client_uri`; also linked from the header logo',
    }),
    footer: optional(Type.String({ maxLength: 500 }), {
      defaultText: 'unset',
      description: 'Footer text of every page (plain text, escaped)',
    }),
    defaultLocale: withDefault(oneOf(['en', 'de'] as const satisfies readonly Locale[]), 'en', {
      description: 'Language when neither `ui_locales` nor `Accept-Language` names a shipped one (`en`, `de`)',
      see: 'OIDC Core §3.1.2.1 (ui_locales), RFC 9110 §12.5.4',
    }),
    messages: optional(Type.Unsafe<Partial<Record<Locale, Partial<Record<MessageKey, string>>>>>({ type: 'object' }), {
      defaultText: 'unset',
      description:
        "Your own wording per language and message key, e.g. `{ en: { 'login.title': 'Welcome back' } }`; " +
        'keys are those of `lib/ui/messages/en.ts`',
    }),
    templates: optional(Type.Unsafe<UiTemplates>({ type: 'object' }), {
      defaultText: 'unset',
      description:
        'Functions replacing a page (`login`, `consent`, `error`, `logout`, `signedOut`, `form`, `message`, ' +
        '`secondFactor`, `totpEnrol`, `recoveryCodes`, `passkey`, `accountHome`) or the frame (`layout`); ' +
        'see docs/guides/branding.md',
      security: 'values put in with the `html` tag they receive are escaped; `raw` is the explicit way out',
    }),
  }),
};
