import { createServer, generateCookieKey } from '../../lib/index.js';
import { testSigningKeys } from '../helpers/run-resources.js';
import { catalogResolvers, typeDefs } from '../../examples/catalog/schema.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';
import { browse, oidc, relyingParty, startAuthorization } from '../helpers/flow.js';
import { TestBrowser } from '../helpers/browser.js';
import { freePort } from '../helpers/server.js';
import { deletePrefix, REDIS_URL, redisAvailable, uniquePrefix } from '../helpers/redis.js';
import { suiteIf } from '../helpers/skip.js';

const available = await redisAvailable();

/** Two instances behind an imaginary load balancer: same issuer, keys, cookie keys and Redis. */
async function twoInstances() {
  const [portA, portB] = [await freePort(), await freePort()];
  const issuer = `http://127.0.0.1:${portA}`;
  const keyPrefix = uniquePrefix('multi');
  const shared = {
    issuer,
    // Behind a real load balancer both see the issuer's host; here B is also called under its own address.
    allowedHosts: [`127.0.0.1:${portB}`],
    graphql: { typeDefs, resolvers: catalogResolvers(), rateLimit: { points: 20, durationSeconds: 60 } },
    ...demoFixtures(),
    accountLimits: { loginPerAccount: { points: 3, durationSeconds: 60 } },
    keys: { signing: await testSigningKeys(), cookies: [generateCookieKey()] },
    storage: { type: 'redis' as const, url: REDIS_URL, keyPrefix },
  };
  const a = await createServer(shared);
  const b = await createServer(shared);
  await a.listen(portA, '127.0.0.1');
  await b.listen(portB, '127.0.0.1');
  return {
    issuer,
    a,
    b,
    urlA: issuer,
    urlB: `http://127.0.0.1:${portB}`,
    async close() {
      await Promise.all([a.close(), b.close()]);
      await deletePrefix(keyPrefix);
    },
  };
}

async function tokenRequest(base: string, params: Record<string, string>) {
  const res = await fetch(`${base}/token`, {
    method: 'POST',
    body: new URLSearchParams({ client_id: 'demo-web', client_secret: 'demo-web-secret', ...params }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

async function graphql(base: string, token: string, query: string) {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, body: (await res.json()) as { data?: Record<string, unknown> } };
}

suiteIf(available, 'no Redis at REDIS_URL')('two instances sharing one Redis', () => {
  let env: Awaited<ReturnType<typeof twoInstances>>;
  beforeAll(async () => {
    env = await twoInstances();
  });
  afterAll(() => env?.close());

  test('authorize at A, exchange at B, userinfo and GraphQL at A, refresh at B', async () => {
    const rp = await relyingParty(env.urlA);
    const start = await startAuthorization(rp, { scope: 'openid profile offline_access catalog:admin' });
    const seen = await browse(new TestBrowser(env.urlA), start.url, {
      email: 'admin@example.com',
      password: 'admin-demo-password',
    });
    const code = seen.callback.searchParams.get('code')!;
    expect(code).toBeTruthy();

    const exchanged = await tokenRequest(env.urlB, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: rp.redirectUri,
      code_verifier: start.codeVerifier,
    });
    expect(exchanged.status).toBe(200);
    expect(exchanged.body.refresh_token).toBeDefined();

    const userinfo = await oidc.fetchUserInfo(rp.config, exchanged.body.access_token!, 'admin');
    expect(userinfo.sub).toBe('admin');
    const product = await graphql(env.urlA, exchanged.body.access_token!, '{ product(id: 3) { name } }');
    expect(product.body.data).toEqual({ product: { name: 'Prototype Drone' } });

    const refreshed = await tokenRequest(env.urlB, {
      grant_type: 'refresh_token',
      refresh_token: exchanged.body.refresh_token!,
    });
    expect(refreshed.status).toBe(200);
    expect((await graphql(env.urlA, refreshed.body.access_token!, '{ __typename }')).status).toBe(200);
  });

  test('a code consumed at A fails at B, and the replay revokes what A issued', async () => {
    const rp = await relyingParty(env.urlA);
    const start = await startAuthorization(rp);
    const seen = await browse(new TestBrowser(env.urlA), start.url);
    const code = seen.callback.searchParams.get('code')!;
    const params = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: rp.redirectUri,
      code_verifier: start.codeVerifier,
    };
    const first = await tokenRequest(env.urlA, params);
    expect(first.status).toBe(200);
    const replay = await tokenRequest(env.urlB, params);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    expect((await graphql(env.urlA, first.body.access_token!, '{ __typename }')).status).toBe(401);
  });

  test('concurrent exchanges of one code at both instances: exactly one succeeds', async () => {
    const rp = await relyingParty(env.urlA);
    const start = await startAuthorization(rp);
    const seen = await browse(new TestBrowser(env.urlA), start.url);
    const params = {
      grant_type: 'authorization_code',
      code: seen.callback.searchParams.get('code')!,
      redirect_uri: rp.redirectUri,
      code_verifier: start.codeVerifier,
    };
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => tokenRequest(i % 2 ? env.urlB : env.urlA, params)),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400 && r.body.error === 'invalid_grant')).toHaveLength(7);
  });

  test('a session started at A is known at B (login once, no second login page)', async () => {
    const rp = await relyingParty(env.urlA);
    const browser = new TestBrowser(env.urlA);
    await browse(browser, (await startAuthorization(rp)).url);
    // Same browser, next authorization request sent to B's address: cookies are per host, so copy them over.
    const cookies = await browser.jar.getCookies(env.urlA);
    const browserB = new TestBrowser(env.urlB);
    for (const c of cookies) await browserB.jar.setCookie(c.toString(), env.urlB);
    const startB = await startAuthorization(rp);
    const urlAtB = new URL(startB.url.pathname + startB.url.search, env.urlB);
    const seen = await browse(browserB, urlAtB, { consent: 'none' });
    expect(seen.loginPage).toBeUndefined();
    expect(seen.callback.searchParams.get('code')).toBeTruthy();
  });

  test('the GraphQL operation budget is shared: aliases spent at A count at B (anonymous, keyed by IP)', async () => {
    const ask = (base: string) =>
      fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: `{ ${Array.from({ length: 12 }, (_, i) => `p${i}: product(id: 1) { id }`).join(' ')} }`,
        }),
      });
    expect((await ask(env.urlA)).status).toBe(200); // 12 of 20 points
    const atB = await ask(env.urlB); // 12 more: over the shared budget
    expect(atB.status).toBe(429);
    expect(atB.headers.get('retry-after')).toBeTruthy();
  });

  test('login limits are shared: wrong passwords at A lock the account at B too', async () => {
    const rp = await relyingParty(env.urlA);
    const browserA = new TestBrowser(env.urlA);
    let page = await browserA.go(String((await startAuthorization(rp)).url));
    for (let i = 0; i < 3; i++)
      page = await browserA.submit(page, { email: 'alice@example.com', password: `wrong-password-${i}` });
    expect(page.status).toBe(401);
    const startB = await startAuthorization(rp);
    const browserB = new TestBrowser(env.urlB);
    const loginB = await browserB.go(new URL(startB.url.pathname + startB.url.search, env.urlB).href);
    const refused = await browserB.submit(loginB, { email: 'alice@example.com', password: 'alice-demo-password' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeTruthy();
  });

  test('an account signed up at A signs in at B', async () => {
    const created = await env.a.accounts.create({
      email: 'dora@example.com',
      password: 'dora-password-123',
      claims: { given_name: 'Dora' },
    });
    await env.a.accounts.markEmailVerified(created!.id);
    expect((await env.b.accounts.verifyPassword('dora@example.com', 'dora-password-123'))?.id).toBe(created!.id);
  });

  test('readiness of both instances is 200', async () => {
    for (const base of [env.urlA, env.urlB]) {
      const res = await fetch(`${base}/readyz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ready', storage: 'ok' });
    }
  });
});

if (!available) test('multi-instance tests need Redis (see the warning above)', () => expect(available).toBe(false));
