import { gzipSync } from 'node:zlib';
import { TestBrowser } from '../helpers/browser.js';
import {
  CHALLENGE,
  VERIFIER,
  delivered,
  pushRequest,
  query,
  requestObject,
  type Params,
} from '../helpers/authorization.js';
import { browse, oidc, relyingParty, startAuthorization, type RelyingParty } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * The authorization endpoint's POST (OpenID Connect Core §3.1.2.1): a form POST is answered `303` to the same request
 * as a GET, which the browser follows with its SameSite=Lax session cookie, so every check of the GET path applies.
 * Before, `POST /authorization` answered `405`.
 */

const WEB = { id: 'demo-web', secret: 'demo-web-secret', uri: 'http://localhost:8080/callback' };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

let srv: RunningServer;
let rp: RelyingParty;
beforeAll(async () => {
  srv = await startServer();
  rp = await relyingParty(srv.issuer);
});
afterAll(() => srv.close());

const params = (extra: Params = {}): Params => ({
  client_id: WEB.id,
  response_type: 'code',
  redirect_uri: WEB.uri,
  scope: 'openid',
  state: 'st',
  nonce: 'n',
  code_challenge: CHALLENGE,
  code_challenge_method: 'S256',
  ...extra,
});
/** POSTs `body` to the authorization endpoint as a browser would submit a form (no cookies: a cross-site POST). */
function post(body: string | Uint8Array | undefined, headers: Record<string, string> = FORM, path = '/authorization') {
  const init = { method: 'POST', body, redirect: 'manual' as const, headers: { accept: 'text/html', ...headers } };
  return fetch(`${srv.issuer}${path}`, init);
}
/** The code (or error) a browser that follows `url` and signs in ends with at the client. */
async function codeAt(url: string, browser = new TestBrowser(srv.issuer)) {
  return (await browse(browser, url)).callback.searchParams;
}

describe('a form POST is a 303 to the same request as a GET', () => {
  test('Location is the GET form (authorization_endpoint, the same parameters in order)', async () => {
    const start = await startAuthorization(rp, { ui_locales: 'de en', claims: '{"userinfo":{"email":null}}' });
    const res = await post(start.url.searchParams.toString());
    expect([res.status, res.headers.get('location'), res.headers.get('cache-control')]).toEqual([
      303,
      start.url.href,
      'no-store',
    ]);
  });

  test('the GET it leads to completes the flow: a code, exchanged for tokens', async () => {
    const res = await post(query(params()));
    const got = await codeAt(res.headers.get('location')!);
    expect(got.get('state')).toBe('st');
    const tokens = await fetch(`${srv.issuer}/token`, {
      method: 'POST',
      headers: FORM,
      body: query({
        grant_type: 'authorization_code',
        code: got.get('code')!,
        redirect_uri: WEB.uri,
        code_verifier: VERIFIER,
        client_id: WEB.id,
        client_secret: WEB.secret,
      }),
    });
    const body = (await tokens.json()) as { access_token?: unknown };
    expect([tokens.status, typeof body.access_token]).toEqual([200, 'string']);
  });

  test('a duplicated parameter gets what the GET with it gets: invalid_request', async () => {
    const body = query(params({ scope: ['openid', 'openid email'] }));
    const res = await post(body);
    expect(res.status).toBe(303);
    const viaPost = delivered(await new TestBrowser(srv.issuer).go(res.headers.get('location')!));
    const viaGet = delivered(await new TestBrowser(srv.issuer).go(`${srv.issuer}/authorization?${body}`));
    expect(viaPost).toEqual(viaGet);
    expect(viaPost?.params).toMatchObject({
      error: 'invalid_request',
      error_description: "'scope' parameter must not be provided twice",
      state: 'st',
    });
  });

  test('a request object by value and a pushed request_uri are carried to the GET', async () => {
    const request = await requestObject(srv.issuer, WEB.id, WEB.secret, params({ state: 'in-jar' }));
    const viaJar = await post(query({ client_id: WEB.id, request }));
    expect((await codeAt(viaJar.headers.get('location')!)).get('state')).toBe('in-jar');
    const pushed = await pushRequest(srv.issuer, WEB.id, WEB.secret, params({ state: 'pushed' }));
    const viaPar = await post(query({ client_id: WEB.id, request_uri: pushed.body.request_uri }));
    expect((await codeAt(viaPar.headers.get('location')!)).get('state')).toBe('pushed');
  });

  test('prompt=none with a session: the POST carries no cookie (Lax), the GET it leads to does: a code', async () => {
    const browser = new TestBrowser(srv.issuer);
    await codeAt(`${srv.issuer}/authorization?${query(params())}`, browser);
    const res = await post(query(params({ prompt: 'none', state: 'silent' })));
    const page = await browser.go(res.headers.get('location')!);
    const back = new URL(page.redirectedTo!).searchParams;
    expect([back.get('error'), back.get('state'), typeof back.get('code')]).toEqual([null, 'silent', 'string']);
  });

  test('a request just under the URL limit is redirected, and the server accepts its GET', async () => {
    const base = query(params({ state: '' }));
    const state = 'x'.repeat(8192 - '/authorization?'.length - base.length);
    const res = await post(query(params({ state })));
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get('location')!).search.length + '/authorization'.length).toBe(8192);
    const page = await new TestBrowser(srv.issuer).go(res.headers.get('location')!);
    expect(page.status).toBe(200);
    expect(page.dom.querySelector('input[name=password]')).not.toBeNull();
  });
});

describe('refusals of a POST, each with invalid_request naming the problem', () => {
  const json = { ...FORM, accept: 'application/json' };
  const needsForm =
    'POST /authorization takes an application/x-www-form-urlencoded body ' + '(OpenID Connect Core section 3.1.2.1);';
  const tooLong = new RegExp(
    '^This authorization request is 8\\d{3} bytes as a URL, more than the 8192 this server ' +
      'accepts at the authorization endpoint: push it \\(POST /request, RFC 9126\\) and send only client_id',
  );
  test.each([
    ['no Content-Type', 400, undefined, { accept: 'application/json' }, `${needsForm} it has no Content-Type.`],
    [
      'a JSON body',
      400,
      JSON.stringify(params()),
      { 'content-type': 'application/json', accept: 'application/json' },
      `${needsForm} its Content-Type is 'application/json'.`,
    ],
    [
      'multipart',
      400,
      'x',
      { 'content-type': 'multipart/form-data; boundary=b', accept: 'application/json' },
      `${needsForm} its Content-Type is 'multipart/form-data; boundary=b'.`,
    ],
    [
      'a body over 56 KiB',
      413,
      `${query(params())}&state=${'x'.repeat(57 * 1024)}`,
      json,
      'The request body is larger than this endpoint accepts (56 KiB).',
    ],
    ['a URL over the limit', 413, query(params({ state: 'x'.repeat(8192) })), json, expect.stringMatching(tooLong)],
    [
      'a gzip body',
      415,
      gzipSync(query(params())),
      { ...json, 'content-encoding': 'gzip' },
      'This endpoint does not accept a Content-Encoding (the request has "gzip"): send the body uncompressed.',
    ],
    [
      'a malformed percent-encoding',
      400,
      `${query(params())}&ui_locales=de%ZZ`,
      json,
      "The form body has a malformed percent-encoding: '%ZZ' in the parameter 'ui_locales' " +
        '(a % must be followed by two hexadecimal digits).',
    ],
  ])('%s: %i', async (_name, status, body, headers, description) => {
    const res = await post(typeof body === 'object' ? new Uint8Array(body) : body, headers);
    expect([res.status, res.headers.get('location'), await res.json()]).toEqual([
      status,
      null,
      { error: 'invalid_request', error_description: description },
    ]);
  });

  test('a POST with a query string as well: 400, our error page for a browser, no redirect', async () => {
    const res = await post(query(params()), FORM, `/authorization?${query({ prompt: 'none' })}`);
    const text = await res.text();
    expect([res.status, res.headers.get('location'), res.headers.get('content-type')]).toEqual([
      400,
      null,
      'text/html; charset=utf-8',
    ]);
    expect(text).toContain('carries its parameters in the form body only');
  });
});

test('openid-client builds the request, the browser POSTs it as a form, and the flow ends in tokens', async () => {
  const start = await startAuthorization(rp);
  const browser = new TestBrowser(srv.issuer);
  const endpoint = rp.config.serverMetadata().authorization_endpoint!;
  const posted = await browser.go(endpoint, { method: 'POST', headers: FORM, body: start.url.searchParams.toString() });
  let page = await browser.submit(posted, { email: 'alice@example.com', password: 'alice-demo-password' });
  // Consent may be remembered from an earlier test.
  if (!page.redirectedTo) page = await browser.submit(page, {}, { name: 'decision', value: 'allow' });
  const tokens = await oidc.authorizationCodeGrant(rp.config, new URL(page.redirectedTo!), {
    pkceCodeVerifier: start.codeVerifier,
    expectedState: start.state,
    expectedNonce: start.nonce,
  });
  expect(tokens.claims()?.sub).toBeTruthy();
  expect(browser.visited[1]).toBe(start.url.href);
});
