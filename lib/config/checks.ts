/**
 * The core's checks of a resolved configuration, run by `loadConfig` (`./load.ts`) after the option schema:
 * objects a host passes in, single entries, the issuer's path, the client-metadata policy of static clients and
 * the production guards. Each throws a {@link ConfigError} or returns the problems found.
 */
import { ACCOUNT_STORE_METHODS } from '../core/account-store.js';
import { canonicalEmail } from '../core/email-address.js';
import { ACCOUNT_CLIENT_ID } from '../accounts/account-home.js';
import type { Feature } from '../kernel/types.js';
import { STORAGE_METHODS } from '../core/storage.js';
import { LOGGER_METHODS } from '../core/logger.js';
import { ConfigError, type ConfigProblem } from '../core/errors.js';
import { isHostAndPort } from '../core/host-syntax.js';
import { meetsScryptCost, SCRYPT_COST, scryptCost } from '../core/password-hash.js';
import { registrationPolicy } from '../oidc/registration-policy.js';
import { checkClientAuthentication } from './client-auth.js';
import { cloneData } from './merge.js';
import type { ResolvedConfig } from '../../config/types.js';

/** Values shipped with the demo fixtures; seeing one in production means the demo leaked into a deployment. */
const DEMO_VALUES = new Set([
  'demo-web-secret',
  'alice-demo-password',
  'admin-demo-password',
  // The demo accounts' passwordHash (examples/demo-fixtures.ts).
  'scrypt$32768$8$1$gFiOW08Jopgu5mJt0XmhLg$S4ce0MeX_7NTsWK43hAknYCQFR7sBVU_U9YWVXoRlow',
  'scrypt$32768$8$1$oDdvqazYJvZls2IIi5Yn8g$YBNe8HuwuzO4K7TzpaDV5n68rllRU2AlFOFJR1taR0k',
  'demo-initial-access-token',
]);

function uniqueBy<T>(items: T[], key: (item: T) => string, path: string): void {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const k = key(item);
    if (seen.has(k)) throw new ConfigError(`${path}[${i}]`, `duplicate ${JSON.stringify(k)}`);
    seen.add(k);
  });
}

/**
 * Objects a host passes in (`accountStore`, `storage.instance`, `mail.mailer`, `logger`) have the methods their
 * contracts name.
 */
export function checkInstances(config: ResolvedConfig): void {
  const needMethods = (value: object | undefined, methods: readonly string[], path: string, contract: string) => {
    for (const method of methods) {
      if (value && typeof (value as Record<string, unknown>)[method] !== 'function')
        throw new ConfigError(`${path}.${method}`, `must be a function (see the ${contract} interface)`);
    }
  };
  needMethods(config.accountStore, ACCOUNT_STORE_METHODS, 'accountStore', 'AccountStore');
  needMethods(config.storage.instance, STORAGE_METHODS, 'storage.instance', 'Storage');
  needMethods(config.mail.mailer, ['send'], 'mail.mailer', 'Mailer');
  const logger = config.logger as Record<string, unknown> | undefined;
  const missing = LOGGER_METHODS.filter((m) => logger && typeof logger[m] !== 'function');
  if (missing.length) {
    throw new ConfigError(
      'logger',
      `lacks the method${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: pass a pino logger, or an ` +
        `object with pino's info, warn, error and child(bindings, options) (console is not one)`,
    );
  }
  if ((config.storage.type === 'custom') !== (config.storage.instance !== undefined)) {
    throw new ConfigError(
      'storage.instance',
      config.storage.instance ? 'is only read with storage.type "custom"' : 'is required with storage.type "custom"',
    );
  }
  if (config.storage.type === 'custom' && (config.storage.url || config.storage.client)) {
    throw new ConfigError(
      'storage.type',
      'storage.url/client given but type is "custom": set type to "redis", or drop them',
    );
  }
}

/** Seed accounts whose `passwordHash` costs less than the hashes Portcullis makes (`SCRYPT_COST`). */
function cheapPasswordHashes(config: ResolvedConfig): ConfigProblem[] {
  return config.accounts.flatMap((a, i) => {
    const cost = a.passwordHash === undefined ? undefined : scryptCost(a.passwordHash);
    if (!cost || meetsScryptCost(cost)) return [];
    const least = `N=${SCRYPT_COST.N}, r=${SCRYPT_COST.r}, p=${SCRYPT_COST.p}`;
    return [
      {
        path: `accounts[${i}].passwordHash`,
        message:
          `NODE_ENV=production needs a hash of at least scrypt ${least}: make it with npx portcullis ` +
          'hash-password',
      },
    ];
  });
}

/**
 * Every refusal of the production guards, in one list (an operator fixes them all in one restart): the core's, then
 * each enabled feature's (`insecure`, e.g. `mfa.encryptionKey`, `selfService.signup`).
 */
export function insecureProductionSettings(config: ResolvedConfig, features: readonly Feature[]): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (!config.keys.signing) {
    problems.push({
      path: 'keys.signing',
      message:
        'NODE_ENV=production needs configured signing keys: set keys.signing to a private JWKS or the path ' +
        'of one (PORTCULLIS_SIGNING_KEYS for the standalone server; `npx portcullis keys` makes one)',
    });
  }
  if (!config.keys.cookies) {
    problems.push({
      path: 'keys.cookies',
      message:
        'NODE_ENV=production needs cookie keys: set keys.cookies to one or more random secrets of at least ' +
        '32 characters (PORTCULLIS_COOKIE_KEYS for the standalone server; `npx portcullis cookie-key` ' +
        'makes one)',
    });
  }
  problems.push(...cheapPasswordHashes(config));
  const demoValue = [
    ...config.clients.map((c, i) => [`clients[${i}].client_secret`, c.client_secret] as const),
    ...config.accounts.map((a, i) => [`accounts[${i}].password`, a.password] as const),
    ...config.accounts.map((a, i) => [`accounts[${i}].passwordHash`, a.passwordHash] as const),
    ['registration.initialAccessToken', config.registration?.initialAccessToken] as const,
  ].find(([, v]) => v !== undefined && DEMO_VALUES.has(v));
  if (config.demo || demoValue) {
    problems.push({
      path: demoValue?.[0] ?? 'demo',
      message:
        'demo fixtures are not allowed with NODE_ENV=production: remove the demo clients, accounts and ' +
        'tokens and configure your own',
    });
  }
  if (!config.storage.explicitType) {
    problems.push({
      path: 'storage.type',
      message:
        'NODE_ENV=production needs an explicit storage: set storage.type to "redis" (REDIS_URL for the ' +
        'standalone server) to share state between instances, or to "memory" for a single instance whose ' +
        'state may be lost on restart (PORTCULLIS_STORAGE=memory)',
    });
  }
  if (!config.issuer.startsWith('https://')) {
    problems.push({
      path: 'issuer',
      message:
        'NODE_ENV=production needs an https issuer (PORTCULLIS_ISSUER for the standalone server); behind a ' +
        'TLS-terminating proxy also set proxy: true (PORTCULLIS_PROXY=true)',
    });
  }
  for (const feature of features) problems.push(...(feature.insecure?.(config) ?? []));
  return problems;
}

/**
 * Statically configured clients meet the same client-metadata policy as registered ones (redirect URIs, fetched
 * and displayed URIs, encryption algorithms; see `registrationPolicy`), so configuration cannot reintroduce what
 * `POST /registration` refuses. RFC 7591 §2, RFC 9700 §2.1.
 */
export function clientPolicyViolations(config: ResolvedConfig): ConfigProblem[] {
  const policy = registrationPolicy({
    production: config.production,
    allowedFetchOrigins: config.outboundFetch.allowedOrigins,
  });
  const problems: ConfigProblem[] = [];
  config.clients.forEach(({ pkce_optional: _omit, ...client }, i) => {
    const metadata = cloneData(client) as Record<string, unknown>;
    for (const key of policy.properties) {
      if (metadata[key] === undefined) continue;
      try {
        policy.validator(undefined, key, metadata[key], metadata);
      } catch (err) {
        const description = (err as { error_description?: string }).error_description ?? (err as Error).message;
        // Descriptions start with the member they are about (which may not be the member being checked).
        const member = /^([a-z_]+)\b/.exec(description)?.[1];
        const at = member && member in metadata ? member : key;
        problems.push({
          path: `clients[${i}].${at}`,
          message: `client ${JSON.stringify(client.client_id)}: ${description}`,
        });
      }
    }
  });
  return problems;
}

/**
 * An issuer with a path (`https://host/auth`) puts every route under that path; refuse the forms for which the
 * URLs a client derives (OIDC Discovery §4: issuer + `/.well-known/openid-configuration`; RFC 8414 §3.1: the
 * well-known segment inserted before the path) would not lead to the routes served, and a root issuer written with
 * a trailing `/`.
 */
export function checkIssuerPath(issuer: string): void {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    // ajv's "uri" format does not check what the WHATWG parser does (a port over 65535, a malformed host).
    throw new ConfigError(
      'issuer',
      `is not a URL Node can parse (check the host and that the port is ` +
        `1–65535): ${JSON.stringify(issuer.slice(0, 120))}`,
    );
  }
  // The URL parser resolves dot segments and percent-encodes: compare with what was written.
  const written = /^[a-z]+:\/\/[^/]*(\/.*)?$/i.exec(issuer)?.[1] ?? '';
  if (url.username || url.password) throw new ConfigError('issuer', 'must not carry user information (user:password@)');
  if (written === '') return;
  // Tokens carry the issuer exactly as written and relying parties compare it exactly (OIDC Core §3.1.3.7, Discovery
  // §4.3): a slash most of them do not expect is refused rather than dropped, which would change every `iss` silently.
  if (written === '/')
    throw new ConfigError(
      'issuer',
      `must not end with "/" (every token's iss carries it as written, and relying parties compare it ` +
        `exactly): write it as ${url.origin}`,
    );
  const fix = `write it as ${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/{2,}/g, '/') || ''}`;
  if (written.endsWith('/'))
    throw new ConfigError(
      'issuer',
      `a path issuer must not end with "/" (clients append "/.well-known/…" to it): ${fix}`,
    );
  if (written !== url.pathname)
    throw new ConfigError(
      'issuer',
      `its path ${JSON.stringify(written)} is not in normal form (dot segments or characters that need ` +
        `encoding): ${fix}`,
    );
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(written) || written.split('/').some((s) => s === '.' || s === '..')) {
    throw new ConfigError(
      'issuer',
      `its path ${JSON.stringify(written)} may only hold segments of letters, digits, ".", "_", "~" and "-"`,
    );
  }
  if (written.startsWith('/.well-known'))
    throw new ConfigError('issuer', 'its path must not start with /.well-known (reserved for metadata, RFC 8615)');
}

/**
 * The core's checks of single entries that the option schema cannot express: the storage's connection for its
 * type, unique `clients` ids and `accounts` addresses (canonical form), accepted e-mail addresses, the reserved
 * account-page client id, each client's authentication method, and `allowedHosts` as Host header values.
 * @throws {ConfigError} `ERR_CONFIG_INVALID` at the first entry that fails.
 */
export function checkEntries(config: ResolvedConfig): void {
  if (config.storage.type === 'redis' && !config.storage.url === !config.storage.client) {
    throw new ConfigError('storage', 'type "redis" needs exactly one of storage.url or storage.client');
  }
  if (config.storage.type === 'memory' && (config.storage.url || config.storage.client)) {
    throw new ConfigError('storage.type', 'storage.url/client given but type is "memory": set type to "redis"');
  }
  uniqueBy(config.clients, (c) => c.client_id, 'clients');
  config.accounts.forEach((a, i) => {
    if (a.passwordHash !== undefined && !scryptCost(a.passwordHash))
      throw new ConfigError(
        `accounts[${i}].passwordHash`,
        "has a cost Portcullis does not check: N must be a power of two, p at most 16 and scrypt's memory " +
          '(128·N·r bytes) at most 128 MiB',
      );
    if (canonicalEmail(a.email) === undefined)
      throw new ConfigError(
        `accounts[${i}].email`,
        'is not an accepted e-mail address (see parseEmailAddress: a host name of two or more labels, a ' +
          'valid IDN, no address literal)',
      );
  });
  uniqueBy(config.accounts, (a) => canonicalEmail(a.email)!, 'accounts');
  config.clients.forEach((client, i) => {
    if (client.client_id === ACCOUNT_CLIENT_ID) {
      throw new ConfigError(
        `clients[${i}].client_id`,
        `"${ACCOUNT_CLIENT_ID}" is reserved for the account page's own client (oidc-provider: client_id must ` +
          `be unique amongst statically configured clients): choose another client_id`,
      );
    }
    checkClientAuthentication(client, i);
  });
  config.allowedHosts.forEach((host, i) => {
    if (!isHostAndPort(host))
      throw new ConfigError(
        `allowedHosts[${i}]`,
        `must be a host name or address with an optional port, as a Host header carries it (e.g. ` +
          `"id.example.com" or "id.example.com:8443"; no scheme, path or wildcard), ` +
          `got ${JSON.stringify(host.slice(0, 80))}`,
      );
  });
}
