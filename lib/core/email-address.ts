import { domainToASCII, domainToUnicode } from 'node:url';

/**
 * The one home of e-mail address rules: which addresses are accepted, and the canonical form every comparison,
 * index, hash and rate limit of an address uses, so that two spellings of one mailbox are one account.
 */

/** Longest accepted address (RFC 5321 §4.5.3.1.3 path limit less the brackets), typed and canonical form alike. */
export const MAX_EMAIL_LENGTH = 254;

/**
 * One character of an accepted local part: RFC 5322 §3.2.3 `atext` or a dot, or outside ASCII a letter, mark or
 * decimal digit (RFC 8264 §9.1 LetterDigits: Ll Lu Lo Lm Mn Mc Nd) that is not default-ignorable (RFC 8264 §9.13;
 * joiners and variation selectors are invisible, so they would give one mailbox look-alike spellings).
 */
const LOCAL_ASCII = /[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~.]/u.source;
const LOCAL_LETTER = /(?!\p{Default_Ignorable_Code_Point})[\p{Ll}\p{Lu}\p{Lo}\p{Lm}\p{Mn}\p{Mc}\p{Nd}]/u.source;
const LOCAL_CHAR = new RegExp(`^(?:${LOCAL_ASCII}|${LOCAL_LETTER})+$`, 'u');

/** Characters a typed domain may hold besides non-ASCII ones (which UTS #46 maps or refuses). */
const DOMAIN_ASCII = /^[A-Za-z0-9.\-\u0080-\u{10FFFF}]+$/u;

/** The label separators UTS #46 maps to a dot (RFC 3490 §3.1): one at the end of the typed domain is dropped. */
const TRAILING_DOT = /[.\u3002\uFF0E\uFF61]$/u;

/**
 * A host name (RFC 5321 §4.1.2 `Domain`, RFC 1035 labels) with at least two labels and a top label that is not numeric.
 */
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOST_NAME = new RegExp(`^(?:${LABEL}\\.)+(?=[a-z0-9-]*[a-z])${LABEL}$`);

/** An accepted e-mail address in its three forms. */
export interface EmailAddress {
  /**
   * As typed: trimmed, NFC, without the domain's trailing dot; case, Unicode domain and local part kept. What the
   * account stores, shows and puts in the `email` claim.
   */
  address: string;
  /**
   * Where mail goes: the typed local part (NFC, case kept: RFC 5321 §2.4 lets the receiving server decide what it
   * means) at the domain's ASCII form (UTS #46 / IDNA2008 A-labels, lower-cased), the domain the key names.
   */
  mailbox: string;
  /**
   * The canonical form: the local part lower-cased (`toLowerCase`, then NFC: the case mapping of RFC 8265 §3.3.2)
   * at the domain's ASCII form. Two addresses are the same account exactly when their keys are equal. For a
   * plain ASCII address (no trailing dot) it is the address lower-cased, the form earlier versions compared.
   */
  key: string;
}

/**
 * Parses `input` (an address as typed, `local@domain`) into its {@link EmailAddress} forms, or `undefined` when it
 * is not an address Portcullis accepts.
 *
 * Steps: trim, Unicode NFC (so a precomposed `é` and `e` + U+0301 are one letter), split at the `@`. The domain goes
 * through node's `domainToASCII` (WHATWG URL / UTS #46: case, width and NFC mapping, IDNA2008 validation, so
 * `bücher.example`, `BÜCHER.example` and `xn--bcher-kva.example` are one domain and an invalid IDN is refused);
 * one trailing dot is dropped (`example.com.` is `example.com`); the result must be a host name of two or more
 * labels. The local part must consist of the characters of `LOCAL_CHAR` (ASCII `atext` and dots; letters, marks
 * and digits outside ASCII) and be unchanged by NFKC: compatibility characters such as fullwidth letters,
 * ligatures or superscripts are refused rather than folded (RFC 8264 §9.17 `HasCompat`), since a mail server may
 * fold them and we cannot know which way. Quoted local parts, comments and address literals are refused.
 *
 * @example
 * parseEmailAddress(' Bob@Bücher.Example. ')
 * // { address: 'Bob@Bücher.Example', mailbox: 'Bob@xn--bcher-kva.example', key: 'bob@xn--bcher-kva.example' }
 */
export function parseEmailAddress(input: string): EmailAddress | undefined {
  const typed = input.trim().normalize('NFC');
  const at = typed.lastIndexOf('@');
  if (at < 1 || typed.length > MAX_EMAIL_LENGTH) return undefined;
  const local = typed.slice(0, at);
  const domain = typed.slice(at + 1).replace(TRAILING_DOT, '');
  if (!LOCAL_CHAR.test(local) || local.normalize('NFKC') !== local || !DOMAIN_ASCII.test(domain)) return undefined;
  // Without a trailing dot of its own a valid name gets none from domainToASCII; '' means an invalid IDN.
  const host = domainToASCII(domain);
  if (!HOST_NAME.test(host) || host.length > 253 || !punycodeDecodes(host)) return undefined;
  const key = `${local.toLowerCase().normalize('NFC')}@${host}`;
  if (key.length > MAX_EMAIL_LENGTH) return undefined;
  return { address: `${local}@${domain}`, mailbox: `${local}@${host}`, key };
}

/**
 * Whether every `xn--` label of `host` (an ASCII host name) decodes to Unicode. Node 22's `domainToASCII` refuses a
 * label that does not (`xn--zz` gives ''), Node 24's keeps it as it is; `domainToUnicode` then leaves it undecoded,
 * which is how both are made to refuse it (RFC 5891 §5.4: an A-label must convert to a U-label).
 */
function punycodeDecodes(host: string): boolean {
  if (!host.includes('xn--')) return true;
  return domainToUnicode(host)
    .split('.')
    .every((label) => !label.startsWith('xn--'));
}

/**
 * The canonical form of an address ({@link EmailAddress.key}), or `undefined` when `input` is not an accepted
 * address. Every comparison, index, hash and rate limit of an address goes through this function; an account
 * store plugged in by a host should key its accounts by it too.
 */
export function canonicalEmail(input: string): string | undefined {
  return parseEmailAddress(input)?.key;
}

/** Whether `a` and `b` are one mailbox (equal canonical forms); false when either is not an accepted address. */
export function sameEmailAddress(a: string, b: string): boolean {
  const key = canonicalEmail(a);
  return key !== undefined && key === canonicalEmail(b);
}
