/**
 * `portcullis doctor`, the checks of a configuration: what `createServer` would refuse, then what it accepts but
 * should not in production.
 */
import { Redis } from 'ioredis';
import { loadConfig } from '../config/load.js';
import type { PortcullisConfig, PrivateJwks } from '../../config/types.js';
import { ConfigError, type ConfigProblem } from '../core/errors.js';
import { configProblemFix, unsetVariableProblem } from './doctor-fixes.js';
import { type Finding, ok, problem, warning } from './finding.js';

/**
 * The configuration's own findings (transport, keys, storage, GraphQL, in that order), after what `loadConfig`
 * refuses.
 */
export async function checkConfig(
  config: PortcullisConfig,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<Finding[]> {
  const production = env.NODE_ENV === 'production';
  const out = [
    ...transportFindings(config),
    ...keyFindings(config, production),
    ...(await storageFindings(config, production, timeoutMs)),
    ...graphqlFindings(config, production),
  ];
  return [...loadFindings(config, env, out), ...out];
}

/** The issuer's scheme against `proxy`: TLS ended at a proxy that is not trusted, or no TLS at all. */
function transportFindings(config: PortcullisConfig): Finding[] {
  const out: Finding[] = [];
  let issuer: URL | undefined;
  try {
    issuer = new URL(config.issuer);
  } catch {
    /* reported by loadConfig */
  }

  if (issuer?.protocol === 'https:' && !config.proxy) {
    out.push(
      warning(
        'proxy-unset',
        'the issuer is https but `proxy` is not set: if TLS ends at a load balancer or reverse proxy, the ' +
          'server sees plain http and the client address of the proxy',
        'set proxy: true (PORTCULLIS_PROXY=true) when a TLS-terminating proxy forwards to this server, and ' +
          'have the proxy send X-Forwarded-Proto and X-Forwarded-For; run `portcullis doctor --url` against ' +
          'the deployment to be sure',
      ),
    );
  }
  if (issuer && issuer.protocol !== 'https:' && !['localhost', '127.0.0.1', '[::1]'].includes(issuer.hostname)) {
    out.push(
      problem(
        'issuer-not-https',
        `the issuer ${issuer.origin} is not https: tokens, codes and cookies cross the network in clear`,
        'serve the issuer over https (terminate TLS here or at a proxy with proxy: true)',
      ),
    );
  }
  return out;
}

/** Signing keys (configured, each with a `kid`) and cookie keys: generated ones die with the process. */
function keyFindings(config: PortcullisConfig, production: boolean): Finding[] {
  const out: Finding[] = [];
  const signing = config.keys?.signing;
  if (!signing) {
    out.push(
      (production ? problem : warning)(
        'keys-ephemeral',
        'no signing keys configured: a new key set is made at every start, so tokens and ID tokens die with ' +
          "the process and instances cannot verify each other's tokens",
        'npx portcullis keys --out /etc/portcullis/jwks.json, then keys.signing: "/etc/portcullis/jwks.json" ' +
          '(PORTCULLIS_SIGNING_KEYS)',
      ),
    );
  } else if (typeof signing === 'object') {
    const withoutKid = (signing as PrivateJwks).keys?.filter((k) => !k.kid).length ?? 0;
    if (withoutKid)
      out.push(
        problem(
          'keys-without-kid',
          `${withoutKid} signing key(s) have no "kid": relying parties cannot pick the key after a rotation`,
          'give every key a unique kid (npx portcullis keys does)',
        ),
      );
  }
  if (!config.keys?.cookies?.length) {
    out.push(
      (production ? problem : warning)(
        'cookie-keys-ephemeral',
        'no cookie keys configured: sign-in sessions end at every restart and differ between instances',
        'keys.cookies: [<32+ random characters>] (PORTCULLIS_COOKIE_KEYS; npx portcullis cookie-key)',
      ),
    );
  }
  return out;
}

/** Memory storage in production, and whether the configured Redis persists. */
async function storageFindings(config: PortcullisConfig, production: boolean, timeoutMs: number): Promise<Finding[]> {
  const out: Finding[] = [];
  const storage = config.storage?.type ?? 'memory';
  // Without storage.type, production is refused at "storage.type" (config-invalid) already.
  if (config.storage?.type === 'memory' && production) {
    out.push(
      warning(
        'memory-storage',
        'memory storage in production: one instance only, and every session, grant and registered client is ' +
          'lost on restart',
        'use Redis (storage.type "redis", REDIS_URL) unless this is deliberately a single instance',
      ),
    );
  }
  if (storage === 'redis' && config.storage?.url) out.push(await checkRedisPersistence(config.storage.url, timeoutMs));
  return out;
}

/** GraphQL introspection and GET queries, which production should not offer. */
function graphqlFindings(config: PortcullisConfig, production: boolean): Finding[] {
  const out: Finding[] = [];
  if (production && config.graphql?.introspection?.enabled) {
    out.push(
      problem(
        'graphql-introspection',
        'GraphQL introspection is on in production: anyone (or any token holder, with requiredScope) can ' +
          'list the whole schema',
        'set graphql.introspection.enabled: false, or requiredScope to an admin scope',
      ),
    );
  }
  if (production && config.graphql?.transports?.get) {
    out.push(
      problem(
        'graphql-get',
        'GraphQL GET queries are on in production: queries travel in URLs (logs, Referer) and skip CORS preflight',
        'set graphql.transports.get: false unless a CDN cache needs it',
      ),
    );
  }
  return out;
}

/**
 * What `createServer` would refuse, each problem once: one that a check of its own states too is left to that check.
 */
function loadFindings(config: PortcullisConfig, env: NodeJS.ProcessEnv, checks: readonly Finding[]): Finding[] {
  const production = env.NODE_ENV === 'production';
  let problems: readonly ConfigProblem[];
  try {
    loadConfig(config, env);
    return [ok('config-valid', `the configuration loads${production ? ' with NODE_ENV=production' : ''}`)];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems = err.problems;
  }
  const stated = (id: string) => checks.some((f) => f.level === 'problem' && f.id === id);
  return problems
    .filter(
      (p) =>
        !(p.path === 'keys.signing' && stated('keys-ephemeral')) &&
        !(p.path === 'keys.cookies' && stated('cookie-keys-ephemeral')) &&
        !(p.path === 'issuer' && /https/.test(p.message) && stated('issuer-not-https')),
    )
    .map((p) => {
      const unset = unsetVariableProblem(p, env);
      return problem(
        'config-invalid',
        unset?.message ?? `"${p.path}": ${p.message}`,
        unset?.fix ?? configProblemFix(p),
      );
    });
}

/** Redis with neither RDB snapshots nor AOF loses every session, grant and client on restart. */
async function checkRedisPersistence(url: string, timeoutMs: number): Promise<Finding> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    connectTimeout: timeoutMs,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  const where = redactedRedisUrl(url);
  try {
    await client.connect();
    const info = String(await client.info('persistence'));
    const aof = /aof_enabled:1/.test(info);
    let save = '';
    try {
      save = ((await client.config('GET', 'save')) as string[])[1] ?? '';
    } catch {
      return aof
        ? ok('redis-persistence', `Redis at ${where} writes an append-only file`)
        : warning(
            'redis-persistence',
            `Redis at ${where} does not allow CONFIG GET: could not tell whether it persists`,
            'make sure the Redis has AOF or RDB snapshots (managed Redis: check its backup settings)',
          );
    }
    if (aof || save.trim())
      return ok(
        'redis-persistence',
        `Redis at ${where} persists ` +
          `(${[aof ? 'AOF' : '', save.trim() ? `RDB save "${save.trim()}"` : ''].filter(Boolean).join(', ')})`,
      );
    return problem(
      'redis-no-persistence',
      `Redis at ${where} has neither AOF nor RDB snapshots: a Redis restart signs everyone out and forgets ` +
        `registered clients and grants`,
      'enable appendonly yes (or RDB save points) in redis.conf, and back the data up',
    );
  } catch (err) {
    return problem(
      'redis-unreachable',
      `Redis at ${where} does not answer: ${(err as Error).message}`,
      'check storage.url (REDIS_URL), the network and the Redis password',
    );
  } finally {
    client.disconnect();
  }
}

function redactedRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}
