import { readFileSync } from 'node:fs';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * The endpoint table of docs/guides/getting-started.md ("What `npm start` gives you") lists every method a client may use at each endpoint; each one
 * listed must reach that endpoint (any answer but 404/405, which say the method or path is not served).
 */

const readme = readFileSync(new URL('../../docs/guides/getting-started.md', import.meta.url), 'utf8');

/** `[method, path]` pairs of the table: cells like `` `GET /x` `` or `` `GET`/`POST /x` ``. */
function listedMethods(): Array<[string, string]> {
  const start = readme.indexOf('| endpoint | path |');
  const table = readme.slice(start, readme.indexOf('\n\n', start)).split('\n').slice(2);
  const pairs: Array<[string, string]> = [];
  for (const row of table) {
    const cell = row.split(' | ')[1] ?? '';
    for (const m of cell.matchAll(/((?:`[A-Z]+`\/)*)`([A-Z]+) (\/[^`\s]*)`/g)) {
      const methods = [...(m[1] ?? '').matchAll(/`([A-Z]+)`/g)].map((x) => x[1]!);
      for (const method of [...methods, m[2]!]) pairs.push([method, m[3]!]);
    }
  }
  return pairs;
}

let srv: RunningServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(() => srv.close());

test('the table lists the endpoints', () => {
  expect(listedMethods()).toEqual(
    expect.arrayContaining([
      ['GET', '/authorization'],
      ['POST', '/token'],
      ['GET', '/userinfo'],
      ['POST', '/userinfo'],
      ['GET', '/session/end'],
    ]),
  );
});

test.each(listedMethods())('%s %s is served', async (method, path) => {
  const res = await fetch(`${srv.issuer}${path}`, {
    method,
    redirect: 'manual',
    ...(method === 'POST' ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=b' } : {}),
  });
  expect([404, 405]).not.toContain(res.status);
});

// Any other method gets 405 invalid_request with Allow (RFC 9110 §15.5.6), not Koa's plain-text 404 that reads as
// "no such endpoint" (found by the newcomer review: GET /token answered `Not Found`).
test.each([
  ['GET', '/token', 'POST, OPTIONS'],
  ['DELETE', '/token', 'POST, OPTIONS'],
  ['GET', '/token/introspection', 'POST, OPTIONS'],
  ['GET', '/registration', 'POST'],
  ['GET', '/request', 'POST, OPTIONS'],
  ['PUT', '/userinfo', 'GET, HEAD, POST, OPTIONS'],
  ['POST', '/session/end', 'GET, HEAD'],
  ['PUT', '/authorization', 'GET, HEAD, POST'],
  // Sub-paths oidc-provider routes for one method: before, Koa's text 404.
  ['DELETE', '/authorization/some-uid', 'GET, HEAD'],
  ['POST', '/authorization/some-uid', 'GET, HEAD'],
  ['GET', '/session/end/confirm', 'POST'],
  ['PUT', '/session/end/confirm', 'POST'],
  ['POST', '/session/end/success', 'GET, HEAD'],
])('%s %s: 405 with Allow: %s and a JSON error', async (method, path, allow) => {
  const res = await fetch(`${srv.issuer}${path}`, { method, redirect: 'manual' });
  expect([res.status, res.headers.get('allow'), res.headers.get('content-type'), await res.json()]).toEqual([
    405,
    allow,
    'application/json; charset=utf-8',
    { error: 'invalid_request', error_description: `${method} is not allowed at this endpoint: use ${allow}.` },
  ]);
});

test.each([
  ['HEAD', '/.well-known/openid-configuration', 200],
  ['OPTIONS', '/token', 204],
])('%s %s is still answered (%i)', async (method, path, status) => {
  const res = await fetch(`${srv.issuer}${path}`, {
    method,
    headers: method === 'OPTIONS' ? { origin: 'https://app.example', 'access-control-request-method': 'POST' } : {},
  });
  expect(res.status).toBe(status);
});

// A plain OPTIONS (no CORS preflight) asks which methods the endpoint allows (RFC 9110 §9.3.7): 204 with Allow. Before,
// oidc-provider answered only preflights and a plain OPTIONS got Koa's text 404, while a 405 named OPTIONS in Allow.
test.each<[string, Record<string, string>, string]>([
  ['/token', {}, 'POST, OPTIONS'],
  ['/userinfo', {}, 'GET, HEAD, POST, OPTIONS'],
  ['/.well-known/jwks.json', {}, 'GET, HEAD, OPTIONS'],
  ['/token/introspection', {}, 'POST, OPTIONS'],
  ['/token/revocation', {}, 'POST, OPTIONS'],
  ['/request', {}, 'POST, OPTIONS'],
  ['/.well-known/openid-configuration', {}, 'GET, HEAD, OPTIONS'],
  ['/token', { origin: 'https://app.example' }, 'POST, OPTIONS'],
  ['/token', { 'access-control-request-method': 'POST' }, 'POST, OPTIONS'],
])('plain OPTIONS %s %j: 204 with Allow: %s', async (path, headers, allow) => {
  const res = await fetch(`${srv.issuer}${path}`, { method: 'OPTIONS', headers });
  expect([res.status, res.headers.get('allow'), await res.text()]).toEqual([204, allow, '']);
});

test("a CORS preflight still gets oidc-provider's CORS answer", async () => {
  const res = await fetch(`${srv.issuer}/token`, {
    method: 'OPTIONS',
    headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
  });
  expect([res.status, res.headers.get('access-control-allow-methods'), res.headers.get('allow')]).toEqual([
    204,
    expect.stringContaining('POST'),
    null,
  ]);
});

// A path below the resume route `/authorization/<uid>` has no route in oidc-provider: before, GET answered Koa's
// text/plain 404 'Not Found' (its page headers set) and POST 405 naming GET and HEAD, as if the resume route were there.
test.each([
  ['GET', '/authorization/some-uid/x'],
  ['GET', '/authorization/some-uid/x/'],
  ['HEAD', '/authorization/some-uid/x'],
  ['POST', '/authorization/some-uid/x'],
  ['GET', '/authorization/some-uid//'],
])('%s %s: the JSON 404 of a path with no endpoint', async (method, path) => {
  const res = await fetch(`${srv.issuer}${path}`, { method, redirect: 'manual' });
  const body = method === 'HEAD' ? undefined : await res.json();
  expect([res.status, res.headers.get('content-type'), body]).toEqual([
    404,
    'application/json; charset=utf-8',
    method === 'HEAD'
      ? undefined
      : { error: 'invalid_request', error_description: 'Not found: this server has no endpoint at this path.' },
  ]);
});

test.each([['/authorization/some-uid'], ['/authorization/some-uid/']])(
  'GET %s still reaches the resume route (its error page, no cookie)',
  async (path) => {
    const res = await fetch(`${srv.issuer}${path}`, { redirect: 'manual' });
    expect([res.status, res.headers.get('content-type')]).toEqual([400, 'text/html; charset=utf-8']);
    expect(await res.text()).toContain('authorization request has expired');
  },
);

test('with registration off, POST /registration answers the JSON 404 of an endpoint that is off', async () => {
  const off = await startServer({ registration: { enabled: false, initialAccessToken: undefined } as never });
  try {
    const res = await fetch(`${off.issuer}/registration`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"redirect_uris":["https://rp.example/cb"]}',
    });
    expect([res.status, await res.json()]).toEqual([
      404,
      { error: 'invalid_request', error_description: 'Not found: this server has no endpoint at this path.' },
    ]);
  } finally {
    await off.close();
  }
});
