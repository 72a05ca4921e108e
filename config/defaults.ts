/**
 * The one home of every Portcullis option: its default, unit, security effect and the standard it follows.
 * `DEFAULTS` is merged under the caller's configuration; `OPTION_DOCS` feeds the README's configuration table
 * (`npm run docs:config`).
 */

/** Standard OpenID Connect scopes (Core §5.4) and their consent-page wording. */
export const STANDARD_SCOPES: Readonly<Record<string, string>> = Object.freeze({
  openid: 'Sign you in and know who you are (your account identifier)',
  profile: 'Read your basic profile: name, birthdate, picture, locale and similar details',
  email: 'Read your e-mail address and whether it is verified',
  address: 'Read your postal address',
  phone: 'Read your phone number and whether it is verified',
  offline_access: 'Keep access while you are not using the application (refresh tokens)',
});

/**
 * Claims released per scope (OpenID Connect Core §5.4). `sub` is listed under every scope so that a narrowed
 * userinfo response never drops it. `auth_time`, `amr` and `acr` (Core §2) say how and when the user last
 * authenticated; they exist only in ID tokens.
 */
export const SCOPE_CLAIMS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  openid: ['sub', 'auth_time', 'amr', 'acr'],
  profile: ['sub', 'name', 'given_name', 'family_name', 'middle_name', 'nickname', 'preferred_username',
    'profile', 'picture', 'website', 'gender', 'birthdate', 'zoneinfo', 'locale', 'updated_at'],
  email: ['sub', 'email', 'email_verified'],
  address: ['sub', 'address'],
  phone: ['sub', 'phone_number', 'phone_number_verified'],
});

export const DEFAULTS = Object.freeze({
  clients: [],
  accounts: [],
  scopes: {},
  ttl: Object.freeze({
    authorizationCode: 60,
    accessToken: 3600,
    idToken: 3600,
    refreshToken: 14 * 24 * 3600,
    interaction: 3600,
    session: 14 * 24 * 3600,
    grant: 14 * 24 * 3600,
  }),
  keys: Object.freeze({}),
  registration: Object.freeze({}),
  storage: Object.freeze({ type: 'memory', maxEntries: 0, keyPrefix: 'portcullis:' }),
  proxy: false,
  allowedHosts: [],
  demo: false,
  openid: true,
  webMessageResponseMode: false,
  graphqlPath: '/graphql',
  selfService: Object.freeze({ requireVerifiedEmail: true, passwordMinLength: 12, verificationTtl: 24 * 3600, resetTtl: 3600 }),
  accountLimits: Object.freeze({
    loginPerAccount: Object.freeze({ points: 10, durationSeconds: 900 }),
    loginPerIp: Object.freeze({ points: 100, durationSeconds: 900 }),
    mailPerAddress: Object.freeze({ points: 5, durationSeconds: 3600 }),
    mailPerIp: Object.freeze({ points: 30, durationSeconds: 3600 }),
  }),
  outboundFetch: Object.freeze({ allowedOrigins: [], timeoutMs: 2500, maxResponseBytes: 512 * 1024 }),
  rateLimits: Object.freeze({
    clientAuthFailures: Object.freeze({ points: 30, durationSeconds: 60 }),
    registrations: Object.freeze({ points: 100, durationSeconds: 60 }),
  }),
  graphqlLimits: Object.freeze({
    maxQueryBytes: 16384,
    maxTokens: 1000,
    maxDepth: 6,
    maxAliases: 15,
    maxRootFields: 15,
    maxUniqueFields: 50,
    maxDirectives: 50,
    maxRecursiveSelections: 1000,
    maxCost: 5000,
    defaultFieldCost: 1,
    fieldCosts: Object.freeze({}) as Readonly<Record<string, number>>,
    defaultListSize: 10,
  }),
  graphqlRateLimit: Object.freeze({ points: 600, durationSeconds: 60 }),
});

/** One documented option. */
export interface OptionDoc {
  path: string;
  default: string;
  summary: string;
  security?: string;
  see?: string;
}

export const OPTION_DOCS: readonly OptionDoc[] = Object.freeze([
  { path: 'issuer', default: '(required)', summary: 'Issuer identifier; absolute http(s) URL without query or fragment. Endpoints hang off it.', see: 'OIDC Discovery §3, RFC 8414 §2' },
  { path: 'clients', default: '[]', summary: 'Statically registered clients (client metadata, `redirect_uris` exact-match).', security: 'Each client is validated at start-up; an invalid one stops the server.', see: 'RFC 7591 §2' },
  { path: 'clients[].pkce_optional', default: 'false', summary: 'Lets a confidential client skip PKCE when it cannot send `code_verifier`.', security: 'Weakens protection against authorization code injection; public clients always need PKCE.', see: 'RFC 7636, RFC 9700 §2.1.1' },
  { path: 'accounts', default: '[]', summary: 'Seed accounts of the in-memory account store; passwords are hashed with scrypt at start-up.' },
  { path: 'accountStore', default: 'in-memory store', summary: 'Host-provided account store implementing `AccountStore`.' },
  { path: 'scopes', default: '{}', summary: 'Extra scopes: `{ name: { description, requiresRole? } }`. Unknown scopes are ignored.', security: '`requiresRole` keeps a scope out of consent and tokens for accounts without the role.', see: 'RFC 6749 §3.3' },
  { path: 'ttl.authorizationCode', default: '60', summary: 'Authorization code lifetime, seconds.', see: 'RFC 6749 §4.1.2' },
  { path: 'ttl.accessToken', default: '3600', summary: 'Access token lifetime, seconds (`expires_in`).', see: 'RFC 6749 §5.1' },
  { path: 'ttl.idToken', default: '3600', summary: 'ID token lifetime, seconds.', see: 'OIDC Core §2' },
  { path: 'ttl.refreshToken', default: '1209600', summary: 'Refresh token lifetime, seconds (14 days); rotated on every use.', see: 'RFC 9700 §4.14' },
  { path: 'ttl.interaction', default: '3600', summary: 'Login/consent interaction lifetime, seconds.' },
  { path: 'ttl.session', default: '1209600', summary: 'Browser session lifetime at the provider, seconds.' },
  { path: 'ttl.grant', default: '1209600', summary: 'Grant (consent record of one session) lifetime, seconds.' },
  { path: 'keys.signing', default: 'ephemeral RS256+ES256+EdDSA (development only)', summary: 'Private JWKS (object, or path of a JSON file) used to sign ID tokens; the first key of each algorithm signs, later ones still verify (rotation).', security: 'Required with NODE_ENV=production. Keep the file secret; `npx portcullis keys` generates one.', see: 'RFC 7517' },
  { path: 'keys.cookies', default: 'random (development only)', summary: 'Secrets for signed cookies, newest first.', security: 'Required with NODE_ENV=production; share them between instances.' },
  { path: 'registration.initialAccessToken', default: '(unset: registration off)', summary: 'Bearer token required at `POST /registration`.', security: 'Without it nobody can register clients.', see: 'RFC 7591 §3' },
  { path: 'registration.enabled', default: 'true if initialAccessToken is set', summary: 'Turns on `POST /registration` for tokens minted with `server.mintInitialAccessToken()`.', security: 'Registration always needs an initial access token.', see: 'RFC 7591 §3' },
  { path: 'registration.allowRemoteLogos', default: 'false', summary: 'Show a registered client\'s https `logo_uri` on the consent page (loaded by the browser, never by the server).', security: 'Lets a client make users\' browsers contact its logo host; the CSP allows that one origin only.', see: 'RFC 7591 §2' },
  { path: 'outboundFetch.allowedOrigins', default: '[]', summary: 'Origins the server may fetch despite the https-only and public-address rules (e.g. an internal JWKS host).', security: 'Each entry re-opens server-side requests to that origin.', see: 'SPEC rule 8' },
  { path: 'outboundFetch.timeoutMs', default: '2500', summary: 'Time-out of one outbound request (`jwks_uri`, `sector_identifier_uri`), milliseconds.' },
  { path: 'outboundFetch.maxResponseBytes', default: '524288', summary: 'Largest outbound response body accepted, bytes.' },
  { path: 'rateLimits.clientAuthFailures', default: '{ points: 30, durationSeconds: 60 }', summary: 'Failed client authentications per IP at the token, introspection and revocation endpoints; then 429 with `Retry-After`.', see: 'RFC 6749 §5.2' },
  { path: 'rateLimits.registrations', default: '{ points: 100, durationSeconds: 60 }', summary: 'Registration attempts per IP at `POST /registration`; then 429 with `Retry-After`.', see: 'RFC 7591' },
  { path: 'graphql.path', default: '/graphql', summary: 'Path of the GraphQL endpoint, e.g. `/api/graphql` or `/api/v1/graphql`.' },
  { path: 'graphql.typeDefs', default: '(none: GraphQL off)', summary: 'The host schema in SDL.' },
  { path: 'graphql.resolvers', default: '{}', summary: 'Resolvers of the host schema; `context.auth` holds `{ subject, clientId, scopes }` or `null`.' },
  { path: 'graphql.introspection.enabled', default: 'false', summary: 'Allow `__schema`/`__type` queries (the full and the legacy introspection query work when on).', security: 'Off: the schema stays private; refused on the parsed document, however written, in every transport.', see: 'GraphQL spec §4' },
  { path: 'graphql.introspection.requiredScope', default: '(unset)', summary: 'With introspection on, only tokens carrying this scope may introspect.' },
  { path: 'graphql.transports.get', default: 'false', summary: 'Accept `GET ?query=` (queries only; mutations get 405).', security: 'Query text lands in logs and caches; exempt from Apollo CSRF prevention (a GET never mutates).', see: 'GraphQL over HTTP' },
  { path: 'graphql.transports.form', default: 'false', summary: 'Accept `application/x-www-form-urlencoded` POSTs carrying `csrf_token` from `GET <path>/csrf-token`.', security: 'A form needs no CORS preflight: the CSRF token (signed double-submit cookie) protects it instead.', see: 'OWASP CSRF Cheat Sheet' },
  { path: 'graphql.corsOrigins', default: '[]', summary: 'Origins allowed to call the endpoint from browsers (CORS); the demo allows `http://localhost:8080`.', security: 'Each origin listed can send credentialed requests from its pages.' },
  { path: 'graphql.maxBatchSize', default: '0 (batching off)', summary: 'Operations allowed in one JSON-array request; each runs through every limit and the rate limit.', security: 'Batches multiply work per request.' },
  { path: 'graphql.trustedDocuments', default: '(unset: any document)', summary: 'Allow-list of exact query texts; others get 400 `UNTRUSTED_DOCUMENT`. Automatic persisted queries are always off.' },
  { path: 'graphql.limits.maxQueryBytes', default: '16384', summary: 'Query text size in bytes, checked before parsing (413 `QUERY_TOO_LARGE`).' },
  { path: 'graphql.limits.maxTokens', default: '1000', summary: 'Lexer tokens, enforced while parsing (400 `MAX_TOKENS_EXCEEDED`).' },
  { path: 'graphql.limits.maxDepth', default: '6', summary: 'Field nesting depth, fragments followed (400 `MAX_DEPTH_EXCEEDED`).' },
  { path: 'graphql.limits.maxAliases', default: '15', summary: 'Aliases per document, `__typename` aliases included (400 `MAX_ALIASES_EXCEEDED`).' },
  { path: 'graphql.limits.maxRootFields', default: '15', summary: 'Root fields per operation (400 `MAX_ROOT_FIELDS_EXCEEDED`).' },
  { path: 'graphql.limits.maxUniqueFields', default: '50', summary: 'Distinct `Type.field` coordinates per document (400 `MAX_UNIQUE_FIELDS_EXCEEDED`).' },
  { path: 'graphql.limits.maxDirectives', default: '50', summary: 'Directive uses per document (400 `MAX_DIRECTIVES_EXCEEDED`).' },
  { path: 'graphql.limits.maxRecursiveSelections', default: '1000', summary: 'Selections after expanding fragments: the fragment-bomb guard (400 `MAX_RECURSIVE_SELECTIONS_EXCEEDED`).' },
  { path: 'graphql.limits.maxCost', default: '5000', summary: 'Operation cost: field costs times list sizes, with the request variables (400 `MAX_COST_EXCEEDED`).' },
  { path: 'graphql.limits.defaultFieldCost', default: '1', summary: 'Cost of a field without a `fieldCosts` entry (`__typename` costs 0).' },
  { path: 'graphql.limits.fieldCosts', default: '{}', summary: 'Per-field costs by schema coordinate, e.g. `{ "Query.products": 5 }`.' },
  { path: 'graphql.limits.defaultListSize', default: '10', summary: 'Assumed length of a list field without a `first`/`last`/`limit` argument.' },
  { path: 'graphql.rateLimit', default: '{ points: 600, durationSeconds: 60 }', summary: 'Budget of executed root fields (each alias counts, weighted by its field cost) per token subject+client, or per IP when anonymous; `false` turns it off. 429 with `Retry-After`.', security: 'Closes alias brute force (one request, many operations).' },
  { path: 'graphql.privateFieldCheck', default: 'warn', summary: 'Start-up check for fields that look private (e-mail, password, token, secret, user id) without `@requiresScopes` or `@public`: `warn`, `refuse` or `off`.' },
  { path: 'graphql.resource', default: 'issuer + graphql.path', summary: 'Resource indicator of the API: tokens requested with `resource=<this>` are JWT access tokens (RFC 9068) verified without a storage lookup; tokens for other audiences are refused.', see: 'RFC 8707, RFC 9068' },
  { path: 'storage.type', default: 'memory', summary: 'Storage of codes, tokens, sessions, grants, consent and counters: `memory` (one process) or `redis`.', security: 'NODE_ENV=production refuses an unset type: choose `redis`, or `memory` explicitly for a single instance.' },
  { path: 'storage.url', default: '(unset)', summary: 'Redis URL for `type: redis` (`REDIS_URL` for the standalone server).' },
  { path: 'storage.client', default: '(unset)', summary: 'An ioredis client (single node, Sentinel or Cluster) you own, instead of `url`.' },
  { path: 'storage.keyPrefix', default: 'portcullis:', summary: 'Prefix of every Redis key.' },
  { path: 'storage.maxEntries', default: '0 (unbounded)', summary: 'Bound on memory entries; when full new writes get 503 rather than evicting live data.' },
  { path: 'proxy', default: 'false', summary: 'Trust `X-Forwarded-For`, `X-Forwarded-Proto` and `X-Forwarded-Host` from a reverse proxy: the client IP, the protocol (https behind TLS termination) and the host checked against the issuer. URLs the server emits always derive from `issuer`.', security: 'Only enable behind a proxy that sets them. With an https issuer in production, requests seen as plain http are refused until this is set behind a TLS proxy.' },
  { path: 'allowedHosts', default: '[]', summary: '`host[:port]` values accepted in `Host` besides the issuer\'s; other hosts get 421. URLs still name the issuer.', security: 'Requests for other hosts are refused, so discovery and links can never be poisoned through `Host`.', see: 'RFC 9110 §7.4, §15.5.20' },
  { path: 'demo', default: 'false', summary: 'Marks demo fixtures; refused with NODE_ENV=production.' },
  { path: 'selfService.signup', default: 'true (false with NODE_ENV=production)', summary: 'Sign-up page at `/account/signup`, linked from the login page; new accounts must verify their e-mail address.', security: 'Needs mail (SMTP in production); answers the same whether or not the address is taken.' },
  { path: 'selfService.requireVerifiedEmail', default: 'true', summary: 'Accounts with an unverified e-mail address cannot sign in to any client; `false` lets them in with `email_verified: false`.', security: 'Clients trust `email` for login; only relax when every client checks `email_verified`.', see: 'OIDC Core §5.1' },
  { path: 'selfService.passwordMinLength', default: '12', summary: 'Minimum password length at sign-up and reset (maximum 256).', see: 'NIST SP 800-63B §5.1.1' },
  { path: 'selfService.verificationTtl', default: '86400', summary: 'Lifetime of e-mail verification links (sign-up, e-mail change), seconds; single use.' },
  { path: 'selfService.resetTtl', default: '3600', summary: 'Lifetime of password reset links, seconds; single use.' },
  { path: 'mail.from', default: 'Portcullis <no-reply@localhost>', summary: 'Sender of account mail.' },
  { path: 'mail.smtp', default: '(unset: development mailbox)', summary: 'SMTP transport for nodemailer: `smtp://user:pass@host:587` / `smtps://…` or an options object.', security: 'Without it, production sends no mail and turns sign-up and password reset off.' },
  { path: 'mail.mailbox', default: '`PORTCULLIS_DEV_MAILBOX` or ./.mailbox', summary: 'Development only: directory where each message is written as an `.eml` file (the link is also logged).' },
  { path: 'accountLimits.loginPerAccount', default: '10 per 900 s', summary: '`{ points, durationSeconds }`: login attempts per e-mail address (known or not); a successful login resets it. Over it: 429 with `Retry-After`.', security: 'Slows password guessing against one account.' },
  { path: 'accountLimits.loginPerIp', default: '100 per 900 s', summary: '`{ points, durationSeconds }`: login attempts per client IP.', security: 'Slows password spraying; behind a proxy set `proxy: true` so the client IP is used.' },
  { path: 'accountLimits.mailPerAddress', default: '5 per 3600 s', summary: '`{ points, durationSeconds }`: verification, resend and reset mails per e-mail address.', security: 'Keeps the server from being used to flood a mailbox.' },
  { path: 'accountLimits.mailPerIp', default: '30 per 3600 s', summary: '`{ points, durationSeconds }`: sign-ups, resends and reset requests per client IP.' },
  { path: 'openid', default: 'true', summary: 'OpenID Connect on top of OAuth 2.0. `false` (OAuth-only): `scope=openid` gets `invalid_scope`, `id_token` response types `unsupported_response_type`; no userinfo, no openid-configuration (RFC 8414 metadata stays).', see: 'OIDC Core §3, RFC 8414' },
  { path: 'webMessageResponseMode', default: 'false', summary: 'Accept `response_mode=web_message` (experimental draft in oidc-provider). Off: `unsupported_response_mode`.', security: 'redirect_uri is validated exactly as for the other modes either way.', see: 'draft-sakimura-oauth-wmrm-01' },
  { path: 'logger', default: 'pino to stdout', summary: 'A pino logger; the default writes JSON lines at `LOG_LEVEL` (default info) with secrets redacted.' },
]);
