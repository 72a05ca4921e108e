import { readFileSync } from 'node:fs';
import { ConfigError, type PortcullisConfig } from '../../lib/index.js';
import { settingsFromEnvironment } from '../../lib/cli/environment.js';
import { catalogResolvers, typeDefs } from '../catalog/schema.js';
import { demoFixtures } from '../demo-fixtures.js';
import { jsonSyntaxErrorWithoutInput } from '../../lib/core/errors.js';

/** Settings of the standalone server, read from the environment. */
export interface StandaloneSettings {
  port: number;
  host: string;
  config: PortcullisConfig;
  /** Whether the demo fixtures are loaded (NODE_ENV is not `production`). */
  demo: boolean;
}

/**
 * Reads `PORT` (default 3000), `HOST` (default `localhost`, or a loopback IP issuer's address), `PORTCULLIS_ISSUER` (default
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
  // keeps the demo schema, while a `clients` array replaces the demo clients (docs/guides/configuration.md).
  // The catalog is demo data: production serves GraphQL only when PORTCULLIS_CONFIG configures it.
  const base: Partial<PortcullisConfig> = demo
    ? {
        graphql: { typeDefs, resolvers: catalogResolvers(), corsOrigins: ['http://localhost:8080'] },
        ...demoFixtures(),
      }
    : {};
  return { ...settingsFromEnvironment(env, { base, file: fromFile }), demo };
}
