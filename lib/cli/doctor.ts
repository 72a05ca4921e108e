/**
 * `portcullis doctor`: checks a configuration and, given a URL, a running deployment, for the misconfigurations
 * behind most "sessions lost / cookies not set / http endpoints in discovery" reports: TLS terminated at a proxy
 * without `proxy: true`, cookies without `Secure`, no HSTS, ephemeral keys, memory storage in production, Redis
 * without persistence, clock skew, discovery on another origin than the issuer, keys without `kid`, GraphQL
 * introspection or GET queries in production.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { loadConfig } from '../config/load.js';
import type { PortcullisConfig, PrivateJwks } from '../../config/types.js';
import { ConfigError, type ConfigProblem } from '../core/errors.js';
import { configProblemFix, unsetVariableProblem } from './doctor-fixes.js';

/** One finding: `problem` makes `doctor` exit non-zero; `warning` does not; `ok` is a check that passed. */
export interface Finding {
  level: 'problem' | 'warning' | 'ok';
  /** Stable identifier, e.g. `proxy-unset` (for scripts and tests). */
  id: string;
  message: string;
  /** What to change; absent for `ok`. */
  fix?: string;
}

/** Inputs of {@link diagnose}. */
export interface DoctorOptions {
  /** The configuration as written (before defaults); omit to check only a deployment. */
  config?: PortcullisConfig;
  /** Base URL of a running deployment (normally the issuer); omit to check only the configuration. */
  url?: string;
  /** Environment the configuration runs with (`NODE_ENV`). @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Largest tolerated difference between this machine's clock and the server's `Date` header, in seconds. @default 30 */
  maxClockSkewSeconds?: number;
  /** Timeout of each HTTP request and of the Redis check, in milliseconds. @default 5000 */
  timeoutMs?: number;
}

const problem = (id: string, message: string, fix: string): Finding => ({ level: 'problem', id, message, fix });
const warning = (id: string, message: string, fix: string): Finding => ({ level: 'warning', id, message, fix });
const ok = (id: string, message: string): Finding => ({ level: 'ok', id, message });

/**
 * Runs every check that its inputs allow and returns the findings in a stable order (configuration first, then
 * the deployment). Never throws for a bad configuration or an unreachable URL: those are findings too.
 */
export async function diagnose(options: DoctorOptions): Promise<Finding[]> {
  const findings: Finding[] = [];
  if (options.config) findings.push(...(await checkConfig(options.config, options.env ?? process.env, options.timeoutMs ?? 5000)));
  if (options.url) findings.push(...(await checkDeployment(options.url, options.config, options.maxClockSkewSeconds ?? 30, options.timeoutMs ?? 5000)));
  return findings;
}

/** What `createServer` would refuse, each problem once: one that a check of its own states too is left to that check. */
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
    .filter((p) => !(p.path === 'keys.signing' && stated('keys-ephemeral')) && !(p.path === 'keys.cookies' && stated('cookie-keys-ephemeral'))
      && !(p.path === 'issuer' && /https/.test(p.message) && stated('issuer-not-https')))
    .map((p) => {
      const unset = unsetVariableProblem(p, env);
      return problem('config-invalid', unset?.message ?? `"${p.path}": ${p.message}`, unset?.fix ?? configProblemFix(p));
    });
}

async function checkConfig(config: PortcullisConfig, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Finding[]> {
  const out: Finding[] = [];
  const production = env.NODE_ENV === 'production';
  let issuer: URL | undefined;
  try { issuer = new URL(config.issuer); } catch { /* reported by loadConfig */ }

  if (issuer?.protocol === 'https:' && !config.proxy) {
    out.push(warning('proxy-unset', 'the issuer is https but `proxy` is not set: if TLS ends at a load balancer or reverse proxy, the server sees plain http and the client address of the proxy',
      'set proxy: true (PORTCULLIS_PROXY=true) when a TLS-terminating proxy forwards to this server, and have the proxy send X-Forwarded-Proto and X-Forwarded-For; run `portcullis doctor --url` against the deployment to be sure'));
  }
  if (issuer && issuer.protocol !== 'https:' && !['localhost', '127.0.0.1', '[::1]'].includes(issuer.hostname)) {
    out.push(problem('issuer-not-https', `the issuer ${issuer.origin} is not https: tokens, codes and cookies cross the network in clear`, 'serve the issuer over https (terminate TLS here or at a proxy with proxy: true)'));
  }

  const signing = config.keys?.signing;
  if (!signing) {
    out.push((production ? problem : warning)('keys-ephemeral', 'no signing keys configured: a new key set is made at every start, so tokens and ID tokens die with the process and instances cannot verify each other\'s tokens',
      'npx portcullis keys --out /etc/portcullis/jwks.json, then keys.signing: "/etc/portcullis/jwks.json" (PORTCULLIS_SIGNING_KEYS)'));
  } else if (typeof signing === 'object') {
    const withoutKid = (signing as PrivateJwks).keys?.filter((k) => !k.kid).length ?? 0;
    if (withoutKid) out.push(problem('keys-without-kid', `${withoutKid} signing key(s) have no "kid": relying parties cannot pick the key after a rotation`, 'give every key a unique kid (npx portcullis keys does)'));
  }
  if (!config.keys?.cookies?.length) {
    out.push((production ? problem : warning)('cookie-keys-ephemeral', 'no cookie keys configured: sign-in sessions end at every restart and differ between instances', 'keys.cookies: [<32+ random characters>] (PORTCULLIS_COOKIE_KEYS; npx portcullis cookie-key)'));
  }

  const storage = config.storage?.type ?? 'memory';
  // Without storage.type, production is refused at "storage.type" (config-invalid) already.
  if (config.storage?.type === 'memory' && production) {
    out.push(warning('memory-storage', 'memory storage in production: one instance only, and every session, grant and registered client is lost on restart',
      'use Redis (storage.type "redis", REDIS_URL) unless this is deliberately a single instance'));
  }
  if (storage === 'redis' && config.storage?.url) out.push(await checkRedisPersistence(config.storage.url, timeoutMs));

  if (production && config.graphql?.introspection?.enabled) {
    out.push(problem('graphql-introspection', 'GraphQL introspection is on in production: anyone (or any token holder, with requiredScope) can list the whole schema', 'set graphql.introspection.enabled: false, or requiredScope to an admin scope'));
  }
  if (production && config.graphql?.transports?.get) {
    out.push(problem('graphql-get', 'GraphQL GET queries are on in production: queries travel in URLs (logs, Referer) and skip CORS preflight', 'set graphql.transports.get: false unless a CDN cache needs it'));
  }
  return [...loadFindings(config, env, out), ...out];
}

/** Redis with neither RDB snapshots nor AOF loses every session, grant and client on restart. */
async function checkRedisPersistence(url: string, timeoutMs: number): Promise<Finding> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: timeoutMs, retryStrategy: () => null });
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
      return aof ? ok('redis-persistence', `Redis at ${where} writes an append-only file`) : warning('redis-persistence', `Redis at ${where} does not allow CONFIG GET: could not tell whether it persists`, 'make sure the Redis has AOF or RDB snapshots (managed Redis: check its backup settings)');
    }
    if (aof || save.trim()) return ok('redis-persistence', `Redis at ${where} persists (${[aof ? 'AOF' : '', save.trim() ? `RDB save "${save.trim()}"` : ''].filter(Boolean).join(', ')})`);
    return problem('redis-no-persistence', `Redis at ${where} has neither AOF nor RDB snapshots: a Redis restart signs everyone out and forgets registered clients and grants`, 'enable appendonly yes (or RDB save points) in redis.conf, and back the data up');
  } catch (err) {
    return problem('redis-unreachable', `Redis at ${where} does not answer: ${(err as Error).message}`, 'check storage.url (REDIS_URL), the network and the Redis password');
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

async function checkDeployment(base: string, config: PortcullisConfig | undefined, maxSkew: number, timeoutMs: number): Promise<Finding[]> {
  const out: Finding[] = [];
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return [problem('url-invalid', `--url ${JSON.stringify(base)} is not a URL`, 'pass the issuer, e.g. --url https://id.example.com')];
  }
  const root = url.href.replace(/\/$/, '');
  const request = (target: string) => fetch(target, { redirect: 'manual', signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });

  let res: Response;
  let discovery: Record<string, unknown> | undefined;
  let path = '/.well-known/openid-configuration';
  try {
    res = await request(`${root}${path}`);
    if (res.status === 404) {
      path = '/.well-known/oauth-authorization-server';
      res = await request(`${root}${path}`);
    }
  } catch (err) {
    return [problem('unreachable', `${root} does not answer: ${(err as Error).cause ? String((err as Error & { cause: Error }).cause.message) : (err as Error).message}`, 'check the URL, DNS, the proxy and TLS certificate')];
  }
  const bodyText = await res.text();
  try { discovery = JSON.parse(bodyText) as Record<string, unknown>; } catch { /* not JSON */ }

  if (res.status === 400 && /proxy/i.test(String(discovery?.error_description ?? ''))) {
    out.push(problem('proxy-unset', `the server refused ${path} because the request reached it over plain http although its issuer is https: TLS ends at a proxy and \`proxy\` is not set (${String(discovery?.error_description)})`,
      'set proxy: true (PORTCULLIS_PROXY=true) and make the proxy send X-Forwarded-Proto: https and X-Forwarded-For'));
  } else if (res.status === 421) {
    out.push(problem('host-not-allowed', `the server refused the Host ${url.host} (421): it answers only for its issuer's host`, 'call it by the issuer URL, or add this host to allowedHosts (PORTCULLIS_ALLOWED_HOSTS); behind a proxy, forward the original Host'));
  } else if (res.status !== 200 || !discovery) {
    out.push(problem('discovery-failed', `${path} answered ${res.status}${discovery?.error ? ` ${String(discovery.error)}` : ''}, not a discovery document`, 'check that --url is the issuer and the server runs'));
  }

  const https = url.protocol === 'https:';
  if (https) {
    out.push(res.headers.get('strict-transport-security')
      ? ok('hsts', `Strict-Transport-Security: ${res.headers.get('strict-transport-security')}`)
      : problem('hsts-missing', 'no Strict-Transport-Security header: a browser may be downgraded to http on its first visit', 'send Strict-Transport-Security (Portcullis does for an https issuer; a proxy may strip it)'));
  }
  const date = res.headers.get('date');
  if (date) {
    const skew = Math.round((Date.now() - Date.parse(date)) / 1000);
    out.push(Math.abs(skew) > maxSkew
      ? problem('clock-skew', `the server's clock differs from this machine's by ${skew} s (Date: ${date}): tokens look expired or not yet valid to relying parties`, 'run NTP (chrony, systemd-timesyncd) on the server and on this machine')
      : ok('clock', `clock difference ${skew} s`));
  }

  if (res.status === 200 && discovery) {
    out.push(...issuerFindings(discovery.issuer, url, config));
    const expectedOrigin = url.origin;
    const foreign = Object.entries(discovery)
      .filter(([k, v]) => typeof v === 'string' && (k.endsWith('_endpoint') || k === 'jwks_uri' || k === 'registration_endpoint'))
      .filter(([, v]) => { try { return new URL(v as string).origin !== expectedOrigin; } catch { return true; } });
    out.push(foreign.length
      ? problem('discovery-origin', `discovery points to another origin than the issuer: ${foreign.map(([k, v]) => `${k}=${String(v)}`).join(', ')}${https && foreign.some(([, v]) => String(v).startsWith('http:')) ? ' (plain http behind an https issuer: the proxy is not trusted)' : ''}`, 'set issuer to the public URL and, behind a proxy, proxy: true')
      : ok('discovery-origin', `every endpoint in discovery is under ${expectedOrigin}`));
    const jwksUri = typeof discovery.jwks_uri === 'string' ? discovery.jwks_uri : undefined;
    if (jwksUri) out.push(...(await checkPublishedKeys(jwksUri, timeoutMs)));
    const authorization = typeof discovery.authorization_endpoint === 'string' ? discovery.authorization_endpoint : undefined;
    const client = config?.clients?.find((c) => c.redirect_uris?.length);
    if (https && authorization && client) out.push(await checkCookies(authorization, client.client_id, client.redirect_uris[0]!, timeoutMs));
  }
  return out;
}

/**
 * The issuer discovery names, against the URL asked (OpenID Connect Discovery §4.3: relying parties refuse another)
 * and against the configuration's, which must be the one running there for the `--config` findings to be about it.
 */
function issuerFindings(named: unknown, url: URL, config: PortcullisConfig | undefined): Finding[] {
  const out: Finding[] = [];
  const root = url.href.replace(/\/$/, '');
  if (named !== root && named !== url.href) {
    out.push(problem('issuer-mismatch', `discovery names issuer ${JSON.stringify(named)}, not ${root}: relying parties refuse it (OpenID Connect Discovery §4.3)`, 'set issuer (PORTCULLIS_ISSUER) to the public URL clients use'));
  }
  if (typeof config?.issuer === 'string' && config.issuer !== named) {
    out.push(problem('config-issuer-mismatch', `the configuration's issuer ${config.issuer} is not this deployment's (its discovery names ${JSON.stringify(named)}): the --config checked is not the one running at ${root}, or PORTCULLIS_ISSUER overrides it there`,
      `check a matching pair: the configuration ${root} runs with, or --url ${config.issuer}; if this file is meant for ${root}, set its "issuer" to ${JSON.stringify(named)}`));
  }
  return out;
}

async function checkPublishedKeys(jwksUri: string, timeoutMs: number): Promise<Finding[]> {
  try {
    const res = await fetch(jwksUri, { signal: AbortSignal.timeout(timeoutMs) });
    const jwks = (await res.json()) as { keys?: Array<{ kid?: string }> };
    const withoutKid = jwks.keys?.filter((k) => !k.kid).length ?? 0;
    return [withoutKid ? problem('keys-without-kid', `${withoutKid} published key(s) have no "kid"`, 'give every signing key a unique kid') : ok('jwks', `${jwks.keys?.length ?? 0} published key(s), each with a kid`)];
  } catch (err) {
    return [problem('jwks-failed', `jwks_uri ${jwksUri} did not answer a JSON key set: ${(err as Error).message}`, 'check the proxy routes /jwks to the server')];
  }
}

/** Starts an authorization request (code, PKCE) with a configured client and looks at the cookies it sets. */
async function checkCookies(endpoint: string, clientId: string, redirectUri: string, timeoutMs: number): Promise<Finding> {
  const target = new URL(endpoint);
  const verifier = randomBytes(32).toString('base64url');
  target.search = new URLSearchParams({
    client_id: clientId, redirect_uri: redirectUri, response_type: 'code', scope: 'openid', state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
  }).toString();
  try {
    const res = await fetch(target, { redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    const cookies = res.headers.getSetCookie();
    if (!cookies.length) return warning('cookies-unchecked', `the authorization endpoint answered ${res.status} without cookies for client ${clientId}: could not check the Secure flag`, 'pass a config whose first client is registered on this deployment');
    const insecure = cookies.filter((c) => !/;\s*secure/i.test(c)).map((c) => c.split('=')[0]);
    return insecure.length
      ? problem('cookies-not-secure', `cookies without Secure over https: ${insecure.join(', ')} (the server thinks it is on plain http)`, 'set proxy: true behind a TLS-terminating proxy')
      : ok('cookies-secure', `${cookies.length} cookie(s) set by the authorization endpoint, all Secure`);
  } catch (err) {
    return warning('cookies-unchecked', `the authorization endpoint did not answer: ${(err as Error).message}`, 'check the deployment');
  }
}

/** Prints findings as lines: `✗ problem`, `! warning`, `✓ ok`, each fix indented under its finding. */
export function formatFindings(findings: readonly Finding[]): string {
  const mark = { problem: '✗', warning: '!', ok: '✓' } as const;
  const lines = findings.map((f) => `${mark[f.level]} [${f.id}] ${f.message}${f.fix ? `\n    fix: ${f.fix}` : ''}`);
  const problems = findings.filter((f) => f.level === 'problem').length;
  const warnings = findings.filter((f) => f.level === 'warning').length;
  lines.push(`${problems} problem(s), ${warnings} warning(s)`);
  return lines.join('\n');
}
