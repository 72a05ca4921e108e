import { mergeConfig } from '../config/merge.js';
import type { PortcullisConfig } from '../../config/types.js';
import { ConfigError } from '../core/errors.js';

/** Where and with what configuration a server runs, as read from the environment. */
export interface ServerSettings {
  /**
   * TCP port: `PORT`, else the port of an `http:` issuer on a loopback host (see {@link loopbackIssuerPort}), else
   * 3000.
   */
  port: number;
  /**
   * Interface to listen on: `HOST`, else (without `PORT`) the address of an issuer written as a loopback IP
   * address (`http://127.0.0.1:4340` → `127.0.0.1`, `http://[::1]:4340` → `::1`, see {@link loopbackIssuerHost}),
   * else `localhost`.
   */
  host: string;
  config: PortcullisConfig;
}

/** `true`/`1`/`yes` or `false`/`0`/`no`, for boolean environment variables. */
function booleanVariable(name: string, value: string): boolean {
  if (/^(true|1|yes)$/i.test(value)) return true;
  if (/^(false|0|no)$/i.test(value)) return false;
  throw new ConfigError(name, `must be true or false, got ${JSON.stringify(value)}`);
}

const list = (value: string) =>
  value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

/**
 * The port a plain-http issuer on this machine names (`http://localhost:4340` → 4340, `http://127.0.0.1` → 80):
 * there the issuer's URL is the server's own address, so a server on any other port answers nobody who follows
 * the discovery URL. `undefined` for any other issuer (https, another host: a proxy or load balancer decides
 * where requests arrive) and for one that is not a URL (the configuration check reports it).
 */
export function loopbackIssuerPort(issuer: string): number | undefined {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return undefined;
  }
  const host = url.hostname;
  const loopback =
    host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
  return url.protocol === 'http:' && loopback ? Number(url.port || 80) : undefined;
}

/**
 * The address to listen on for a plain-http issuer written as a loopback IP address (`http://127.0.0.2:4340` →
 * `127.0.0.2`, `http://[::1]:4340` → `::1`): `localhost` resolves to one address only (`::1` or `127.0.0.1`,
 * depending on the system), so a server listening on `localhost` may not answer at the issuer's address.
 * `undefined` for any other issuer (a host name such as `localhost`, https, a public host).
 */
export function loopbackIssuerHost(issuer: string): string | undefined {
  if (loopbackIssuerPort(issuer) === undefined) return undefined;
  const host = new URL(issuer).hostname;
  if (host === '[::1]') return '::1';
  return /^127(\.\d{1,3}){3}$/.test(host) ? host : undefined;
}

/**
 * The configuration of `npm start` and `portcullis start`: `{ issuer: http://localhost:PORT }`, then `base` (the
 * demo data of `npm start`), then the configuration file, merged deeply (objects member by member, arrays
 * replace; see `mergeConfig`), then these environment variables, which win: `PORT` (default: the port of a
 * plain-http loopback issuer, `http://localhost:4340` → 4340, see {@link loopbackIssuerPort}; else 3000), `HOST`
 * (default: without `PORT`, the address of an issuer written as a loopback IP address, see
 * {@link loopbackIssuerHost}; else `localhost`), `PORTCULLIS_ISSUER`, `REDIS_URL` (Redis storage),
 * `PORTCULLIS_STORAGE=memory`,
 * `PORTCULLIS_SMTP_URL` (`mail.smtp`), `PORTCULLIS_MAIL_FROM` (`mail.from`), `PORTCULLIS_SIGNING_KEYS` (a private
 * JWKS or the path of one), `PORTCULLIS_COOKIE_KEYS` (comma-separated), `PORTCULLIS_MFA_KEY` (`mfa.encryptionKey`),
 * `PORTCULLIS_PROXY` (`proxy`), `PORTCULLIS_PROXY_HOPS` (`proxyHops`) and
 * `PORTCULLIS_ALLOWED_HOSTS` (comma-separated `allowedHosts`).
 *
 * @throws {ConfigError} for a bad `PORT`, `PORTCULLIS_PROXY`, `PORTCULLIS_PROXY_HOPS` or `PORTCULLIS_STORAGE`.
 */
export function settingsFromEnvironment(
  env: NodeJS.ProcessEnv,
  layers: { base?: Partial<PortcullisConfig>; file?: Partial<PortcullisConfig> } = {},
): ServerSettings {
  const portSet = env.PORT !== undefined && env.PORT !== '';
  // Decimal digits only: Number() would also read "0x10" as 16, "1e3" as 1000 and " 80" as 80.
  let port = portSet ? (/^\d{1,5}$/.test(env.PORT!) ? Number(env.PORT) : NaN) : 3000;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError('PORT', `must be a TCP port number, got ${JSON.stringify(env.PORT)}`);
  const config = mergeConfig<PortcullisConfig>(
    { issuer: `http://localhost:${port}` },
    layers.base ?? {},
    layers.file ?? {},
  );
  if (env.PORTCULLIS_ISSUER) config.issuer = env.PORTCULLIS_ISSUER;
  if (env.REDIS_URL) config.storage = { ...config.storage, type: 'redis', url: env.REDIS_URL };
  else if (env.PORTCULLIS_STORAGE === 'memory') config.storage = { ...config.storage, type: 'memory' };
  else if (env.PORTCULLIS_STORAGE)
    throw new ConfigError(
      'PORTCULLIS_STORAGE',
      `must be "memory" (use REDIS_URL for Redis), got ${JSON.stringify(env.PORTCULLIS_STORAGE)}`,
    );
  if (env.PORTCULLIS_SMTP_URL || env.PORTCULLIS_MAIL_FROM) {
    config.mail = {
      ...config.mail,
      ...(env.PORTCULLIS_SMTP_URL ? { smtp: env.PORTCULLIS_SMTP_URL } : {}),
      ...(env.PORTCULLIS_MAIL_FROM ? { from: env.PORTCULLIS_MAIL_FROM } : {}),
    };
  }
  // Shared keys let several instances verify each other's tokens and cookies (docs/guides/production.md "Keys").
  if (env.PORTCULLIS_SIGNING_KEYS) config.keys = { ...config.keys, signing: env.PORTCULLIS_SIGNING_KEYS };
  if (env.PORTCULLIS_COOKIE_KEYS) config.keys = { ...config.keys, cookies: list(env.PORTCULLIS_COOKIE_KEYS) };
  if (env.PORTCULLIS_MFA_KEY) config.mfa = { ...config.mfa, encryptionKey: env.PORTCULLIS_MFA_KEY };
  if (env.PORTCULLIS_PROXY) config.proxy = booleanVariable('PORTCULLIS_PROXY', env.PORTCULLIS_PROXY);
  if (env.PORTCULLIS_PROXY_HOPS) {
    const hops = Number(env.PORTCULLIS_PROXY_HOPS);
    if (!Number.isInteger(hops) || hops < 1)
      throw new ConfigError(
        'PORTCULLIS_PROXY_HOPS',
        `must be a whole number of proxies, 1 or more, got ${JSON.stringify(env.PORTCULLIS_PROXY_HOPS)}`,
      );
    config.proxyHops = hops;
  }
  if (env.PORTCULLIS_ALLOWED_HOSTS) config.allowedHosts = list(env.PORTCULLIS_ALLOWED_HOSTS);
  // Without PORT, listen where a local issuer says the server is (else the printed discovery URL finds nothing).
  if (!portSet) port = loopbackIssuerPort(config.issuer) ?? port;
  const host = env.HOST || (portSet ? undefined : loopbackIssuerHost(config.issuer)) || 'localhost';
  return { port, host, config };
}
