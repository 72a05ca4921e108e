import { PortcullisError } from '../core/errors.js';
import { escapeHtml, SafeHtml } from './html.js';
import { de } from './messages/de.js';
import { en } from './messages/en.js';

/**
 * Message catalogs and language choice for every page and mail.
 *
 * Why a small typed catalog and not i18next: we ship two languages of a few hundred short messages, with
 * placeholders and no plurals beyond "1 hour"/"n hours". A typed catalog costs no dependency, makes a missing
 * German message or a call without its placeholders a compile error (i18next reports a missing key at run time,
 * by falling back), and keeps HTML escaping in our hands ({@link Translator.html} escapes the message and every
 * value that is not already {@link SafeHtml}).
 */

/** The languages Portcullis ships, as BCP 47 primary language tags. */
export const LOCALES = ['en', 'de'] as const;
/** One of {@link LOCALES}. */
export type Locale = (typeof LOCALES)[number];

/**
 * The English messages of the features that ship their own (lib/features/<id>/messages.ts), by key: each such
 * file adds its keys here by declaration merging (`declare module '…/ui/i18n.js' { interface FeatureMessages
 * extends typeof itsEnglish {} }`) and its texts with {@link addMessages}, so its keys are type-checked like the
 * shipped catalog's and exist exactly when its module is part of the program.
 */
export interface FeatureMessages {}

type English = typeof en & FeatureMessages;
/** A message key (the English catalog and the features' messages define them). */
export type MessageKey = keyof English;
/** A catalog: one message for every key, nothing else (the shipped catalogs and the features' messages). */
export type Catalog = { readonly [K in MessageKey]: string };

/** The `{name}` placeholders of a message text, as a union of names. */
type Placeholders<S extends string> = S extends `${string}{${infer P}}${infer Rest}` ? P | Placeholders<Rest> : never;
/** The values a message needs: none, or one per placeholder. */
export type MessageParams<K extends MessageKey, V = string | number> = [Placeholders<English[K]>] extends [never]
  ? []
  : [Record<Placeholders<English[K]>, V>];

/** The keys of messages without placeholders (a page can keep one and translate it later). */
export type PlainKey = { [K in MessageKey]: MessageParams<K> extends [] ? K : never }[MessageKey];

/** The shipped catalogs with every feature's messages added ({@link addMessages}). */
const CATALOGS: Readonly<Record<Locale, Record<string, string>>> = Object.freeze({ en: { ...en }, de: { ...de } });

/**
 * Adds a feature's messages to the catalogs, one text per key in every shipped language (`tsc` checks that the
 * other languages have exactly the English keys). Called once by the feature's messages module when it loads, so
 * every translator, the `ui.messages` check and the mails know them; loading it again is harmless.
 * @throws {PortcullisError} `ERR_INTERNAL` when a key is already in the catalogs with another text (two features chose
 *   the same key).
 */
export function addMessages<M extends Readonly<Record<string, string>>>(
  messages: { readonly en: M } & { readonly [L in Exclude<Locale, 'en'>]: { readonly [K in keyof M]: string } },
): void {
  for (const locale of LOCALES) {
    for (const [key, text] of Object.entries(messages[locale] as Readonly<Record<string, string>>)) {
      const known = CATALOGS[locale][key];
      if (known !== undefined && known !== text)
        throw new PortcullisError('ERR_INTERNAL', `message key ${key} (${locale}) is already in the catalogs`);
      CATALOGS[locale][key] = text;
    }
  }
}

/** Whether `value` names a shipped language. */
export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/** The shipped language of one tag (`de-AT` → `de`), if any. */
function shipped(tag: string): Locale | undefined {
  const primary = tag.trim().toLowerCase().split('-')[0];
  return isLocale(primary) ? primary : undefined;
}

/**
 * Chooses the language of a page or mail: the first shipped language of `ui_locales` (OpenID Connect Core
 * §3.1.2.1: space-separated BCP 47 tags in order of preference), else the shipped language `Accept-Language`
 * weighs highest (RFC 9110 §12.5.4; `q=0` excludes), else `fallback`.
 */
export function negotiateLocale(uiLocales: unknown, acceptLanguage: string | undefined, fallback: Locale): Locale {
  if (typeof uiLocales === 'string') {
    for (const tag of uiLocales.split(' ')) {
      const found = shipped(tag);
      if (found) return found;
    }
  }
  if (acceptLanguage) {
    const ranked = acceptLanguage
      .slice(0, 1000)
      .split(',')
      .map((part, index) => {
        const [tag = '', ...params] = part.split(';');
        const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
        const weight = q ? Number(q.slice(2)) : 1;
        return { tag: tag.trim(), weight: Number.isFinite(weight) ? weight : 0, index };
      })
      .filter((r) => r.weight > 0)
      .sort((a, b) => b.weight - a.weight || a.index - b.index);
    for (const { tag } of ranked) {
      if (tag === '*') return fallback;
      const found = shipped(tag);
      if (found) return found;
    }
  }
  return fallback;
}

function fill(
  text: string,
  params: Record<string, unknown> | undefined,
  piece: (value: unknown) => string,
  plain: (text: string) => string,
): string {
  if (!params) return plain(text);
  let out = '';
  let last = 0;
  for (const match of text.matchAll(/\{(\w+)\}/g)) {
    out += plain(text.slice(last, match.index));
    out += match[1]! in params ? piece(params[match[1]!]) : plain(match[0]);
    last = match.index! + match[0].length;
  }
  return out + plain(text.slice(last));
}

/** The messages of one language. */
export class Translator {
  readonly #overrides: Readonly<Record<string, string>>;
  /** The language's catalog, read at each call: a feature's messages added after this translator was made count. */
  readonly #catalog: Readonly<Record<string, string>>;

  /** @param overrides operator wording per key (`ui.messages[locale]`), used instead of the shipped message. */
  constructor(
    readonly locale: Locale,
    overrides: Partial<Record<MessageKey, string>> = {},
  ) {
    this.#overrides = { ...overrides };
    this.#catalog = CATALOGS[locale];
  }

  #text(key: MessageKey): string {
    return Object.hasOwn(this.#overrides, key) ? this.#overrides[key]! : this.#catalog[key]!;
  }

  /** Whether `key` is a message key (for keys built at run time, e.g. `scope.<name>`). */
  has(key: string): key is MessageKey {
    return Object.hasOwn(this.#overrides, key) || Object.hasOwn(this.#catalog, key);
  }

  /** The message `key` as plain text, placeholders filled in (for mails, titles and attribute values). */
  t<K extends MessageKey>(key: K, ...params: MessageParams<K>): string {
    return fill(this.#text(key), params[0], String, (s) => s);
  }

  /**
   * The message `key` as HTML: its text escaped, each placeholder replaced by its value, escaped unless it is
   * {@link SafeHtml} (e.g. `html\`<strong>${name}</strong>\``).
   */
  html<K extends MessageKey>(key: K, ...params: MessageParams<K, string | number | SafeHtml>): SafeHtml {
    return new SafeHtml(
      fill(this.#text(key), params[0], (v) => (v instanceof SafeHtml ? v.value : escapeHtml(v)), escapeHtml),
    );
  }

  /** A duration in words: whole hours when it divides evenly, else minutes rounded up. */
  duration(seconds: number): string {
    if (seconds === 3600) return this.t('mail.hour');
    return seconds % 3600 === 0
      ? this.t('mail.hours', { count: seconds / 3600 })
      : this.t('mail.minutes', { count: Math.ceil(seconds / 60) });
  }
}

/**
 * The English catalog and the German one with the features' messages, for tests and for hosts that check their own
 * templates (a feature's keys are there once its module has loaded).
 */
export const CATALOG_TEXTS: Readonly<Record<Locale, Catalog>> = CATALOGS as Readonly<Record<Locale, Catalog>>;
