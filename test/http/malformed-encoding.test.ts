import { TestBrowser } from '../helpers/browser.js';
import { CHALLENGE, query } from '../helpers/authorization.js';
import { relyingParty, signIn, startAuthorization } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * Malformed form encoding (query strings and form bodies) and form bodies without their media type, at every
 * endpoint: `400 invalid_request` naming the defect. Before, Node's lenient decoder kept `scope=openid%ZZ` as the
 * scope `openid%ZZ` (ignored) and turned bytes that are not UTF-8 into U+FFFD, and a /token body without
 * Content-Type was read as empty ("no client authentication mechanism provided").
 */

const WEB = { id: 'demo-web', secret: 'demo-web-secret', uri: 'http://localhost:8080/callback' };
const FORM = 'application/x-www-form-urlencoded';

let srv: RunningServer;
let accessToken: string;
let loginPath: string;
beforeAll(async () => {
  srv = await startServer();
  const rp = await relyingParty(srv.issuer);
  accessToken = (await signIn(srv.issuer, rp)).tokens.access_token;
  const page = await new TestBrowser(srv.issuer).go(String((await startAuthorization(rp)).url));
  loginPath = new URL(page.url).pathname.replace(/\/?$/, '/login');
});
afterAll(() => srv.close());

const authorization = query({
  client_id: WEB.id,
  response_type: 'code',
  redirect_uri: WEB.uri,
  state: 'st',
  nonce: 'n',
  code_challenge: CHALLENGE,
  code_challenge_method: 'S256',
});
const clientAuth = `client_id=${WEB.id}&client_secret=${WEB.secret}`;

/** `[endpoint, method, path, the request's text with DEFECT where the defect goes, where the text goes]`. */
const endpoints: Array<[string, string, () => string, string, 'query' | 'body']> = [
  ['GET /authorization', 'GET', () => '/authorization', `${authorization}&scope=openidDEFECT`, 'query'],
  ['POST /authorization', 'POST', () => '/authorization', `${authorization}&scope=openidDEFECT`, 'body'],
  ['POST /token', 'POST', () => '/token', `grant_type=authorization_code&code=abcDEFECT&${clientAuth}`, 'body'],
  ['POST /token/introspection', 'POST', () => '/token/introspection', `token=abcDEFECT&${clientAuth}`, 'body'],
  ['POST /token/revocation', 'POST', () => '/token/revocation', `token=abcDEFECT&${clientAuth}`, 'body'],
  ['POST /request (PAR)', 'POST', () => '/request', `${authorization}&scope=openidDEFECT&${clientAuth}`, 'body'],
  ['POST /userinfo', 'POST', () => '/userinfo', 'access_token=abcDEFECT', 'body'],
  ['GET /userinfo', 'GET', () => '/userinfo', 'claims=abcDEFECT', 'query'],
  ['GET discovery', 'GET', () => '/.well-known/openid-configuration', 'x=abcDEFECT', 'query'],
  ['GET /account/reset (page)', 'GET', () => '/account/reset', 'ui_locales=deDEFECT', 'query'],
  ['POST /account/reset (page form)', 'POST', () => '/account/reset', 'email=aDEFECT&csrf=x', 'body'],
  ['POST login page form', 'POST', () => loginPath, 'email=aDEFECT&password=x&csrf=x', 'body'],
];
/** `[defect, as the description shows it, what it says about it]`. */
const defects: Array<[string, string, string]> = [
  ['%ZZ', '%ZZ', '(a % must be followed by two hexadecimal digits).'],
  ['%', '%', '(a % must be followed by two hexadecimal digits).'],
  ['%4', '%4', '(a % must be followed by two hexadecimal digits).'],
  ['%C0%AF', '%C0%AF', 'is not UTF-8 (percent-encoded bytes must be UTF-8, RFC 3986 section 2.5).'],
  ['%ED%A0%80', '%ED%A0%80', 'is not UTF-8 (percent-encoded bytes must be UTF-8, RFC 3986 section 2.5).'],
];
const rows = endpoints.flatMap(([name, method, path, text, where]) =>
  defects.map(([defect, shown, says]) => [name, defect, method, path, text, where, shown, says] as const),
);

test.each(rows)('%s with %s: 400 invalid_request naming the defect', async (...row) => {
  const [, defect, method, path, text, where, shown, says] = row;
  const withDefect = text.replace('DEFECT', defect);
  const param = text
    .split('&')
    .find((pair) => pair.includes('DEFECT'))!
    .split('=')[0];
  const url = `${srv.issuer}${path()}${where === 'query' ? `?${withDefect}` : ''}`;
  const res = await fetch(url, {
    method,
    redirect: 'manual',
    headers: { accept: 'application/json', ...(where === 'body' ? { 'content-type': FORM } : {}) },
    ...(where === 'body' ? { body: withDefect } : {}),
  });
  const kind = where === 'query' ? 'query string' : 'form body';
  const description = `The ${kind} has a malformed percent-encoding: '${shown}' in the parameter '${param}' ${says}`;
  expect([res.status, await res.json()]).toEqual([400, { error: 'invalid_request', error_description: description }]);
});

test('a browser gets our error page for a malformed query at the authorization endpoint, and no redirect', async () => {
  const page = await new TestBrowser(srv.issuer).go(`${srv.issuer}/authorization?${authorization}&scope=openid%ZZ`);
  expect([page.status, page.headers.get('location'), page.dom.querySelector('#error')?.text]).toEqual([
    400,
    null,
    'invalid_request',
  ]);
  expect(page.dom.querySelector('#error_description')?.text).toContain("'%ZZ' in the parameter 'scope'");
});

test('a form body of raw bytes that are not UTF-8: 400 invalid_request', async () => {
  const body = Buffer.concat([
    Buffer.from('grant_type=client_credentials&scope=a'),
    Buffer.from([0xff, 0xfe]),
    Buffer.from(`&${clientAuth}`),
  ]);
  const res = await fetch(`${srv.issuer}/token`, { method: 'POST', headers: { 'content-type': FORM }, body });
  expect([res.status, await res.json()]).toEqual([
    400,
    {
      error: 'invalid_request',
      error_description: `The form body is not UTF-8 (${FORM} bodies are UTF-8).`,
    },
  ]);
});

test('well-formed encodings still pass: percent-encoded UTF-8, + for space, %25', async () => {
  const res = await fetch(`${srv.issuer}/token/introspection`, {
    method: 'POST',
    headers: { 'content-type': FORM },
    body: `token=%E2%82%AC+x%25&${clientAuth}`,
  });
  expect([res.status, await res.json()]).toEqual([200, { active: false }]);
});

/** The form endpoints, a body each would otherwise accept, and the section that names the media type. */
const formEndpoints: Array<[string, string, string]> = [
  ['/token', `grant_type=authorization_code&code=x&code_verifier=x&${clientAuth}`, 'RFC 6749 section 4.1.3'],
  ['/token/introspection', `token=x&${clientAuth}`, 'RFC 7662 section 2.1'],
  ['/token/revocation', `token=x&${clientAuth}`, 'RFC 7009 section 2.1'],
  ['/request', `${authorization}&scope=openid&${clientAuth}`, 'RFC 9126 section 2.1'],
  ['/userinfo', 'access_token=x', 'RFC 6750 section 2.2'],
  ['/authorization', `${authorization}&scope=openid`, 'OpenID Connect Core section 3.1.2.1'],
];
const contentTypes: Array<[string, string | undefined, string]> = [
  ['no Content-Type', undefined, 'it has no Content-Type'],
  ['text/plain', 'text/plain', "its Content-Type is 'text/plain'"],
  ['JSON', 'application/json', "its Content-Type is 'application/json'"],
];
const typeRows = formEndpoints.flatMap(([path, body, see]) =>
  contentTypes.map(([name, type, says]) => [path, name, body, type, see, says] as const),
);

test.each(typeRows)('POST %s with %s: 400 invalid_request naming the form media type', async (...row) => {
  const [path, , body, type, see, says] = row;
  // A Blob without a type: fetch sends no Content-Type.
  const res = await fetch(`${srv.issuer}${path}`, {
    method: 'POST',
    redirect: 'manual',
    body: new Blob([body]),
    headers: { accept: 'application/json', ...(type ? { 'content-type': type } : {}) },
  });
  expect([res.status, await res.json()]).toEqual([
    400,
    {
      error: 'invalid_request',
      error_description: `POST ${path} takes an ${FORM} body (${see}); ${says}.`,
    },
  ]);
});

test('POST /userinfo without a body or Content-Type (the token in the header) still answers', async () => {
  const res = await fetch(`${srv.issuer}/userinfo`, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}` },
  });
  expect([res.status, ((await res.json()) as { sub?: string }).sub]).toEqual([200, expect.any(String)]);
});
