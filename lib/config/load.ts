import { Type, type TProperties } from '@sinclair/typebox';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ConfigSchema, OPTION_KEYWORDS, type ValidatedOptions } from '../../config/options.js';
import { ACCOUNT_STORE_METHODS } from '../core/account-store.js';
import { canonicalEmail } from '../core/email-address.js';
import { ACCOUNT_CLIENT_ID } from '../accounts/account-home.js';
import { defaultFeatures } from '../features/index.js';
import { passkeysDefaults } from '../features/passkeys/checks.js';
import type { Feature } from '../kernel/types.js';
import { STORAGE_METHODS } from '../core/storage.js';
import { LOGGER_METHODS } from '../core/logger.js';
import { ConfigError, type ConfigProblem } from '../core/errors.js';
import { isHostAndPort } from '../core/host-syntax.js';
import { registrationPolicy } from '../oidc/registration-policy.js';
import { checkSigningKeys, readSigningKeys } from '../oidc/keys.js';
import { checkClientAuthentication } from './client-auth.js';
import { cloneData, isPlainObject } from './merge.js';
import { schemaProblems } from './schema-errors.js';
import type { PortcullisConfig, ResolvedConfig } from '../../config/types.js';

// `useDefaults` fills every literal default of the option schema into the (cloned) input while validating; sections
// are created empty first, so defaults apply at every depth and a partial section keeps its other members.
// `allErrors` reports every problem in one run; `verbose` gives schemaProblems the alternatives of an anyOf.
// `code.optimize: false` skips ajv's passes over the generated code: they made the option schema's compile take
// ~210 ms of CPU against ~135 (Node 22), for a validator that runs once per loadConfig (same checks, same errors).
const ajv = new Ajv({
  allErrors: true,
  verbose: true,
  strict: true,
  allowUnionTypes: true,
  useDefaults: true,
  code: { optimize: false },
});
ajv.addVocabulary([...OPTION_KEYWORDS]);
addFormats.default(ajv);
/**
 * The option schema's validator, compiled on the first loadConfig rather than on import (the CLI's commands and a
 * process that only imports Portcullis never pay for it).
 */
let coreValidate: ValidateFunction<ValidatedOptions> | undefined;
/** The option schema with the options of a host's own features (`options` of the contract), per feature list. */
const validators = new WeakMap<readonly Feature[], ValidateFunction<ValidatedOptions>>();

/**
 * The validator of the option schema plus what the features' `options` add to it. The server's own features' slices
 * are in the schema already (config/options.ts composes them); any other key is added, once: a key the core or
 * another feature declares is refused.
 * @throws {ConfigError} `ERR_CONFIG_INVALID` at `features` for an option key declared twice.
 */
function validatorFor(features: readonly Feature[]): ValidateFunction<ValidatedOptions> {
  const cached = validators.get(features);
  if (cached) return cached;
  const added: TProperties = {};
  const owners = new Map<string, string>();
  for (const { id, options = {} } of features) {
    for (const [key, schema] of Object.entries(options)) {
      // A slice of the server's own features (in the schema already), or a feature listed twice (orderFeatures says
      // so).
      if (ConfigSchema.properties[key as keyof typeof ConfigSchema.properties] === schema || added[key] === schema)
        continue;
      if (key in ConfigSchema.properties || owners.has(key)) {
        const owner = owners.has(key) ? `feature ${JSON.stringify(owners.get(key))}` : 'the server';
        throw new ConfigError(
          'features',
          `feature ${JSON.stringify(id)} declares the option ${JSON.stringify(key)}, which ${owner} declares already`,
        );
      }
      added[key] = schema;
      owners.set(key, id);
    }
  }
  const compiled = owners.size
    ? ajv.compile<ValidatedOptions>(
        Type.Object({ ...ConfigSchema.properties, ...added }, { additionalProperties: false }),
      )
    : (coreValidate ??= ajv.compile<ValidatedOptions>(ConfigSchema));
  validators.set(features, compiled);
  return compiled;
}

/** Values shipped with the demo fixtures; seeing one in production means the demo leaked into a deployment. */
const DEMO_VALUES = new Set([
  'demo-web-secret',
  'alice-demo-password',
  'admin-demo-password',
  'demo-initial-access-token',
]);

function deepFreeze<T>(value: T): T {
  if (Array.isArray(value) || isPlainObject(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}

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
function checkInstances(config: ResolvedConfig): void {
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

/**
 * Every refusal of the production guards, in one list (an operator fixes them all in one restart): the core's, then
 * each enabled feature's (`insecure`, e.g. `mfa.encryptionKey`, `selfService.signup`).
 */
function insecureProductionSettings(config: ResolvedConfig, features: readonly Feature[]): ConfigProblem[] {
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
  const demoValue = [
    ...config.clients.map((c, i) => [`clients[${i}].client_secret`, c.client_secret] as const),
    ...config.accounts.map((a, i) => [`accounts[${i}].password`, a.password] as const),
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
function clientPolicyViolations(config: ResolvedConfig): ConfigProblem[] {
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
function checkIssuerPath(issuer: string): void {
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
 * Validates `input` against the option schema (`config/options.ts`), merging it deeply over the defaults, and
 * returns a frozen copy; the caller's object is never mutated. Objects merge member by member at every depth;
 * arrays and maps (`clients`, `scopes`, `graphql.limits.fieldCosts`) replace the default as a whole.
 *
 * Then the checks: the core's, and those of each feature the configuration turns on (its `check`, and with
 * `NODE_ENV=production` its `insecure`).
 *
 * @param env `NODE_ENV` (production guards, `selfService.signup` default) and `PORTCULLIS_DEV_MAILBOX`
 *   (`mail.mailbox` default).
 * @param features The server's features (`createServer`'s list): their `options` are validated with the rest, and
 *   the enabled ones' checks run. Default: `defaultFeatures`.
 * @throws {ConfigError} `ERR_CONFIG_INVALID` naming the dotted option path and what was expected (every problem
 *   the option schema finds in one error: `problems`, `path` of the first), or `ERR_CONFIG_INSECURE` when
 *   `NODE_ENV=production` meets an insecure setting; `ERR_CONFIG_INVALID` at `features` when two declare one option.
 */
export function loadConfig(
  input: PortcullisConfig,
  env: NodeJS.ProcessEnv = process.env,
  features: readonly Feature[] = defaultFeatures,
): ResolvedConfig {
  if (!isPlainObject(input)) throw new ConfigError('(root)', 'configuration must be an object');
  const production = env.NODE_ENV === 'production';
  const candidate: Record<string, unknown> = cloneData(input);
  // What defaults would hide, or defaults that come from the environment: read before ajv fills the rest in.
  const explicitType = isPlainObject(candidate.storage) && candidate.storage.type !== undefined;
  if (env.PORTCULLIS_DEV_MAILBOX && (candidate.mail === undefined || isPlainObject(candidate.mail))) {
    candidate.mail = { mailbox: env.PORTCULLIS_DEV_MAILBOX, ...candidate.mail };
  }
  const validate = validatorFor(features);
  if (!validate(candidate)) throw ConfigError.of(schemaProblems(validate.errors ?? []), 'ERR_CONFIG_INVALID');
  checkIssuerPath(candidate.issuer);

  // Defaults derived from other options or the environment (`derived` in the option schema).
  const { graphql, keys, registration, selfService } = candidate;
  const config: ResolvedConfig = {
    ...candidate,
    keys: {
      ...keys,
      signing:
        typeof keys.signing === 'string'
          ? readSigningKeys(keys.signing)
          : keys.signing && checkSigningKeys(keys.signing),
    },
    storage: { ...candidate.storage, explicitType },
    registration: { ...registration, enabled: registration.enabled ?? Boolean(registration.initialAccessToken) },
    selfService: { ...selfService, signup: selfService.signup ?? !production },
    passkeys: passkeysDefaults(candidate),
    graphql: graphql && {
      ...graphql,
      resource: graphql.resource ?? `${new URL(candidate.issuer).origin}${graphql.path}`,
    },
    production,
  };

  checkInstances(config);
  // Each feature the configuration turns on checks its own options (passkeys, mfa, graphql, a host's own).
  const enabled = features.filter((feature) => feature.enabled(config));
  for (const feature of enabled) feature.check?.(config);
  if (config.storage.type === 'redis' && !config.storage.url === !config.storage.client) {
    throw new ConfigError('storage', 'type "redis" needs exactly one of storage.url or storage.client');
  }
  if (config.storage.type === 'memory' && (config.storage.url || config.storage.client)) {
    throw new ConfigError('storage.type', 'storage.url/client given but type is "memory": set type to "redis"');
  }
  uniqueBy(config.clients, (c) => c.client_id, 'clients');
  config.accounts.forEach((a, i) => {
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
  const insecure = config.production ? insecureProductionSettings(config, enabled) : [];
  const problems = [...insecure, ...clientPolicyViolations(config)];
  if (problems.length) throw ConfigError.of(problems, insecure.length ? 'ERR_CONFIG_INSECURE' : 'ERR_CONFIG_INVALID');
  return deepFreeze(config);
}
