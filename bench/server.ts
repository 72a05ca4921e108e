/**
 * One server of the benchmarks, run as a child process of `bench/run.ts` (pinned to cpu 0 with taskset when it
 * exists). `BENCH_SPEC` (JSON {@link ServerSpec}) says which: Portcullis (`createServer` with the demo fixtures
 * and the example catalog), bare oidc-provider with the bench adapters, bare Apollo Server 5 on Koa, or one of the
 * GraphQL peers of bench/graphql-peers.ts (lean Apollo on Koa, Apollo with GraphQL Armor, each with our request log).
 *
 * The parent talks to it over the IPC channel only (never over an HTTP route): it asks for pre-minted
 * authorization codes and access tokens, made directly through the provider's models, and for memory figures.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import type { AddressInfo } from 'node:net';
import { createServer as netServer } from 'node:net';
import type { Server } from 'node:http';
import { performance, PerformanceObserver } from 'node:perf_hooks';
import { ApolloServer } from '@apollo/server';
import { koaMiddleware } from '@as-integrations/koa';
import { bodyParser } from '@koa/bodyparser';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { Redis } from 'ioredis';
import Koa from 'koa';
import Provider, { type Configuration } from 'oidc-provider';
import { createServer, generateSigningKeys, DEFAULT_SIGNING_ALGORITHMS, generateCookieKey } from '../lib/index.js';
import { createLogger } from '../lib/core/logger.js';
import { requestLog } from '../lib/http/request-log.js';
import { issuerHostGuard, pinAppToIssuer } from '../lib/http/issuer-host.js';
import { SCOPE_CLAIMS } from '../config/defaults.js';
import { catalogResolvers, typeDefs } from '../examples/catalog/schema.js';
import { DEMO, demoFixtures } from '../examples/demo-fixtures.js';
import { bareMemoryAdapter, bareRedisAdapter } from './bare-adapters.js';
import { startGraphqlPeer } from './graphql-peers.js';

import {
  CODE_CHALLENGE,
  PROFILE_SAMPLING_US,
  SCOPE,
  SHORT_TTL_SECONDS,
  type Request,
  type RunProfile,
  type ServerSpec,
} from './protocol.js';

const spec = JSON.parse(process.env.BENCH_SPEC ?? '{}') as ServerSpec;

/**
 * `--alloc`: V8's sampling heap profiler from start to exit, keeping the samples of objects the GC has already
 * collected (what `--heap-prof` leaves out), so the profile shows where garbage is made.
 */
const allocProfile = process.env.BENCH_ALLOC_PROFILE;
/**
 * `--profile`: V8's CPU profiler over each timed run only (ops `profileStart` / `profileStop`), so that start-up,
 * warm-ups and the minting of codes between runs stay out of it, with the number of requests the run answered.
 */
const cpuProfiles = process.env.BENCH_CPU_PROFILE === '1';
const inspector = allocProfile || cpuProfiles ? new Session() : undefined;
const post = (method: string, params?: object) =>
  new Promise<unknown>((resolve, reject) => {
    inspector!.post(method, params, (err, result) => (err ? reject(err) : resolve(result)));
  });
if (inspector) inspector.connect();
if (allocProfile) {
  await post('HeapProfiler.startSampling', {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
}
async function writeAllocProfile(): Promise<void> {
  if (!allocProfile) return;
  const { profile } = (await post('HeapProfiler.stopSampling')) as { profile: unknown };
  writeFileSync(allocProfile, JSON.stringify(profile));
}

/** HTTP requests received so far (counted only with `--profile`). */
let received = 0;
function countRequests(http: Server): void {
  if (cpuProfiles)
    http.on('request', () => {
      received += 1;
    });
}
let profiling: { requests: number; started: number } | undefined;
async function startCpuProfile(): Promise<void> {
  if (!cpuProfiles) throw new Error('start the bench server with BENCH_CPU_PROFILE=1');
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: PROFILE_SAMPLING_US });
  await post('Profiler.start');
  profiling = { requests: received, started: performance.now() };
}
async function stopCpuProfile(path: string, meta: Omit<RunProfile, 'requests' | 'seconds'>): Promise<void> {
  if (!profiling) throw new Error('profileStop without profileStart');
  const { profile } = (await post('Profiler.stop')) as { profile: unknown };
  const run: RunProfile = {
    ...meta,
    requests: received - profiling.requests,
    seconds: (performance.now() - profiling.started) / 1000,
  };
  profiling = undefined;
  writeFileSync(`${path}.cpuprofile`, JSON.stringify(profile));
  writeFileSync(`${path}.json`, `${JSON.stringify(run, null, 2)}\n`);
}
const ACCOUNT = 'alice';

async function freePort(): Promise<number> {
  const s = netServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

const port = await freePort();
const issuer = `http://127.0.0.1:${port}`;
let provider: Provider | undefined;
let close: () => Promise<void>;

/**
 * `spec.guards`: Portcullis' request log (same logger settings as the Portcullis server below) and its issuer Host
 * check, the two pieces every request of Portcullis passes, in front of a bare peer. Its Koa app's request prototype is
 * pinned to the issuer at start-up, as Portcullis pins its apps (so the Host check does not pin each request).
 */
const guards = spec.guards
  ? [
      ...(process.env.BENCH_GUARDS === 'host'
        ? []
        : [requestLog(createLogger({ LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info' }))]),
      ...(process.env.BENCH_GUARDS === 'log'
        ? []
        : [issuerHostGuard({ issuer, allowedHosts: [], proxy: false, production: false })]),
    ]
  : [];
const guarded = (app: { request: object }) => {
  if (spec.guards) pinAppToIssuer(app, issuer);
};

if (spec.kind === 'portcullis') {
  const many = { points: 1_000_000_000, durationSeconds: 60 };
  const server = await createServer({
    issuer,
    ...demoFixtures(),
    // Every rule of the GraphQL endpoint stays on; only the operation rate limit is raised so that the load
    // generator (one IP, one subject) measures speed rather than 429s.
    graphql: { typeDefs, resolvers: catalogResolvers(), rateLimit: many },
    storage:
      spec.storage === 'redis'
        ? { type: 'redis', url: 'redis://127.0.0.1:6379', keyPrefix: spec.prefix }
        : { type: 'memory' },
    rateLimits: { clientAuthFailures: many, registrations: many },
    accountLimits: { loginPerAccount: many, loginPerIp: many, mailPerAddress: many, mailPerIp: many },
    ...(spec.shortTtl
      ? { ttl: { authorizationCode: SHORT_TTL_SECONDS, accessToken: SHORT_TTL_SECONDS, idToken: SHORT_TTL_SECONDS } }
      : {}),
    // Logs as in production (level info, JSON lines); the parent sends this process' stdout to /dev/null.
    // BENCH_LOG_LEVEL=silent measures what the request log costs (compare two runs).
    logger: createLogger({ LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info' }),
  });
  provider = server.provider;
  const http = await server.listen(port, '127.0.0.1');
  countRequests(http);
  close = async () => {
    closeAll(http);
    await server.close();
  };
} else if (spec.kind === 'oidc') {
  const redis = spec.storage === 'redis' ? new Redis('redis://127.0.0.1:6379') : undefined;
  const configuration: Configuration = {
    adapter: (redis
      ? bareRedisAdapter(redis, spec.prefix)
      : bareMemoryAdapter()) as unknown as Configuration['adapter'],
    clients: [
      {
        client_id: DEMO.client.id,
        client_secret: DEMO.client.secret,
        redirect_uris: [DEMO.client.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    jwks: (await generateSigningKeys(DEFAULT_SIGNING_ALGORITHMS)) as Configuration['jwks'],
    cookies: { keys: [generateCookieKey()] },
    claims: { ...SCOPE_CLAIMS } as unknown as Configuration['claims'],
    conformIdTokenClaims: false,
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: DEMO.initialAccessToken },
    },
    ...(spec.shortTtl
      ? { ttl: { AuthorizationCode: SHORT_TTL_SECONDS, AccessToken: SHORT_TTL_SECONDS, IdToken: SHORT_TTL_SECONDS } }
      : {}),
    async findAccount(_ctx, sub) {
      if (sub !== ACCOUNT) return undefined;
      return {
        accountId: sub,
        async claims() {
          return {
            sub,
            email: DEMO.alice.email,
            email_verified: true,
            given_name: 'Alice',
            family_name: 'Liddell',
            name: 'Alice Liddell',
            birthdate: '1852-05-04',
          };
        },
      };
    },
  };
  provider = new Provider(issuer, configuration);
  for (const guard of guards) provider.use(guard as never);
  guarded(provider as never);
  // like Portcullis (app.silent): a request aborted when a load run ends is not printed
  (provider as unknown as { silent: boolean }).silent = true;
  const http = provider.listen(port, '127.0.0.1');
  await new Promise((r) => http.once('listening', r));
  countRequests(http);
  close = async () => {
    closeAll(http);
    redis?.disconnect();
  };
} else if (spec.kind === 'apollo-lean' || spec.kind === 'apollo-armor') {
  const peer = await startGraphqlPeer(
    spec.kind === 'apollo-lean' ? 'lean' : 'armor',
    port,
    process.env.BENCH_LOG_LEVEL ?? 'info',
  );
  countRequests(peer.http);
  close = async () => {
    closeAll(peer.http);
    await peer.close();
  };
} else {
  // The same schema as Portcullis serves (its directive declared so the SDL parses), no rules, no auth.
  const directives = 'directive @requiresScopes(scopes: [String!]!) on FIELD_DEFINITION | OBJECT | INTERFACE\n';
  const apollo = new ApolloServer({
    schema: makeExecutableSchema({ typeDefs: directives + typeDefs, resolvers: catalogResolvers() as never }),
  });
  await apollo.start();
  const app = new Koa();
  for (const guard of guards) app.use(guard);
  guarded(app);
  app.use(bodyParser({ jsonLimit: '10mb' }));
  app.use(koaMiddleware(apollo) as never);
  const http = app.listen(port, '127.0.0.1');
  await new Promise((r) => http.once('listening', r));
  countRequests(http);
  close = async () => {
    closeAll(http);
    await apollo.stop();
  };
}

function closeAll(http: Server): void {
  http.close();
  http.closeAllConnections();
}

function oidc(): Provider {
  if (!provider) throw new Error(`${spec.kind} has no oidc-provider`);
  return provider;
}

const grantIds = new Map<string, string>();
async function grantFor(clientId: string): Promise<string> {
  let id = grantIds.get(clientId);
  if (!id) {
    const grant = new (oidc().Grant)({ accountId: ACCOUNT, clientId });
    grant.addOIDCScope(SCOPE);
    id = await grant.save();
    grantIds.set(clientId, id);
  }
  return id;
}

/** Codes made through the provider's own model, exactly as the authorization endpoint would store them. */
async function mintCodes(clientId: string, n: number): Promise<string[]> {
  const grantId = await grantFor(clientId);
  const codes: string[] = [];
  const authTime = Math.floor(Date.now() / 1000);
  for (let i = 0; i < n; i += 500) {
    const batch = Array.from({ length: Math.min(500, n - i) }, () =>
      new (oidc().AuthorizationCode)({
        accountId: ACCOUNT,
        clientId,
        grantId,
        scope: SCOPE,
        redirectUri: DEMO.client.redirectUri,
        authTime,
        codeChallenge: CODE_CHALLENGE,
        codeChallengeMethod: 'S256',
      } as never).save(),
    );
    codes.push(...(await Promise.all(batch)));
  }
  return codes;
}

async function accessToken(clientId: string): Promise<string> {
  const grantId = await grantFor(clientId);
  return new (oidc().AccessToken)({
    accountId: ACCOUNT,
    clientId,
    grantId,
    scope: SCOPE,
    gty: 'authorization_code',
  } as never).save();
}

/** Milliseconds this process has spent in GC pauses (every kind), read with the CPU time (op `cpu`). */
let gcPauseMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcPauseMs += e.duration;
}).observe({ entryTypes: ['gc'] });

const gc = (globalThis as { gc?: (options?: object) => void }).gc;
/**
 * Full garbage collections. `lastResort`: the collection V8 runs under memory pressure, which also hands the
 * heap pages it keeps pooled for reuse back to the operating system (a regular one keeps them, so RSS stays up).
 */
function collect(lastResort = false): void {
  if (!gc) throw new Error('start the bench server with --expose-gc');
  gc();
  gc();
  if (lastResort) gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

/** Heap growth per opaque access token held by the storage adapter, bytes. */
async function bytesPerToken(n: number): Promise<number> {
  const grantId = await grantFor(DEMO.client.id);
  collect();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < n; i += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, n - i) }, () =>
        new (oidc().AccessToken)({
          accountId: ACCOUNT,
          clientId: DEMO.client.id,
          grantId,
          scope: SCOPE,
          gty: 'authorization_code',
        } as never).save(),
      ),
    );
  }
  collect();
  return (process.memoryUsage().heapUsed - before) / n;
}

process.on('message', (raw) => {
  const msg = raw as Request;
  const answer = (body: Record<string, unknown>) => process.send!({ id: msg.id, ...body });
  const run = async () => {
    switch (msg.op) {
      case 'mintCodes':
        return answer({ codes: await mintCodes(msg.clientId, msg.n) });
      case 'accessToken':
        return answer({ token: await accessToken(msg.clientId) });
      case 'memory': {
        collect(msg.lastResort);
        const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
        return answer({ rss, heapUsed, heapTotal, external });
      }
      case 'cpu':
        return answer({ ...process.cpuUsage(), gcMs: gcPauseMs });
      case 'bytesPerToken':
        return answer({ bytes: await bytesPerToken(msg.n) });
      case 'profileStart':
        await startCpuProfile();
        return answer({});
      case 'profileStop':
        await stopCpuProfile(msg.path, msg.meta);
        return answer({});
      case 'exit':
        await close();
        await writeAllocProfile();
        answer({});
        // a plain exit, after the answer has gone out over IPC
        setTimeout(() => process.exit(0), 50);
    }
  };
  run().catch((err: Error) => answer({ error: err.stack ?? String(err) }));
});
process.on('disconnect', () => process.exit(0));
process.send!({ op: 'ready', port, issuer });
