import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { ConfigSchema, OPTION_KEYWORDS, type ValidatedOptions } from '../../config/options.js';
import { ACCOUNT_STORE_METHODS, PASSKEY_STORE_METHODS, SECOND_FACTOR_METHODS } from '../core/account-store.js';
import { canonicalEmail } from '../core/email-address.js';
import { ACCOUNT_CLIENT_ID } from '../accounts/account-home.js';
import { relyingPartyFor } from '../features/passkeys/relying-party.js';
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
const ajv = new Ajv({ allErrors: true, verbose: true, strict: true, allowUnionTypes: true, useDefaults: true });
ajv.addVocabulary([...OPTION_KEYWORDS]);
addFormats.default(ajv);
const validate = ajv.compile<ValidatedOptions>(ConfigSchema);

/** Values shipped with the demo fixtures; seeing one in production means the demo leaked into a deployment. */
const DEMO_VALUES = new Set(['demo-web-secret', 'alice-demo-password', 'admin-demo-password', 'demo-initial-access-token']);

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

/** Objects a host passes in (`accountStore`, `storage.instance`, `mail.mailer`, `logger`, GraphQL rules) have the methods their contracts name. */
function checkInstances(config: ResolvedConfig): void {
  const needMethods = (value: object | undefined, methods: readonly string[], path: string, contract: string) => {
    for (const method of methods) {
      if (value && typeof (value as Record<string, unknown>)[method] !== 'function') throw new ConfigError(`${path}.${method}`, `must be a function (see the ${contract} interface)`);
    }
  };
  needMethods(config.accountStore, ACCOUNT_STORE_METHODS, 'accountStore', 'AccountStore');
  needMethods(config.storage.instance, STORAGE_METHODS, 'storage.instance', 'Storage');
  needMethods(config.mail.mailer, ['send'], 'mail.mailer', 'Mailer');
  const logger = config.logger as Record<string, unknown> | undefined;
  const missing = LOGGER_METHODS.filter((m) => logger && typeof logger[m] !== 'function');
  if (missing.length) {
    throw new ConfigError('logger', `lacks the method${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: pass a pino logger, or an object with pino's info, warn, error and child(bindings, options) (console is not one)`);
  }
  if ((config.storage.type === 'custom') !== (config.storage.instance !== undefined)) {
    throw new ConfigError('storage.instance', config.storage.instance ? 'is only read with storage.type "custom"' : 'is required with storage.type "custom"');
  }
  if (config.storage.type === 'custom' && (config.storage.url || config.storage.client)) {
    throw new ConfigError('storage.type', 'storage.url/client given but type is "custom": set type to "redis", or drop them');
  }
  config.graphql?.validationRules.forEach((rule, i) => {
    if (typeof rule !== 'function') throw new ConfigError(`graphql.validationRules[${i}]`, 'must be a graphql-js ValidationRule (a function of the validation context)');
  });
}

/** Every refusal of the production guards, in one list (an operator fixes them all in one restart). */
function insecureProductionSettings(config: ResolvedConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (!config.keys.signing) {
    problems.push({ path: 'keys.signing', message: 'NODE_ENV=production needs configured signing keys: set keys.signing to a private JWKS or the path of one (PORTCULLIS_SIGNING_KEYS for the standalone server; `npx portcullis keys` makes one)' });
  }
  if (!config.keys.cookies) {
    problems.push({ path: 'keys.cookies', message: 'NODE_ENV=production needs cookie keys: set keys.cookies to one or more random secrets of at least 32 characters (PORTCULLIS_COOKIE_KEYS for the standalone server; `npx portcullis cookie-key` makes one)' });
  }
  const demoValue = [
    ...config.clients.map((c, i) => [`clients[${i}].client_secret`, c.client_secret] as const),
    ...config.accounts.map((a, i) => [`accounts[${i}].password`, a.password] as const),
    ['registration.initialAccessToken', config.registration?.initialAccessToken] as const,
  ].find(([, v]) => v !== undefined && DEMO_VALUES.has(v));
  if (config.demo || demoValue) {
    problems.push({ path: demoValue?.[0] ?? 'demo', message: 'demo fixtures are not allowed with NODE_ENV=production: remove the demo clients, accounts and tokens and configure your own' });
  }
  if (!config.storage.explicitType) {
    problems.push({ path: 'storage.type', message: 'NODE_ENV=production needs an explicit storage: set storage.type to "redis" (REDIS_URL for the standalone server) to share state between instances, or to "memory" for a single instance whose state may be lost on restart (PORTCULLIS_STORAGE=memory)' });
  }
  if (!config.issuer.startsWith('https://')) {
    problems.push({ path: 'issuer', message: 'NODE_ENV=production needs an https issuer (PORTCULLIS_ISSUER for the standalone server); behind a TLS-terminating proxy also set proxy: true (PORTCULLIS_PROXY=true)' });
  }
  if (config.mfa.enabled && !config.mfa.encryptionKey) {
    // Derived from keys.cookies[0] otherwise: rotating the cookie keys would make every enrolled TOTP unusable.
    problems.push({ path: 'mfa.encryptionKey', message: 'NODE_ENV=production with mfa.enabled needs mfa.encryptionKey, the secret that encrypts TOTP secrets at rest: set it to a random secret of at least 32 characters, not one of the cookie keys (PORTCULLIS_MFA_KEY for the standalone server; `npx portcullis cookie-key` makes one), or set mfa.enabled: false' });
  }
  if (config.selfService.signup && !config.mail.smtp && !config.mail.mailer) {
    problems.push({ path: 'selfService.signup', message: 'sign-up needs mail to verify addresses: set mail.smtp (PORTCULLIS_SMTP_URL for the standalone server) or mail.mailer, or turn selfService.signup off' });
  }
  return problems;
}

/**
 * Statically configured clients meet the same client-metadata policy as registered ones (redirect URIs, fetched
 * and displayed URIs, encryption algorithms; see `registrationPolicy`), so configuration cannot reintroduce what
 * `POST /registration` refuses. RFC 7591 §2, RFC 9700 §2.1.
 */
function clientPolicyViolations(config: ResolvedConfig): ConfigProblem[] {
  const policy = registrationPolicy({ production: config.production, allowedFetchOrigins: config.outboundFetch.allowedOrigins });
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
        problems.push({ path: `clients[${i}].${at}`, message: `client ${JSON.stringify(client.client_id)}: ${description}` });
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
    throw new ConfigError('issuer', `is not a URL Node can parse (check the host and that the port is 1–65535): ${JSON.stringify(issuer.slice(0, 120))}`);
  }
  // The URL parser resolves dot segments and percent-encodes: compare with what was written.
  const written = /^[a-z]+:\/\/[^/]*(\/.*)?$/i.exec(issuer)?.[1] ?? '';
  if (url.username || url.password) throw new ConfigError('issuer', 'must not carry user information (user:password@)');
  if (written === '') return;
  // Tokens carry the issuer exactly as written and relying parties compare it exactly (OIDC Core §3.1.3.7, Discovery
  // §4.3): a slash most of them do not expect is refused rather than dropped, which would change every `iss` silently.
  if (written === '/') throw new ConfigError('issuer', `must not end with "/" (every token's iss carries it as written, and relying parties compare it exactly): write it as ${url.origin}`);
  const fix = `write it as ${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/{2,}/g, '/') || ''}`;
  if (written.endsWith('/')) throw new ConfigError('issuer', `a path issuer must not end with "/" (clients append "/.well-known/…" to it): ${fix}`);
  if (written !== url.pathname) throw new ConfigError('issuer', `its path ${JSON.stringify(written)} is not in normal form (dot segments or characters that need encoding): ${fix}`);
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(written) || written.split('/').some((s) => s === '.' || s === '..')) {
    throw new ConfigError('issuer', `its path ${JSON.stringify(written)} may only hold segments of letters, digits, ".", "_", "~" and "-"`);
  }
  if (written.startsWith('/.well-known')) throw new ConfigError('issuer', 'its path must not start with /.well-known (reserved for metadata, RFC 8615)');
}

/**
 * Validates `input` against the option schema (`config/options.ts`), merging it deeply over the defaults, and
 * returns a frozen copy; the caller's object is never mutated. Objects merge member by member at every depth;
 * arrays and maps (`clients`, `scopes`, `graphql.limits.fieldCosts`) replace the default as a whole.
 *
 * @param env `NODE_ENV` (production guards, `selfService.signup` default) and `PORTCULLIS_DEV_MAILBOX`
 *   (`mail.mailbox` default).
 * @throws {ConfigError} `ERR_CONFIG_INVALID` naming the dotted option path and what was expected (every problem
 *   the option schema finds in one error: `problems`, `path` of the first), or `ERR_CONFIG_INSECURE` when
 *   `NODE_ENV=production` meets an insecure setting.
 */
export function loadConfig(input: PortcullisConfig, env: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  if (!isPlainObject(input)) throw new ConfigError('(root)', 'configuration must be an object');
  const production = env.NODE_ENV === 'production';
  const candidate: Record<string, unknown> = cloneData(input);
  // What defaults would hide, or defaults that come from the environment: read before ajv fills the rest in.
  const explicitType = isPlainObject(candidate.storage) && candidate.storage.type !== undefined;
  if (env.PORTCULLIS_DEV_MAILBOX && (candidate.mail === undefined || isPlainObject(candidate.mail))) {
    candidate.mail = { mailbox: env.PORTCULLIS_DEV_MAILBOX, ...candidate.mail };
  }
  if (!validate(candidate)) throw ConfigError.of(schemaProblems(validate.errors ?? []), 'ERR_CONFIG_INVALID');
  checkIssuerPath(candidate.issuer);

  // Defaults derived from other options or the environment (`derived` in the option schema).
  const { graphql, keys, registration, selfService, passkeys } = candidate;
  const store = candidate.accountStore as Record<string, unknown> | undefined;
  const passkeyMethodMissing = PASSKEY_STORE_METHODS.find((m) => store && typeof store[m] !== 'function');
  const domainIssuer = relyingPartyFor(candidate.issuer, passkeys.rpName).usable;
  const config: ResolvedConfig = {
    ...candidate,
    keys: { ...keys, signing: typeof keys.signing === 'string' ? readSigningKeys(keys.signing) : keys.signing && checkSigningKeys(keys.signing) },
    storage: { ...candidate.storage, explicitType },
    registration: { ...registration, enabled: registration.enabled ?? Boolean(registration.initialAccessToken) },
    selfService: { ...selfService, signup: selfService.signup ?? !production },
    passkeys: { ...passkeys, enabled: passkeys.enabled ?? (domainIssuer && !passkeyMethodMissing), secondFactor: passkeys.secondFactor ?? candidate.mfa.enabled },
    graphql: graphql && { ...graphql, resource: graphql.resource ?? `${new URL(candidate.issuer).origin}${graphql.path}` },
    production,
  };

  checkInstances(config);
  for (const method of SECOND_FACTOR_METHODS) {
    if (config.accountStore && config.mfa.enabled && typeof config.accountStore[method] !== 'function') {
      throw new ConfigError(`accountStore.${method}`, 'must be a function when mfa.enabled is on (see the AccountStore interface), or set mfa.enabled to false');
    }
  }
  if (config.passkeys.enabled && passkeyMethodMissing) {
    throw new ConfigError(`accountStore.${passkeyMethodMissing}`, 'must be a function when passkeys.enabled is on (see the AccountStore interface), or set passkeys.enabled to false');
  }
  if (config.passkeys.enabled && config.passkeys.secondFactor && !config.mfa.enabled) {
    throw new ConfigError('passkeys.secondFactor', 'the passkey as a second factor is a step of mfa: set mfa.enabled to true, or passkeys.secondFactor to false');
  }
  if (config.passkeys.enabled && !domainIssuer) {
    throw new ConfigError('passkeys.enabled', `passkeys need an issuer whose host is a domain name (WebAuthn relying-party ID), not ${new URL(config.issuer).hostname}: use e.g. http://localhost:PORT in development, or set passkeys.enabled to false`);
  }
  if (config.storage.type === 'redis' && !config.storage.url === !config.storage.client) {
    throw new ConfigError('storage', 'type "redis" needs exactly one of storage.url or storage.client');
  }
  if (config.storage.type === 'memory' && (config.storage.url || config.storage.client)) {
    throw new ConfigError('storage.type', 'storage.url/client given but type is "memory": set type to "redis"');
  }
  uniqueBy(config.clients, (c) => c.client_id, 'clients');
  config.accounts.forEach((a, i) => {
    if (canonicalEmail(a.email) === undefined) throw new ConfigError(`accounts[${i}].email`, 'is not an accepted e-mail address (see parseEmailAddress: a host name of two or more labels, a valid IDN, no address literal)');
  });
  uniqueBy(config.accounts, (a) => canonicalEmail(a.email)!, 'accounts');
  config.clients.forEach((client, i) => {
    if (client.client_id === ACCOUNT_CLIENT_ID) {
      throw new ConfigError(`clients[${i}].client_id`, `"${ACCOUNT_CLIENT_ID}" is reserved for the account page's own client (oidc-provider: client_id must be unique amongst statically configured clients): choose another client_id`);
    }
    checkClientAuthentication(client, i);
  });
  config.allowedHosts.forEach((host, i) => {
    if (!isHostAndPort(host)) throw new ConfigError(`allowedHosts[${i}]`, `must be a host name or address with an optional port, as a Host header carries it (e.g. "id.example.com" or "id.example.com:8443"; no scheme, path or wildcard), got ${JSON.stringify(host.slice(0, 80))}`);
  });
  const insecure = config.production ? insecureProductionSettings(config) : [];
  const problems = [...insecure, ...clientPolicyViolations(config)];
  if (problems.length) throw ConfigError.of(problems, insecure.length ? 'ERR_CONFIG_INSECURE' : 'ERR_CONFIG_INVALID');
  return deepFreeze(config);
}
