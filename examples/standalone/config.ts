import { readFileSync } from 'node:fs';
import { ConfigError, mergeConfig, type PortcullisConfig } from '../../lib/index.js';
import { catalogResolvers, typeDefs } from '../catalog/schema.js';
import { demoFixtures } from '../demo-fixtures.js';
import { jsonSyntaxErrorWithoutInput } from '../../lib/errors.js';

/** Settings of the standalone server, read from the environment. */
export interface StandaloneSettings {
  port: number;
  host: string;
  config: PortcullisConfig;
  /** Whether the demo fixtures are loaded (NODE_ENV is not `production`). */
  demo: boolean;
}

/** `true`/`1`/`yes` or `false`/`0`/`no`, for boolean environment variables. */
function booleanVariable(name: string, value: string): boolean {
  if (/^(true|1|yes)$/i.test(value)) return true;
  if (/^(false|0|no)$/i.test(value)) return false;
  throw new ConfigError(name, `must be true or false, got ${JSON.stringify(value)}`);
}

/**
 * Reads `PORT` (default 3000), `HOST` (default `localhost`), `PORTCULLIS_ISSUER` (default
 * `http://localhost:PORT`), `PORTCULLIS_CONFIG` (path to a JSON file merged deeply over the defaults and, in
 * development, the demo configuration: objects merge member by member, arrays replace), `REDIS_URL`
 * (Redis storage when set), `PORTCULLIS_STORAGE=memory` (explicit memory storage), `PORTCULLIS_SMTP_URL` (`mail.smtp`), `PORTCULLIS_MAIL_FROM` (`mail.from`),
 * `PORTCULLIS_SIGNING_KEYS` (a private JWKS, or the path of a file holding one, see `npx portcullis keys`),
 * `PORTCULLIS_COOKIE_KEYS` (comma-separated cookie secrets), `PORTCULLIS_PROXY` (`proxy`: `true` behind a
 * TLS-terminating proxy) and `PORTCULLIS_ALLOWED_HOSTS` (comma-separated `allowedHosts`). In development
 * (`NODE_ENV` not `production`) the demo fixtures and the demo catalog API are added; in production the server
 * serves no demo data, and GraphQL only when `PORTCULLIS_CONFIG` configures it.
 *
 * @throws {ConfigError} for a bad `PORT`, `PORTCULLIS_PROXY` or an unreadable `PORTCULLIS_CONFIG` (whose
 *   contents are never quoted: they may hold secrets).
 */
export function standaloneSettings(env: NodeJS.ProcessEnv = process.env): StandaloneSettings {
  const port = env.PORT === undefined || env.PORT === '' ? 3000 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError('PORT', `must be a TCP port number, got ${JSON.stringify(env.PORT)}`);
  const host = env.HOST || 'localhost';
  const demo = env.NODE_ENV !== 'production';

  let fromFile: Partial<PortcullisConfig> = {};
  if (env.PORTCULLIS_CONFIG) {
    try {
      fromFile = JSON.parse(readFileSync(env.PORTCULLIS_CONFIG, 'utf8')) as Partial<PortcullisConfig>;
    } catch (err) {
      // JSON parser messages quote the file's text, which may hold client secrets: name the position only.
      const reason = (err as NodeJS.ErrnoException).code ?? jsonSyntaxErrorWithoutInput(err);
      throw new ConfigError('PORTCULLIS_CONFIG', `cannot read JSON from ${env.PORTCULLIS_CONFIG}: ${reason}`);
    }
  }

  // The file merges deeply over the demo configuration: `{ "graphql": { "introspection": { "enabled": true } } }`
  // keeps the demo schema, while a `clients` array replaces the demo clients (README "Configuration").
  const config: PortcullisConfig = mergeConfig<PortcullisConfig>({
    issuer: env.PORTCULLIS_ISSUER || `http://localhost:${port}`,
    // The catalog is demo data: production serves GraphQL only when PORTCULLIS_CONFIG configures it.
    ...(demo ? { graphql: { typeDefs, resolvers: catalogResolvers(), corsOrigins: ['http://localhost:8080'] } } : {}),
    ...(demo ? demoFixtures() : {}),
  }, fromFile);
  if (env.PORTCULLIS_ISSUER) config.issuer = env.PORTCULLIS_ISSUER;
  if (env.REDIS_URL) config.storage = { ...config.storage, type: 'redis', url: env.REDIS_URL };
  else if (env.PORTCULLIS_STORAGE === 'memory') config.storage = { ...config.storage, type: 'memory' };
  else if (env.PORTCULLIS_STORAGE) throw new ConfigError('PORTCULLIS_STORAGE', `must be "memory" (use REDIS_URL for Redis), got ${JSON.stringify(env.PORTCULLIS_STORAGE)}`);
  if (env.PORTCULLIS_SMTP_URL || env.PORTCULLIS_MAIL_FROM) {
    config.mail = { ...config.mail, ...(env.PORTCULLIS_SMTP_URL ? { smtp: env.PORTCULLIS_SMTP_URL } : {}), ...(env.PORTCULLIS_MAIL_FROM ? { from: env.PORTCULLIS_MAIL_FROM } : {}) };
  }
  // Shared keys let several instances verify each other's tokens and cookies (README "Keys").
  if (env.PORTCULLIS_SIGNING_KEYS) config.keys = { ...config.keys, signing: env.PORTCULLIS_SIGNING_KEYS };
  if (env.PORTCULLIS_COOKIE_KEYS) config.keys = { ...config.keys, cookies: env.PORTCULLIS_COOKIE_KEYS.split(',').map((k) => k.trim()).filter(Boolean) };
  if (env.PORTCULLIS_PROXY) config.proxy = booleanVariable('PORTCULLIS_PROXY', env.PORTCULLIS_PROXY);
  if (env.PORTCULLIS_ALLOWED_HOSTS) config.allowedHosts = env.PORTCULLIS_ALLOWED_HOSTS.split(',').map((h) => h.trim()).filter(Boolean);
  return { port, host, config, demo };
}
