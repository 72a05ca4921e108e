import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { SignJWT } from 'jose';
import { pino } from 'pino';
import { MemoryAccountStore } from '../../adapters/memory-account-store.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';
import { browse, relyingParty, startAuthorization, type RelyingParty } from '../helpers/flow.js';
import { TestBrowser } from '../helpers/browser.js';
import { freePort, startServer, type RunningServer } from '../helpers/server.js';
import { suiteIf } from '../helpers/skip.js';

/**
 * A reachable Redis that refuses commands (out of memory under `noeviction`, a replica after a failover) is an
 * outage like an unreachable one: 503 `temporarily_unavailable` with Retry-After, logged at warn, never a 500. And
 * a client assertion whose `exp` lies far in the future (its ReplayDetection entry lives that long) is answered as
 * with the memory storage, not with a 500 from an EXPIRE Redis cannot take. The test runs its own redis-server.
 */
const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;
if (!hasRedisServer && process.env.CI) throw new Error('CI=true but redis-server is not installed');

const HS_SECRET = 'k6Qw3v9XyZ0pL2mN4bR7tU1sE8aD5fG-hJiKoPqWxYc';
const REDIRECT = 'http://localhost:8080/callback';

suiteIf(hasRedisServer, 'no redis-server binary to start a Redis of its own')('Redis refusing commands', () => {
  let redis: ChildProcess;
  let admin: Redis;
  let srv: RunningServer;
  let rp: RelyingParty;
  const logLines: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    const port = await freePort();
    redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    admin = new Redis({ port, host: '127.0.0.1', retryStrategy: (n) => (n > 50 ? null : 100) });
    await admin.ping();
    srv = await startServer({
      storage: { type: 'redis', url: `redis://127.0.0.1:${port}` },
      accountStore: await MemoryAccountStore.fromSeed(demoFixtures().accounts!),
      logger: pino(
        { level: 'info' },
        {
          write: (line: string) => {
            logLines.push(JSON.parse(line) as Record<string, unknown>);
          },
        },
      ),
      clients: [
        ...demoFixtures().clients!,
        {
          client_id: 'rp-hs256',
          client_secret: HS_SECRET,
          token_endpoint_auth_method: 'client_secret_jwt',
          token_endpoint_auth_signing_alg: 'HS256',
          redirect_uris: [REDIRECT],
          grant_types: ['authorization_code'],
          response_types: ['code'],
        },
      ],
    });
    rp = await relyingParty(srv.issuer);
  });
  afterAll(async () => {
    await srv?.close();
    admin?.disconnect();
    if (redis?.exitCode === null)
      await new Promise<void>((resolve) => {
        redis.once('exit', () => resolve());
        redis.kill('SIGKILL');
      });
  });

  const refusals = {
    oom: {
      refuse: () =>
        admin.config('SET', 'maxmemory', '1').then(() => admin.config('SET', 'maxmemory-policy', 'noeviction')),
      restore: () => admin.config('SET', 'maxmemory', '0'),
    },
    readonly: {
      refuse: () => admin.call('REPLICAOF', '127.0.0.1', '1'),
      restore: () => admin.call('REPLICAOF', 'NO', 'ONE'),
    },
  };
  const requests = {
    'code exchange': async (reqId: string) => {
      const start = await startAuthorization(rp);
      const { callback } = await browse(new TestBrowser(srv.issuer), start.url);
      return () =>
        fetch(`${srv.issuer}/token`, {
          method: 'POST',
          headers: { 'x-request-id': reqId },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code: callback.searchParams.get('code')!,
            redirect_uri: rp.redirectUri,
            code_verifier: start.codeVerifier,
            client_id: 'demo-web',
            client_secret: 'demo-web-secret',
          }),
        });
    },
    'authorization request': async (reqId: string) => {
      const url = String((await startAuthorization(rp)).url);
      return () => fetch(url, { redirect: 'manual', headers: { accept: 'text/html', 'x-request-id': reqId } });
    },
  };
  /** The answer's OAuth error: the JSON body, or the error page's code and description. */
  const oauthError = (text: string): unknown =>
    text.startsWith('{')
      ? JSON.parse(text)
      : {
          error: /temporarily_unavailable/.test(text) ? 'temporarily_unavailable' : text.slice(0, 200),
          error_description: /storage is unavailable; try again later/.test(text)
            ? 'storage is unavailable; try again later'
            : undefined,
        };

  // Out of memory refuses the code's consume (HSETNX) but not a script that has already deleted a key (Redis lets a
  // script that wrote go on), so an authorization request still gets through: only the exchange is a row there.
  test.each<[keyof typeof refusals, keyof typeof requests]>([
    ['oom', 'code exchange'],
    ['readonly', 'code exchange'],
    ['readonly', 'authorization request'],
  ])(
    'Redis refusing writes (%s): the %s answers 503 temporarily_unavailable with Retry-After, logged at warn',
    async (refusal, what) => {
      const reqId = `refusal-${randomUUID()}`;
      const request = await requests[what](reqId);
      await refusals[refusal].refuse();
      let res: Response;
      try {
        res = await request();
      } finally {
        await refusals[refusal].restore();
      }
      const text = await res.text();
      expect({
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        location: res.headers.get('location'),
        body: oauthError(text),
        logged: logLines
          .filter((l) => l.reqId === reqId)
          .map((l) => ({ level: l.level, status: l.status, code: (l.outage as { code?: string } | undefined)?.code })),
      }).toEqual({
        status: 503,
        retryAfter: '5',
        location: null,
        body: { error: 'temporarily_unavailable', error_description: 'storage is unavailable; try again later' },
        logged: [{ level: 40, status: 503, code: 'ERR_STORAGE_UNAVAILABLE' }],
      });
    },
  );

  test.each([
    ['a minute ahead (the control row)', Math.floor(Date.now() / 1000) + 60],
    ['in the year 33658 (1e12 s)', 1e12],
    ['1e17 s ahead (beyond what EXPIRE takes)', 1e17],
    ['1e300 (written as a float)', 1e300],
  ])(
    'a client assertion with exp %s: the client authenticates (its replay entry is stored), the bogus code gets invalid_grant',
    async (_name, exp) => {
      const assertion = await new SignJWT({ exp })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer('rp-hs256')
        .setSubject('rp-hs256')
        .setAudience(srv.issuer)
        .setJti(randomUUID())
        .setIssuedAt()
        .sign(new TextEncoder().encode(HS_SECRET));
      const res = await fetch(`${srv.issuer}/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: 'x'.repeat(43),
          redirect_uri: REDIRECT,
          client_id: 'rp-hs256',
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
          client_assertion: assertion,
        }),
      });
      expect({ status: res.status, body: await res.json() }).toEqual({
        status: 400,
        body: { error: 'invalid_grant', error_description: 'grant request is invalid' },
      });
    },
  );

  test('nothing was logged at error level', () => {
    expect(logLines.filter((l) => (l.level as number) >= 50).map((l) => l.msg)).toEqual([]);
  });
});

if (!hasRedisServer)
  test('refusal tests need redis-server (see the warning above)', () => expect(hasRedisServer).toBe(false));
