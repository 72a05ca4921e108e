import { TestBrowser } from '../helpers/browser.js';
import {
  CHALLENGE,
  delivered,
  errorOnPage,
  pushRequest,
  query,
  requestObject,
  type Params,
} from '../helpers/authorization.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * SPEC rules 1–3 and 7, RFC 6749 §3.1.2, RFC 9700 §4.1.3: every redirect_uri that is not byte for byte one of
 * the client's registered URIs is refused on the server's own 400 page (or, for PAR, in the back-channel
 * answer), whatever the response_mode and whether the parameters come in the query, in a request object or
 * in a pushed request. The browser is never sent anywhere outside the server.
 */

const APP = {
  id: 'table-app',
  secret: 'table-app-secret-0123',
  uris: ['https://app.example.com/cb', 'https://app.example.com/cb2?tenant=a'],
};
const WEB = { id: 'demo-web', secret: 'demo-web-secret', uri: 'http://localhost:8080/callback' };
const NATIVE = { id: 'native-app', uri: 'http://127.0.0.1/cb' };

let srv: RunningServer;
beforeAll(async () => {
  srv = await startServer({
    webMessageResponseMode: true,
    clients: [
      {
        client_id: WEB.id,
        client_secret: WEB.secret,
        redirect_uris: [WEB.uri],
        token_endpoint_auth_method: 'client_secret_post',
      },
      {
        client_id: APP.id,
        client_secret: APP.secret,
        redirect_uris: APP.uris,
        token_endpoint_auth_method: 'client_secret_post',
      },
      {
        client_id: NATIVE.id,
        redirect_uris: [NATIVE.uri],
        application_type: 'native',
        token_endpoint_auth_method: 'none',
      },
    ],
  });
});
afterAll(() => srv.close());

type Row = [name: string, client: 'app' | 'web', redirectUri: string | string[] | undefined, error: string];
const A = 'https://app.example.com';
const INVALID = 'invalid_redirect_uri';

const ROWS: Row[] = [
  ['external URI', 'app', 'https://attacker.example/cb', INVALID],
  ['added path segment', 'app', `${A}/cb/extra`, INVALID],
  ['removed path segment', 'app', `${A}/`, INVALID],
  ['path prefix match', 'app', `${A}/cb-evil`, INVALID],
  ['trailing slash', 'app', `${A}/cb/`, INVALID],
  ['double slash', 'app', `${A}//cb`, INVALID],
  ['added query', 'app', `${A}/cb?x=1`, INVALID],
  ['added empty query', 'app', `${A}/cb?`, INVALID],
  ['removed query', 'app', `${A}/cb2`, INVALID],
  ['changed query value', 'app', `${A}/cb2?tenant=b`, INVALID],
  ['extra query parameter', 'app', `${A}/cb2?tenant=a&next=https://attacker.example`, INVALID],
  ['fragment', 'app', `${A}/cb#frag`, INVALID],
  ['empty fragment', 'app', `${A}/cb#`, INVALID],
  ['userinfo before the host', 'app', 'https://attacker.example@app.example.com/cb', INVALID],
  ['host@evil userinfo construct', 'app', 'https://app.example.com@attacker.example/cb', INVALID],
  ['host:port@evil', 'app', 'https://app.example.com:443@attacker.example/cb', INVALID],
  ['encoded at-sign', 'app', 'https://app.example.com%40attacker.example/cb', INVALID],
  ['host that begins with localhost', 'web', 'http://localhost.evil.example:8080/callback', INVALID],
  ['host localhost + suffix', 'web', 'http://localhostevil.example:8080/callback', INVALID],
  ['localhost replaced by 127.0.0.1', 'web', 'http://127.0.0.1:8080/callback', INVALID],
  ['dot-segment', 'app', `${A}/cb/../admin`, INVALID],
  ['percent-encoded dot-segment', 'app', `${A}/cb/%2e%2e/admin`, INVALID],
  ['upper-case percent-encoded dot-segment', 'app', `${A}/cb/%2E%2E/admin`, INVALID],
  ['single-dot segment', 'app', `${A}/./cb`, INVALID],
  ['encoded slashes', 'app', `${A}/cb%2F..%2Fadmin`, INVALID],
  ['changed scheme', 'app', 'http://app.example.com/cb', INVALID],
  ['changed port', 'app', 'https://app.example.com:8443/cb', INVALID],
  ['explicit default port', 'app', 'https://app.example.com:443/cb', INVALID],
  ['changed port on localhost', 'web', 'http://localhost:8081/callback', INVALID],
  ['host case', 'app', 'https://APP.example.com/cb', INVALID],
  ['path case', 'app', `${A}/CB`, INVALID],
  ['IDN look-alike (Cyrillic a)', 'app', 'https://\u0430pp.example.com/cb', INVALID],
  ['IDN look-alike in punycode', 'app', 'https://xn--pp-8kc.example.com/cb', INVALID],
  ['backslash before at-sign', 'app', 'https://app.example.com\\@attacker.example/cb', INVALID],
  ['backslash dot-segments', 'app', `${A}/cb\\..\\admin`, INVALID],
  ['backslash as scheme separator', 'app', 'https:\\\\attacker.example/cb', INVALID],
  ['open redirect on the client host', 'app', `${A}/redirect?to=https://attacker.example/cb`, INVALID],
  ['subdomain of the client host', 'app', 'https://evil.app.example.com/cb', INVALID],
  ['client host as a subdomain', 'app', 'https://app.example.com.attacker.example/cb', INVALID],
  ['trailing space', 'app', `${A}/cb `, INVALID],
  ['encoded null byte', 'app', `${A}/cb%00`, INVALID],
  ['protocol-relative', 'app', '//attacker.example/cb', INVALID],
  ['relative path', 'app', '/cb', INVALID],
  ['javascript: URI', 'app', 'javascript:alert(document.domain)//', INVALID],
  ['data: URI', 'app', 'data:text/html,<script>alert(1)</script>', INVALID],
  ['missing redirect_uri', 'app', undefined, 'invalid_request'],
  ['empty redirect_uri', 'app', '', 'invalid_request'],
  ['duplicated redirect_uri, both registered', 'app', [`${A}/cb`, `${A}/cb`], 'invalid_request'],
  ['duplicated redirect_uri, one external', 'app', [`${A}/cb`, 'https://attacker.example/cb'], 'invalid_request'],
];

const MODES = ['query', 'fragment', 'form_post', 'web_message'] as const;
const cases = MODES.flatMap((mode) => ROWS.map((row) => [mode, ...row] as const));

function clientOf(which: 'app' | 'web') {
  return which === 'app' ? { id: APP.id, secret: APP.secret } : { id: WEB.id, secret: WEB.secret };
}

function authorizationParams(clientId: string, mode: string, redirectUri: Row[2]): Params {
  return {
    client_id: clientId,
    response_type: 'code',
    response_mode: mode,
    redirect_uri: redirectUri,
    scope: 'openid',
    state: 'st-1',
    nonce: 'n-1',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
  };
}

/** Opens `url` in a fresh browser and asserts a 400 page naming `error`, with no step outside the server. */
async function expectRefusedOnPage(url: string, error: string) {
  const browser = new TestBrowser(srv.issuer);
  const page = await browser.go(url);
  expect({ status: page.status, error: errorOnPage(page) }).toEqual({ status: 400, error });
  expect(page.headers.get('location')).toBeNull();
  expect(page.redirectedTo).toBeUndefined();
  expect(delivered(page)).toBeUndefined();
  expect(browser.visited.every((u) => u.startsWith(srv.issuer))).toBe(true);
  expect(page.body).not.toMatch(/code=|attacker\.example/);
}

describe('redirect_uri in the query string', () => {
  test.each(cases)('response_mode=%s: %s is refused', async (mode, _name, which, redirectUri, error) => {
    const client = clientOf(which);
    await expectRefusedOnPage(
      `${srv.issuer}/authorization?${query(authorizationParams(client.id, mode, redirectUri))}`,
      error,
    );
  });
});

describe('redirect_uri in a form POST (OIDC Core §3.1.2.1)', () => {
  // The POST is a 303 to the same request as a GET (lib/oidc/authorization-post.ts): the GET's checks refuse it.
  test.each(cases)('response_mode=%s: %s is refused', async (mode, _name, which, redirectUri, error) => {
    const client = clientOf(which);
    const res = await fetch(`${srv.issuer}/authorization`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: query(authorizationParams(client.id, mode, redirectUri)),
    });
    expect([res.status, new URL(res.headers.get('location')!).origin]).toEqual([303, srv.issuer]);
    await expectRefusedOnPage(res.headers.get('location')!, error);
  });
});

describe('redirect_uri inside a request object (JAR, RFC 9101)', () => {
  test.each(cases)('response_mode=%s: %s is refused', async (mode, _name, which, redirectUri, error) => {
    const client = clientOf(which);
    const request = await requestObject(
      srv.issuer,
      client.id,
      client.secret,
      authorizationParams(client.id, mode, redirectUri),
    );
    await expectRefusedOnPage(`${srv.issuer}/authorization?${query({ client_id: client.id, request })}`, error);
  });
});

describe('redirect_uri in a pushed authorization request (PAR, RFC 9126)', () => {
  // RFC 9126 §2.3 answers with RFC 6749 §5.2 codes: oidc-provider reports a redirect_uri mismatch as
  // invalid_request with a description that names redirect_uri.
  test.each(cases)('response_mode=%s: %s is refused at the push', async (mode, _name, which, redirectUri, error) => {
    const client = clientOf(which);
    const pushed = await pushRequest(
      srv.issuer,
      client.id,
      client.secret,
      authorizationParams(client.id, mode, redirectUri),
    );
    expect({ status: pushed.status, error: pushed.body.error }).toEqual({ status: 400, error: 'invalid_request' });
    if (error === INVALID)
      expect(pushed.body.error_description).toBe(
        "redirect_uri did not match any of the client's registered redirect_uris",
      );
    expect(pushed.body.request_uri).toBeUndefined();
  });
});

describe('the registered redirect_uri works in every mode and transport (the table above is not vacuous)', () => {
  test.each(MODES)('response_mode=%s', async (mode) => {
    for (const redirectUri of APP.uris) {
      const params = authorizationParams(APP.id, mode, redirectUri);
      const browser = new TestBrowser(srv.issuer);
      const direct = await browser.go(`${srv.issuer}/authorization?${query(params)}`);
      // No session yet: the login page of this server, reached without leaving it.
      expect(direct.status).toBe(200);
      expect(direct.dom.querySelector('input[name=password]')).not.toBeNull();

      const request = await requestObject(srv.issuer, APP.id, APP.secret, params);
      const viaJar = await new TestBrowser(srv.issuer).go(
        `${srv.issuer}/authorization?${query({ client_id: APP.id, request })}`,
      );
      expect(viaJar.dom.querySelector('input[name=password]')).not.toBeNull();

      const pushed = await pushRequest(srv.issuer, APP.id, APP.secret, params);
      expect(pushed.status).toBe(201);
      const viaPar = await new TestBrowser(srv.issuer).go(
        `${srv.issuer}/authorization?${query({ client_id: APP.id, request_uri: pushed.body.request_uri! })}`,
      );
      expect(viaPar.dom.querySelector('input[name=password]')).not.toBeNull();
    }
  });
});

describe('native clients on a loopback IP: only the port may vary (RFC 8252 §7.3, done by oidc-provider)', () => {
  const open = (redirectUri: string) =>
    new TestBrowser(srv.issuer).go(
      `${srv.issuer}/authorization?${query(authorizationParams(NATIVE.id, 'query', redirectUri))}`,
    );

  test.each(['http://127.0.0.1:51234/cb', 'http://127.0.0.1:80/cb'])('%s is accepted (the login page)', async (uri) => {
    const page = await open(uri);
    expect(page.dom.querySelector('input[name=password]')).not.toBeNull();
  });

  test.each([
    ['another path', 'http://127.0.0.1:51234/other'],
    ['localhost instead of the IP', 'http://localhost:51234/cb'],
    ['another loopback address', 'http://127.0.0.2:51234/cb'],
    ['https', 'https://127.0.0.1:51234/cb'],
    ['added query', 'http://127.0.0.1:51234/cb?x=1'],
    ['userinfo', 'http://attacker.example@127.0.0.1:51234/cb'],
  ])('%s is refused', async (_name, uri) => {
    await expectRefusedOnPage(
      `${srv.issuer}/authorization?${query(authorizationParams(NATIVE.id, 'query', uri))}`,
      INVALID,
    );
  });
});
