/**
 * Text a client registers to be shown to users (`client_name`, on the login, consent, logout and account pages) must
 * look like what it is. Unicode's default-ignorable code points (Default_Ignorable_Code_Point: zero-width space
 * U+200B, word joiner U+2060, U+FEFF, soft hyphen U+00AD, the Hangul fillers U+3164 and U+FFA0, variation
 * selectors, tag characters, …) are drawn as nothing or as a blank, so "Good\u200BBank" shows as "GoodBank" and is
 * another string; runs of blanks (no-break spaces, ideographic spaces, braille blank U+2800) show as a gap that
 * pushes the rest of the name out of sight. UTS #39 §3.1 and the IDNA CONTEXTJ rules (RFC 5892 Appendix A) are
 * the model for the exceptions below, which keep names in scripts that need a joiner, and emoji, registrable.
 */

const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
/** Blank-looking characters: Unicode White_Space (U+0020, U+00A0, U+2000–U+200A, U+3000, …) and braille blank. */
const BLANK_RUN = /[\p{White_Space}\u2800]{2,}/u;
/** Scripts written without joiners, where a ZWJ/ZWNJ between letters only hides a difference. */
const NO_JOINER_SCRIPT = /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Common}]/u;
const LETTER_OR_MARK = /[\p{L}\p{M}]/u;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;
const SKIN_TONE = /[\u{1F3FB}-\u{1F3FF}]/u;

/** `U+XXXX` of the code point at the start of `char`. */
export function codePointName(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Whether the default-ignorable character at `index` of `chars` has a visible role (UTS #39, RFC 5892 CONTEXTJ). */
function ignorableInContext(chars: readonly string[], index: number): boolean {
  const [before, char, after] = [chars[index - 1] ?? '', chars[index]!, chars[index + 1] ?? ''];
  // Emoji presentation selector after a pictograph (❤️), and ZWJ inside an emoji sequence (👩‍💻).
  if (char === '\uFE0F') return PICTOGRAPH.test(before) || SKIN_TONE.test(before);
  if (
    char === '\u200D' &&
    PICTOGRAPH.test(after) &&
    (PICTOGRAPH.test(before) || SKIN_TONE.test(before) || before === '\uFE0F')
  )
    return true;
  // ZWNJ/ZWJ between letters of a script that shapes with them (Persian "می‌خواهم", Devanagari half forms).
  if (char === '\u200C' || char === '\u200D') {
    return (
      LETTER_OR_MARK.test(before) &&
      LETTER_OR_MARK.test(after) &&
      !NO_JOINER_SCRIPT.test(before) &&
      !NO_JOINER_SCRIPT.test(after)
    );
  }
  return false;
}

/**
 * Why `value`, a registered display text, would not show as what it is, naming `member` and the character, or
 * `undefined` when it is fine. Checked after controls and bidirectional formatting characters, which have their own
 * message.
 *
 * @example displayTextProblem('client_name', 'Good\u200BBank') // 'client_name holds U+200B, an invisible …'
 */
export function displayTextProblem(member: string, value: string): string | undefined {
  const chars = [...value];
  for (const match of value.matchAll(IGNORABLE)) {
    const index = [...value.slice(0, match.index)].length;
    if (ignorableInContext(chars, index)) continue;
    return (
      `${member} holds ${codePointName(match[0])}, an invisible (default-ignorable) character: the name would ` +
      `not show as what it is on the sign-in and consent pages`
    );
  }
  const run = BLANK_RUN.exec(value);
  if (run) {
    return (
      `${member} holds a run of ${[...run[0]].length} blank characters ` +
      `(${[...new Set([...run[0]].map(codePointName))].join(', ')}): separate words with one space`
    );
  }
  return undefined;
}
