import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { exportJWK, SignJWT } from 'jose';
import { pino } from 'pino';
import { MemoryAccountStore } from '../../adapters/memory-account-store.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';
import { browse, oidc, relyingParty, signIn, startAuthorization, type RelyingParty } from '../helpers/flow.js';
import { TestBrowser } from '../helpers/browser.js';
import { catalogGraphql, freePort, startServer, type RunningServer } from '../helpers/server.js';
import { suiteIf } from '../helpers/skip.js';

/**
 * Redis stopped mid-flow and started again: requests fail fast with 503 and a clear error (no hang, no 500, no
 * stack trace), and the server recovers without a restart. The test runs its own redis-server on a free port.
 */
const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;
if (!hasRedisServer && process.env.CI) throw new Error('CI=true but redis-server is not installed');
if (!hasRedisServer) console.warn('\n!!! redis-server is not installed: the Redis fault tests are SKIPPED !!!\n');

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const probe = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
  });
  probe.on('error', () => {});
  for (let i = 0; i < 50; i++) {
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      return child;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`redis-server on ${port} did not start`);
}

async function stopRedis(child: ChildProcess): Promise<void> {
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** A request that must answer within 5 s: a hang fails the test. */
async function get(url: string, init: RequestInit = {}) {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(5000) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

suiteIf(hasRedisServer, 'no redis-server binary to start a Redis of its own')('Redis outage', () => {
  let redisPort: number;
  let redis: ChildProcess;
  let srv: RunningServer;
  /** Every log line of the server, parsed. */
  const logLines: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    redisPort = await freePort();
    redis = await startRedis(redisPort);
    // This Redis keeps nothing on disk, so accounts stay in memory here: the restart below must not lose alice.
    srv = await startServer({
      storage: { type: 'redis', url: `redis://127.0.0.1:${redisPort}` },
      accountStore: await MemoryAccountStore.fromSeed(demoFixtures().accounts!),
      logger: pino(
        { level: 'info' },
        {
          write: (line: string) => {
            logLines.push(JSON.parse(line) as Record<string, unknown>);
          },
        },
      ),
      // Every transport and introspection on, so that each way into the operation limiter is tried below.
      graphql: { ...catalogGraphql(), introspection: { enabled: true }, maxBatchSize: 5, transports: { get: true } },
    });
  });
  afterAll(async () => {
    await srv?.close();
    if (redis?.exitCode === null) await stopRedis(redis);
  });

  test('fails fast with 503 while Redis is down and recovers when it is back', async () => {
    const rp = await relyingParty(srv.issuer);
    const { tokens } = await signIn(srv.issuer, rp, { params: { scope: 'openid offline_access' } });
    const pending = await startAuthorization(rp);
    const seen = await browse(new TestBrowser(srv.issuer), pending.url);
    const code = seen.callback.searchParams.get('code')!;

    await stopRedis(redis);

    const ready = await get(`${srv.issuer}/readyz`);
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.text)).toEqual({ status: 'unavailable', storage: 'unreachable' });
    expect((await get(`${srv.issuer}/healthz`)).status).toBe(200);

    const exchange = await get(`${srv.issuer}/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: rp.redirectUri,
        code_verifier: pending.codeVerifier,
        client_id: 'demo-web',
        client_secret: 'demo-web-secret',
      }),
    });
    expect(exchange.status).toBe(503);
    expect(JSON.parse(exchange.text)).toMatchObject({ error: 'temporarily_unavailable' });

    const userinfo = await get(`${srv.issuer}/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(userinfo.status).toBe(503);

    const gql = await get(srv.graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.access_token}` },
      body: '{"query":"{__typename}"}',
    });
    expect(gql.status).toBe(503);
    expect(gql.headers.get('retry-after')).toBeTruthy();

    const authorize = await get(String((await startAuthorization(rp)).url), {
      redirect: 'manual',
      headers: { accept: 'text/html' },
    });
    // The provider cannot load the session, so it cannot validate anything: a 503 page, never a redirect.
    expect(authorize.status).toBe(503);
    expect(authorize.headers.get('location')).toBeNull();
    expect(authorize.text).toContain('temporarily_unavailable');
    for (const body of [exchange.text, userinfo.text, gql.text, authorize.text])
      expect(body).not.toMatch(/at .*\.(js|ts):\d+|stack/i);

    redis = await startRedis(redisPort);
    // Redis kept nothing (no persistence): the server must recover without a restart and serve new flows.
    let readyAgain = 503;
    for (let i = 0; i < 50 && readyAgain !== 200; i++) {
      readyAgain = (await get(`${srv.issuer}/readyz`)).status;
      if (readyAgain !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(readyAgain).toBe(200);
    const again = await signIn(srv.issuer, rp);
    expect(again.tokens.access_token).toBeDefined();
  });

  test('a frozen Redis (accepts connections, never answers): the first request waits out the time limit, the next fail at once, then it recovers', async () => {
    const rp = await relyingParty(srv.issuer);
    const { tokens } = await signIn(srv.issuer, rp);
    const bearer = { authorization: `Bearer ${tokens.access_token}` };
    expect((await get(`${srv.issuer}/userinfo`, { headers: bearer })).status).toBe(200);

    // SIGSTOP: the kernel still accepts connections and takes the commands, but nothing answers (a hung host).
    // The first request ends in 503 after the 2-s limit; the connection is then dropped and the next requests fail
    // fast (503 at once) instead of each waiting out the limit, until Redis answers again.
    redis.kill('SIGSTOP');
    const timed = async (request: () => Promise<{ status: number; text: string }>) => {
      const started = performance.now();
      const res = await request();
      return { status: res.status, stack: /at .*\.(js|ts):\d+/.test(res.text), ms: performance.now() - started };
    };
    try {
      const first = await timed(() => get(`${srv.issuer}/userinfo`, { headers: bearer }));
      expect(first).toMatchObject({ status: 503, stack: false });
      expect(first.ms).toBeGreaterThan(1500);
      expect(first.ms).toBeLessThan(4500);
      const next = {
        userinfo: () => get(`${srv.issuer}/userinfo`, { headers: bearer }),
        token: () =>
          get(`${srv.issuer}/token`, {
            method: 'POST',
            body: new URLSearchParams({
              grant_type: 'authorization_code',
              code: 'x'.repeat(43),
              redirect_uri: rp.redirectUri,
              code_verifier: 'v'.repeat(43),
              client_id: 'demo-web',
              client_secret: 'demo-web-secret',
            }),
          }),
        readyz: () => get(`${srv.issuer}/readyz`),
        graphql: () =>
          get(srv.graphqlUrl, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...bearer },
            body: '{"query":"{__typename}"}',
          }),
      };
      for (const [name, request] of Object.entries(next)) {
        const { status, stack, ms } = await timed(request);
        expect({ name, status, stack, fast: ms < 1000 }).toEqual({ name, status: 503, stack: false, fast: true });
      }
    } finally {
      redis.kill('SIGCONT');
    }
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await get(`${srv.issuer}/userinfo`, { headers: bearer })).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
  });

  describe('GraphQL while Redis is down: 503 TEMPORARILY_UNAVAILABLE with Retry-After for every caller, one warning', () => {
    let accessToken = '';
    /** A login page opened before the outage (its interaction is in Redis), and its browser. */
    let loginPage: { browser: TestBrowser; url: string };
    /** A sign-in finished before the outage whose browser comes back to oidc-provider's resume route during it. */
    let resume: { browser: TestBrowser; url: string };
    let rp: RelyingParty;
    const token: Record<'opaque' | 'jwt' | 'dpop', string> = { opaque: '', jwt: '', dpop: '' };
    let dpopKeys: Awaited<ReturnType<typeof oidc.randomDPoPKeyPair>>;
    /** Index of the first log line written while Redis is down. */
    let outageFrom = 0;
    const proof = async () =>
      new SignJWT({
        htm: 'POST',
        htu: srv.graphqlUrl,
        iat: Math.floor(Date.now() / 1000),
        jti: randomUUID(),
        ath: createHash('sha256').update(token.dpop).digest('base64url'),
      })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(dpopKeys.publicKey) })
        .sign(dpopKeys.privateKey);

    beforeAll(async () => {
      rp = await relyingParty(srv.issuer);
      token.opaque = (await signIn(srv.issuer, rp)).tokens.access_token;
      accessToken = token.opaque;
      const browser = new TestBrowser(srv.issuer);
      loginPage = { browser, url: (await browser.go(String((await startAuthorization(rp)).url))).url };
      expect(loginPage.url).toContain('/interaction/');
      const resumeBrowser = new TestBrowser(srv.issuer);
      const form = (await resumeBrowser.go(String((await startAuthorization(rp)).url))).dom.querySelector('form')!;
      const fields = Object.fromEntries(
        form
          .querySelectorAll('input[type=hidden]')
          .map((i) => [i.getAttribute('name')!, i.getAttribute('value') ?? '']),
      );
      const posted = await resumeBrowser.request(new URL(form.getAttribute('action')!, srv.issuer).href, {
        method: 'POST',
        body: new URLSearchParams({ ...fields, email: 'alice@example.com', password: 'alice-demo-password' }),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      resume = { browser: resumeBrowser, url: new URL(posted.headers.get('location')!, srv.issuer).href };
      expect(resume.url).toContain('/authorization/');
      // resource=<graphql url>: an RFC 9068 JWT access token, verified at /graphql without a storage lookup.
      token.jwt = (await signIn(srv.issuer, rp, { params: { resource: srv.graphqlUrl } })).tokens.access_token;
      dpopKeys = await oidc.randomDPoPKeyPair('ES256');
      const start = await startAuthorization(rp, { resource: srv.graphqlUrl });
      const seen = await browse(new TestBrowser(srv.issuer), start.url);
      token.dpop = (
        await oidc.authorizationCodeGrant(
          rp.config,
          seen.callback,
          { pkceCodeVerifier: start.codeVerifier, expectedState: start.state, expectedNonce: start.nonce },
          undefined,
          { DPoP: oidc.getDPoPHandle(rp.config, dpopKeys) },
        )
      ).access_token;
      // Known before the outage: a document in the cache needs no storage to be read (see the last rows).
      const known = await get(srv.graphqlUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"query":"{ __typename }"}',
      });
      expect(known.status).toBe(200);
      await stopRedis(redis);
      outageFrom = logLines.length;
    });
    afterAll(async () => {
      redis = await startRedis(redisPort);
      for (let i = 0; i < 50 && (await get(`${srv.issuer}/readyz`)).status !== 200; i++)
        await new Promise((r) => setTimeout(r, 100));
    });

    const json = { 'content-type': 'application/json' };
    const PRODUCTS = '{"query":"{ products { name } }"}';
    test.each<[string, () => Promise<RequestInit & { url?: string }>]>([
      ['anonymous (the operation limiter, by IP)', async () => ({ headers: json, body: PRODUCTS })],
      [
        'anonymous introspection (its points go to the limiter)',
        async () => ({ headers: json, body: '{"query":"{ __schema { queryType { name } } }"}' }),
      ],
      ['anonymous batch of two operations', async () => ({ headers: json, body: `[${PRODUCTS},${PRODUCTS}]` })],
      [
        'anonymous GET ?query=',
        async () => ({ method: 'GET', url: `${srv.graphqlUrl}?query=${encodeURIComponent('{ products { name } }')}` }),
      ],
      [
        'an opaque access token (looked up in storage)',
        async () => ({ headers: { ...json, authorization: `Bearer ${token.opaque}` }, body: PRODUCTS }),
      ],
      [
        'a JWT access token (verified without storage, then the limiter)',
        async () => ({ headers: { ...json, authorization: `Bearer ${token.jwt}` }, body: PRODUCTS }),
      ],
      [
        'a DPoP-bound JWT access token (the proof replay cache)',
        async () => ({
          headers: { ...json, authorization: `DPoP ${token.dpop}`, dpop: await proof() },
          body: PRODUCTS,
        }),
      ],
    ])('%s', async (name, request) => {
      const { url, ...init } = await request();
      const reqId = `outage-${randomUUID()}`;
      const res = await get(url ?? srv.graphqlUrl, {
        method: 'POST',
        ...init,
        headers: { ...(init.headers as Record<string, string>), 'x-request-id': reqId },
      });
      // One envelope, a batch included: the gate charges a batch whole before any of it runs.
      expect({
        name,
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        body: JSON.parse(res.text),
      }).toEqual({
        name,
        status: 503,
        retryAfter: '5',
        body: {
          errors: [
            { message: 'storage is unavailable; try again later', extensions: { code: 'TEMPORARILY_UNAVAILABLE' } },
          ],
        },
      });
      expect(res.text).not.toMatch(/at .*\.(js|ts):\d+|stack|INTERNAL_SERVER_ERROR/i);
      // Logged once at warn (the request line) with the request id; nothing at error level (no 500 "request failed").
      const lines = logLines.filter((l) => l.reqId === reqId && (l.level as number) >= 40);
      expect(lines).toEqual([
        expect.objectContaining({
          level: 40,
          reqId,
          msg: 'request',
          status: 503,
          outage: expect.objectContaining({ code: 'ERR_STORAGE_UNAVAILABLE' }),
        }),
      ]);
    });

    // The other endpoints: each 503 carries Retry-After (oidc-provider's error handlers set none of their own) and is
    // logged once, at warn, on its request line with the outage's code and words.
    test.each<[string, () => Promise<{ url: string; init?: RequestInit }>]>([
      [
        'the token endpoint',
        async () => ({
          url: `${srv.issuer}/token`,
          init: {
            method: 'POST',
            body: new URLSearchParams({
              grant_type: 'refresh_token',
              refresh_token: 'x'.repeat(43),
              client_id: 'demo-web',
              client_secret: 'demo-web-secret',
            }),
          },
        }),
      ],
      [
        'the userinfo endpoint',
        async () => ({ url: `${srv.issuer}/userinfo`, init: { headers: { authorization: `Bearer ${accessToken}` } } }),
      ],
      [
        'the authorization endpoint (error page)',
        async () => ({
          url: String((await startAuthorization(rp)).url),
          init: { headers: { accept: 'text/html' }, redirect: 'manual' },
        }),
      ],
      [
        'the introspection endpoint',
        async () => ({
          url: `${srv.issuer}/token/introspection`,
          init: {
            method: 'POST',
            body: new URLSearchParams({ token: accessToken, client_id: 'demo-web', client_secret: 'demo-web-secret' }),
          },
        }),
      ],
      ['the login page (our interaction route)', async () => ({ url: loginPage.url })],
      ['the resume route of a finished sign-in (its credential check)', async () => ({ url: resume.url })],
    ])('%s: 503 with Retry-After, its request line at warn with the outage', async (name, request) => {
      const { url, init = {} } = await request();
      const reqId = `outage-${randomUUID()}`;
      const headers = { ...(init.headers as Record<string, string>), 'x-request-id': reqId };
      const browser = url === loginPage.url ? loginPage.browser : url === resume.url ? resume.browser : undefined;
      const res = browser ? await browser.request(url, { headers }) : await get(url, { ...init, headers });
      const lines = logLines.filter((l) => l.reqId === reqId);
      expect({ name, status: res.status, retryAfter: res.headers.get('retry-after'), lines }).toEqual({
        name,
        status: 503,
        retryAfter: '5',
        lines: [
          expect.objectContaining({
            level: 40,
            msg: 'request',
            status: 503,
            outage: expect.objectContaining({
              code: 'ERR_STORAGE_UNAVAILABLE',
              message: expect.stringMatching(/unavailable/),
            }),
          }),
        ],
      });
    });

    test('an operation that needs no storage (a known document, no root field) is still answered', async () => {
      const res = await get(srv.graphqlUrl, { method: 'POST', headers: json, body: '{"query":"{ __typename }"}' });
      expect({ status: res.status, body: JSON.parse(res.text) }).toEqual({
        status: 200,
        body: { data: { __typename: 'Query' } },
      });
    });

    // Reading a document not seen before spends points first, and a refusal spends them too
    // (lib/graphql/document-gate.ts): a limiter that cannot count refuses such a request, valid or not, unread.
    test.each([
      ['a new document without root fields', '{"query":"{ t: __typename }"}'],
      ['a new document that does not parse', '{"query":"{ t: "}'],
      [
        'a known document refused (an operationName it lacks: charged before the refusal is sent)',
        '{"query":"{ __typename }","operationName":"nope"}',
      ],
    ])('%s is 503 while the limiter cannot count', async (_name, body) => {
      const res = await get(srv.graphqlUrl, { method: 'POST', headers: json, body });
      expect({ status: res.status, retryAfter: res.headers.get('retry-after'), body: JSON.parse(res.text) }).toEqual({
        status: 503,
        retryAfter: '5',
        body: {
          errors: [
            { message: 'storage is unavailable; try again later', extensions: { code: 'TEMPORARILY_UNAVAILABLE' } },
          ],
        },
      });
    });

    test('nothing was logged at error level during the outage', () => {
      expect(logLines.slice(outageFrom).filter((l) => (l.level as number) >= 50)).toEqual([]);
    });
  });
});

if (!hasRedisServer)
  test('fault tests need redis-server (see the warning above)', () => expect(hasRedisServer).toBe(false));
