import { ConfigError, loadConfig } from '../../lib/index.js';
import { CHALLENGE, query } from '../helpers/authorization.js';
import { register, WEB_CLIENT } from '../helpers/registration.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * URI metadata must be a URI (RFC 7591 §2, RFC 3986 §2): only unreserved and reserved characters and
 * percent-encoded octets. WHATWG `new URL()` accepts more and repairs it (drops tab/CR/LF, percent-encodes the
 * rest), so a value only checked with it was stored as sent and later redirected to repaired: another URI.
 */
let srv: RunningServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(() => srv.close());

const BASE = 'https://client.example.org';

/** One row per class of character RFC 3986 does not allow: the value, and how the refusal names it. */
const BAD: Array<[string, string, string]> = [
  ['CR LF (header injection)', `${BASE}/cb\r\nSet-Cookie: x=1`, 'a control character (U+000D)'],
  ['tab', `${BASE}/c\tb`, 'a control character (U+0009)'],
  ['NUL', `${BASE}/cb\u0000x`, 'a control character (U+0000)'],
  ['DEL', `${BASE}/c\u007fb`, 'a control character (U+007F)'],
  ['space', `${BASE}/c b`, 'a space (U+0020)'],
  ['double quote', `${BASE}/c"b`, 'the character " (U+0022)'],
  ['angle brackets', `${BASE}/c<x>`, 'the character < (U+003C)'],
  ['closing angle bracket', `${BASE}/c>x`, 'the character > (U+003E)'],
  ['backslash', `${BASE}/c\\b`, 'the character \\ (U+005C)'],
  ['caret', `${BASE}/c^b`, 'the character ^ (U+005E)'],
  ['backtick', `${BASE}/c\`b`, 'the character ` (U+0060)'],
  ['opening brace', `${BASE}/c{b`, 'the character { (U+007B)'],
  ['vertical bar', `${BASE}/c|b`, 'the character | (U+007C)'],
  ['closing brace', `${BASE}/c}b`, 'the character } (U+007D)'],
  ['non-ASCII in the path', `${BASE}/café`, 'a non-ASCII character (U+00E9'],
  ['non-ASCII host (not in its xn-- form)', 'https://bücher.example/cb', 'a non-ASCII character (U+00FC'],
  ['"%" followed by non-hex', `${BASE}/c%zzb`, '"%" not followed by two hex digits'],
  ['"%" with one hex digit at the end', `${BASE}/cb?x=%2`, '"%" not followed by two hex digits'],
];

describe('URI metadata with characters RFC 3986 does not allow is refused at registration', () => {
  test.each(BAD)('redirect_uris, %s: 400 invalid_redirect_uri naming the character', async (_name, uri, named) => {
    const res = await register(srv.issuer, { ...WEB_CLIENT, redirect_uris: ['https://client.example.org/ok', uri] });
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: 'invalid_redirect_uri' });
    expect(res.body.error_description).toContain(`redirect_uris entry ${JSON.stringify(uri)} contains ${named}`);
    expect(res.body.error_description).toContain('RFC 3986');
  });

  test.each(BAD)(
    'post_logout_redirect_uris, %s: 400 invalid_client_metadata naming the member',
    async (_name, uri, named) => {
      const res = await register(srv.issuer, { ...WEB_CLIENT, post_logout_redirect_uris: [uri] });
      expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: 'invalid_client_metadata' });
      expect(res.body.error_description).toContain(
        `post_logout_redirect_uris entry ${JSON.stringify(uri)} contains ${named}`,
      );
    },
  );

  test.each([
    'logo_uri',
    'client_uri',
    'policy_uri',
    'tos_uri',
    'initiate_login_uri',
    'jwks_uri',
    'sector_identifier_uri',
  ])('%s with a space or a quote: 400 invalid_client_metadata naming the member', async (member) => {
    for (const [value, named] of [
      [`${BASE}/a b`, 'a space (U+0020)'],
      [`${BASE}/a"onerror="x`, 'the character " (U+0022)'],
    ]) {
      const res = await register(srv.issuer, { ...WEB_CLIENT, [member]: value });
      expect({ status: res.status, error: res.body.error, description: res.body.error_description }).toEqual({
        status: 400,
        error: 'invalid_client_metadata',
        description: expect.stringContaining(`${member} contains ${named}`),
      });
    }
  });

  test('an RFC 7592 update is held to the same rule', async () => {
    const created = await register(srv.issuer, { ...WEB_CLIENT });
    expect(created.status).toBe(201);
    const update = (redirectUris: string[]) =>
      fetch(String(created.body.registration_client_uri), {
        method: 'PUT',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${String(created.body.registration_access_token)}`,
        },
        body: JSON.stringify({
          client_id: created.body.client_id,
          redirect_uris: redirectUris,
          client_name: 'Test RP',
        }),
      });
    const bad = await update([`${BASE}/cb\r\nx`]);
    expect({ status: bad.status, error: ((await bad.json()) as { error: string }).error }).toEqual({
      status: 400,
      error: 'invalid_redirect_uri',
    });
    expect((await update([`${BASE}/cb%0D%0Ax`])).status).toBe(200);
  });
});

describe('well-formed URIs still register, and the answer goes to the URI registered, exactly', () => {
  test.each([
    ['percent-encoded space and braces in path and query', `${BASE}/c%20b?x=%7Bz%7D&y=1`],
    ['sub-delims and unreserved characters', `${BASE}/cb;p=1,2!$'()+~_-.`],
    ['an IPv6 literal host', 'https://[2001:db8::1]:8443/cb'],
    ['an internationalized host in its xn-- form', 'https://xn--bcher-kva.example/cb'],
  ])('%s: 201, stored as sent', async (_name, uri) => {
    const res = await register(srv.issuer, { ...WEB_CLIENT, redirect_uris: [uri], post_logout_redirect_uris: [uri] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ redirect_uris: [uri], post_logout_redirect_uris: [uri] });
  });

  test('prompt=none answers at the registered percent-encoded URI; the same URI with a raw space is not it', async () => {
    const registered = `${BASE}/c%20b?x=1`;
    const res = await register(srv.issuer, {
      ...WEB_CLIENT,
      redirect_uris: [registered],
      token_endpoint_auth_method: 'none',
    });
    expect(res.status).toBe(201);
    const authorize = (redirectUri: string) =>
      fetch(
        `${srv.issuer}/authorization?${query({
          client_id: String(res.body.client_id),
          redirect_uri: redirectUri,
          response_type: 'code',
          scope: 'openid',
          prompt: 'none',
          code_challenge: CHALLENGE,
          code_challenge_method: 'S256',
          state: 's1',
        })}`,
        { redirect: 'manual' },
      );
    const answered = await authorize(registered);
    expect(answered.status).toBe(303);
    expect(answered.headers.get('location')).toMatch(
      /^https:\/\/client\.example\.org\/c%20b\?x=1&error=login_required&/,
    );
    const raw = await authorize(`${BASE}/c b?x=1`);
    expect([raw.status, raw.headers.get('location')]).toEqual([400, null]);
  });
});

describe('statically configured clients', () => {
  // Checked by the configuration schema first (ajv-formats' RFC 3986 "uri" format), before the registration policy.
  test.each(BAD)('%s in redirect_uris or post_logout_redirect_uris is a ConfigError at that entry', (_name, uri) => {
    for (const member of ['redirect_uris', 'post_logout_redirect_uris']) {
      const client = {
        client_id: 'static',
        client_secret: 'static-secret-0123456789',
        redirect_uris: [`${BASE}/ok`],
        [member]: [`${BASE}/ok`, uri],
      };
      let error: unknown;
      try {
        loadConfig({ issuer: 'http://127.0.0.1:3000', clients: [client] }, {});
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).path).toBe(`clients[0].${member}[1]`);
    }
  });
});
