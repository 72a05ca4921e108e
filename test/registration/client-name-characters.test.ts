import { ConfigError, loadConfig } from '../../lib/index.js';
import { register, WEB_CLIENT } from '../helpers/registration.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * client_name is shown on the login, consent, logout and account pages. Invisible (default-ignorable) characters make
 * a name show as another string ("Good\u200BBank" reads "GoodBank"); runs of blanks show as a gap that hides the rest.
 * Controls and bidirectional formatting characters have their own rows in registration.test.ts.
 */
let srv: RunningServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(() => srv.close());

const invisible = (hex: string) =>
  `client_name holds U+${hex}, an invisible (default-ignorable) character: the name would not show as what it is on the sign-in and consent pages`;
const run = (length: number, names: string) =>
  `client_name holds a run of ${length} blank characters (${names}): separate words with one space`;

/** [row, client_name, exact error_description] */
const REFUSED: Array<[string, string, string]> = [
  ['zero-width space and BOM', 'Good\u200BBank\uFEFF', invisible('200B')],
  ['trailing BOM (zero-width no-break space)', 'GoodBank\uFEFF', invisible('FEFF')],
  ['word joiner', 'Good\u2060Bank', invisible('2060')],
  ['soft hyphen', 'Good\u00ADBank', invisible('00AD')],
  ['Hangul filler', 'Good\u3164\u3164\u3164Bank', invisible('3164')],
  ['halfwidth Hangul filler', 'Good\uFFA0Bank', invisible('FFA0')],
  ['combining grapheme joiner', 'Good\u034FBank', invisible('034F')],
  ['Mongolian vowel separator', 'Good\u180EBank', invisible('180E')],
  ['tag character', 'GoodBank\u{E0041}', invisible('E0041')],
  ['zero-width joiner between Latin letters', 'Good\u200DBank', invisible('200D')],
  ['zero-width non-joiner between Latin letters', 'Good\u200CBank', invisible('200C')],
  ['zero-width non-joiner between Cyrillic letters', 'Банк\u200CБанк', invisible('200C')],
  ['emoji variation selector after a letter', 'GoodBank\uFE0F', invisible('FE0F')],
  ['two no-break spaces', 'Good\u00A0\u00A0Bank', run(2, 'U+00A0')],
  ['150 no-break spaces', `Google${'\u00A0'.repeat(150)}evil`, run(150, 'U+00A0')],
  ['two ASCII spaces', 'Good  Bank', run(2, 'U+0020')],
  ['a space and a no-break space', 'Good \u00A0Bank', run(2, 'U+0020, U+00A0')],
  ['ideographic spaces', 'Good\u3000\u3000Bank', run(2, 'U+3000')],
  ['em spaces', 'Good\u2003\u2003\u2003Bank', run(3, 'U+2003')],
  ['braille blanks', 'Good\u2800\u2800Bank', run(2, 'U+2800')],
];

describe('client_name that would not show as what it is', () => {
  test.each(REFUSED)('registration refuses %s: 400 invalid_client_metadata', async (_row, name, description) => {
    const res = await register(srv.issuer, { ...WEB_CLIENT, client_name: name });
    expect({ status: res.status, error: res.body.error, description: res.body.error_description }).toEqual({
      status: 400,
      error: 'invalid_client_metadata',
      description,
    });
  });

  test.each(REFUSED)(
    'a configured client with %s is a ConfigError at clients[0].client_name',
    (_row, name, description) => {
      const client = {
        client_id: 'static',
        client_secret: 'static-secret-0123456789',
        redirect_uris: ['https://rp.example/cb'],
        client_name: name,
      };
      let error: unknown;
      try {
        loadConfig({ issuer: 'http://127.0.0.1:3000', clients: [client] }, {});
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems).toEqual([
        { path: 'clients[0].client_name', message: `client "static": ${description}` },
      ]);
    },
  );

  test('an RFC 7592 update is held to the same rule', async () => {
    const created = await register(srv.issuer, { ...WEB_CLIENT });
    expect(created.status).toBe(201);
    const res = await fetch(String(created.body.registration_client_uri), {
      method: 'PUT',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${String(created.body.registration_access_token)}`,
      },
      body: JSON.stringify({
        client_id: created.body.client_id,
        redirect_uris: WEB_CLIENT.redirect_uris,
        client_name: 'Good\u200BBank',
      }),
    });
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 400,
      body: { error: 'invalid_client_metadata', error_description: invisible('200B') },
    });
  });

  test.each([
    ['one space between words', 'Good Bank'],
    ['one no-break space', 'Café\u00A0Crème'],
    ['Persian with a zero-width non-joiner', 'فروشگاه می\u200Cخواهم'],
    ['Devanagari half form with a zero-width joiner', 'क्\u200Dष बैंक'],
    ['an emoji with its presentation selector', 'I \u2764\uFE0F Acme'],
    ['an emoji ZWJ sequence', 'Dev \u{1F469}\u200D\u{1F4BB} Tools'],
    ['an emoji with a skin tone', 'Hello \u{1F44B}\u{1F3FD}'],
  ])('accepted: %s', async (_row, name) => {
    const res = await register(srv.issuer, { ...WEB_CLIENT, client_name: name });
    expect([res.status, res.body.client_name]).toEqual([201, name]);
  });

  test('localized client_name#<tag> members are not supported: dropped, never shown', async () => {
    const res = await register(srv.issuer, { ...WEB_CLIENT, 'client_name#fr': 'Good\u200BBank' });
    expect(res.status).toBe(201);
    expect(res.body).not.toHaveProperty('client_name#fr');
  });
});
