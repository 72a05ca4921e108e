import type { Context, Next } from 'koa';

/**
 * Strict reading of `application/x-www-form-urlencoded` text: the query strings and form bodies of every endpoint.
 *
 * Lenient decoders (Node's `querystring`, which oidc-provider and Koa use, and WHATWG URL's parser) keep a `%` that
 * is not followed by two hex digits as a literal character and turn percent-encoded bytes that are not UTF-8 into
 * U+FFFD: `scope=openid%ZZ` became the scope `openid%ZZ`, silently ignored. Portcullis refuses such text instead
 * (`400 invalid_request` naming the defect, docs/security.md "Security behaviour").
 */

/** The media type of form bodies (RFC 6749 §4.1.3 and §3.2; WHATWG URL §5). */
export const FORM_TYPE = 'application/x-www-form-urlencoded';

/** Percent-encoded text that is not a `%` followed by two hex digits (RFC 3986 §2.1). */
const BAD_PERCENT = /%(?![0-9A-Fa-f]{2})/;
/** A percent-encoded byte of 0x80 or more: only those can make a run that is not UTF-8. */
const HIGH_BYTE = /%[89A-Fa-f][0-9A-Fa-f]/;
/** A run of percent-encoded bytes. */
const ENCODED_RUN = /(?:%[0-9A-Fa-f]{2})+/g;
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** `text` as RFC 6749 §5.2 allows it in `error_description` (no `"` or `\`, printable ASCII), at most 40 characters. */
function shown(text: string): string {
  const safe = text.replace(/[^\x20-\x21\x23-\x5B\x5D-\x7E]/g, '?');
  return safe.length > 40 ? `${safe.slice(0, 40)}...` : safe;
}

/** The first run of percent-encoded bytes in `part` that does not decode as UTF-8, if any. */
function notUtf8(part: string): string | undefined {
  for (const [run] of part.matchAll(ENCODED_RUN)) {
    const bytes = Uint8Array.from(run.slice(1).split('%'), (hex) => parseInt(hex, 16));
    try {
      STRICT_UTF8.decode(bytes);
    } catch {
      return run;
    }
  }
  return undefined;
}

/**
 * What is malformed in form-encoded `text` (a query string without its `?`, or a form body already read as UTF-8),
 * as a sentence for `error_description`; `undefined` when nothing is. Malformed (WHATWG URL's decoder would keep or
 * replace these silently; this one is strict):
 * - a `%` not followed by two hexadecimal digits (`%ZZ`, a trailing `%` or `%4`; RFC 3986 §2.1);
 * - percent-encoded bytes that are not UTF-8 (RFC 3986 §2.5): an overlong form (`%C0%AF`), an encoded surrogate
 *   (`%ED%A0%80`), a truncated or stray byte (`%C3`, `%FF`);
 * - U+FFFD in the text itself: what a lenient decoder (the pages' body parser) left of bytes that were not UTF-8.
 * @param where what `text` is, for the sentence: `'query string'` or `'form body'`.
 */
export function encodingDefect(text: string, where: string): string | undefined {
  // Plain ASCII without a `%` (almost every request): nothing to decode.
  if (!text.includes('%') && !/[^\x00-\x7F]/.test(text)) return undefined;
  // Well-formed escapes of ASCII bytes only and no U+FFFD (a /token body's encoded redirect_uri): nothing can be
  // malformed, so the sentence below is not built for each parameter (the /token hot path).
  if (!BAD_PERCENT.test(text) && !HIGH_BYTE.test(text) && !text.includes('\uFFFD')) return undefined;
  for (const pair of text.split('&')) {
    const equals = pair.indexOf('=');
    const name = equals === -1 ? pair : pair.slice(0, equals);
    const of = `in the parameter '${shown(name)}'`;
    const malformed = `The ${where} has a malformed percent-encoding:`;
    const percent = BAD_PERCENT.exec(pair);
    if (percent) {
      const sequence = /^%[^%&]{0,2}/.exec(pair.slice(percent.index))![0];
      return `${malformed} '${shown(sequence)}' ${of} (a % must be followed by two hexadecimal digits).`;
    }
    const run = notUtf8(pair);
    if (run !== undefined) {
      const rule = 'percent-encoded bytes must be UTF-8, RFC 3986 section 2.5';
      return `${malformed} '${shown(run)}' ${of} is not UTF-8 (${rule}).`;
    }
    if (pair.includes('\uFFFD')) return `The ${where} is not UTF-8 ${of}.`;
  }
  return undefined;
}

/**
 * `bytes` (a form body) as UTF-8 text, or `undefined` when they are not UTF-8 (WHATWG URL's form parser would put
 * U+FFFD in their place; this one refuses).
 */
export function strictUtf8(bytes: Uint8Array): string | undefined {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Route middleware of our pages: a malformed query string ({@link encodingDefect}) is `400 invalid_request` naming
 * the defect (thrown for the route's error handler: our error page for a browser, JSON otherwise).
 */
export function refuseMalformedQuery(ctx: Context, next: Next): Promise<unknown> {
  const defect = encodingDefect(ctx.querystring, 'query string');
  if (defect) ctx.throw(400, defect);
  return next();
}
