import { canonicalEmail, parseEmailAddress, sameEmailAddress } from '../../lib/core/email-address.js';

/**
 * The one canonical form of an e-mail address (lib/core/email-address.ts), as a pure function. What it means over
 * HTTP (one account per mailbox, one limit per mailbox) is in email-variants.test.ts.
 */
describe('parseEmailAddress', () => {
  test.each([
    [
      'plain ASCII, lower-cased in the key only',
      'Alice@Example.COM',
      'Alice@Example.COM',
      'Alice@example.com',
      'alice@example.com',
    ],
    ['surrounding white space', '  bob@example.com\t', 'bob@example.com', 'bob@example.com', 'bob@example.com'],
    ['one trailing dot of the domain', 'dot@example.com.', 'dot@example.com', 'dot@example.com', 'dot@example.com'],
    [
      'an IDN domain',
      'bob@Bücher.example',
      'bob@Bücher.example',
      'bob@xn--bcher-kva.example',
      'bob@xn--bcher-kva.example',
    ],
    [
      'its punycode form',
      'bob@XN--BCHER-KVA.example',
      'bob@XN--BCHER-KVA.example',
      'bob@xn--bcher-kva.example',
      'bob@xn--bcher-kva.example',
    ],
    [
      'an IDN domain written with a combining mark',
      'bob@bu\u0308cher.example',
      'bob@b\u00fccher.example',
      'bob@xn--bcher-kva.example',
      'bob@xn--bcher-kva.example',
    ],
    [
      'a fullwidth domain',
      'carol@ｅｘａｍｐｌｅ.test',
      'carol@ｅｘａｍｐｌｅ.test',
      'carol@example.test',
      'carol@example.test',
    ],
    [
      'an ideographic full stop',
      'dan@mail.example\u3002test\u3002',
      'dan@mail.example\u3002test',
      'dan@mail.example.test',
      'dan@mail.example.test',
    ],
    ['a decomposed local part (NFD)', 'Jose\u0301@x.test', 'Jos\u00e9@x.test', 'Jos\u00e9@x.test', 'jos\u00e9@x.test'],
    ['the Kelvin sign (NFC makes it K)', '\u212Aate@x.test', 'Kate@x.test', 'Kate@x.test', 'kate@x.test'],
    [
      'a non-Latin local part',
      'Дмитрий@пример.рф',
      'Дмитрий@пример.рф',
      'Дмитрий@xn--e1afmkfd.xn--p1ai',
      'дмитрий@xn--e1afmkfd.xn--p1ai',
    ],
    ['IDNA2008: ß is kept, not mapped to ss', 'x@faß.de', 'x@faß.de', 'x@xn--fa-hia.de', 'x@xn--fa-hia.de'],
    [
      'every atext character',
      "a!#$%&'*+-/=?^_`{|}~.Z@x.test",
      "a!#$%&'*+-/=?^_`{|}~.Z@x.test",
      "a!#$%&'*+-/=?^_`{|}~.Z@x.test",
      "a!#$%&'*+-/=?^_`{|}~.z@x.test",
    ],
  ])('%s', (_name, input, address, mailbox, key) => {
    expect(parseEmailAddress(input)).toEqual({ address, mailbox, key });
    expect(canonicalEmail(input)).toBe(key);
  });

  test.each([
    ['an invalid punycode label', 'bob@xn--zz.example'],
    ['an empty punycode label', 'bob@xn--.example'],
    ['a label starting with a hyphen', 'bob@-x.example'],
    ['an underscore in the domain', 'bob@exa_mple.com'],
    ['a percent-encoded domain (the URL parser would decode it)', 'bob@%41.example'],
    ['a single-label domain', 'bob@localhost'],
    ['an IPv4 address', 'bob@192.0.2.1'],
    ['a numeric IPv4 form the URL parser rewrites', 'bob@0x7f.1'],
    ['an address literal', 'bob@[192.0.2.1]'],
    ['two trailing dots', 'bob@example.com..'],
    ['an empty label', 'bob@example..com'],
    ['no local part', '@example.com'],
    ['no domain', 'bob@'],
    ['no @', 'bob.example.com'],
    ['a quoted local part', '"bob smith"@example.com'],
    ['a display name', 'Bob <bob@example.com>'],
    ['two addresses', 'bob@example.com,eve@example.com'],
    ['a space inside', 'bob smith@example.com'],
    ['a soft hyphen in the local part (invisible)', 'fr\u00ADank@x.test'],
    ['a zero-width joiner in the local part', 'gr\u200Dace@x.test'],
    ['a variation selector in the local part', 'grace\uFE0F@x.test'],
    ['a right-to-left mark in the local part', 'grace\u200F@x.test'],
    ['a fullwidth letter in the local part (NFKC would fold it)', 'ｈeidi@x.test'],
    ['a ligature in the local part', 'ﬁona@x.test'],
    ['a superscript digit in the local part', 'ivan²@x.test'],
    ['an emoji in the local part', 'jo😀@x.test'],
    ['a control character', 'jo\u0001e@x.test'],
    [
      'a domain longer than 253 characters',
      `x@${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(60)}.test`,
    ],
    ['a label longer than 63 characters', `x@${'a'.repeat(64)}.test`],
  ])('%s is refused', (_name, input) => {
    expect(parseEmailAddress(input)).toBeUndefined();
    expect(canonicalEmail(input)).toBeUndefined();
  });

  test('a plain ASCII address has the lower-cased address as its key, the index key of earlier versions', () => {
    const atext = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-/=?^_`{|}~.";
    const ldh = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
    let seed = 7;
    const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const word = (chars: string, length: number) => Array.from({ length }, () => chars[random(chars.length)]).join('');
    for (let i = 0; i < 2000; i++) {
      const address = `${word(atext, 1 + random(20))}@${word(ldh, 1 + random(10))}.${word(ldh.slice(0, 52), 2 + random(5))}`;
      expect(canonicalEmail(address)).toBe(address.toLowerCase());
    }
  });

  test('the forms are stable: every form of an accepted address has the same key (all code points in the local part)', () => {
    const unstable: string[] = [];
    for (let cp = 0x80; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const parsed = parseEmailAddress(`a${String.fromCodePoint(cp)}@x.test`);
      if (!parsed) continue;
      for (const form of [parsed.address, parsed.mailbox, parsed.key]) {
        if (canonicalEmail(form) !== parsed.key) unstable.push(`U+${cp.toString(16)} ${form}`);
      }
    }
    expect(unstable).toEqual([]);
  });

  test('sameEmailAddress compares canonical forms and is false for text that is no address', () => {
    expect(sameEmailAddress('bob@bücher.example', 'BOB@xn--bcher-kva.example.')).toBe(true);
    expect(sameEmailAddress('bob@example.com', 'rob@example.com')).toBe(false);
    expect(sameEmailAddress('not an address', 'not an address')).toBe(false);
  });
});
