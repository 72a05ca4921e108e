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
  storage: Object.freeze({ type: 'memory', maxEntries: 0 }),
  proxy: false,
  demo: false,
  graphqlPath: '/graphql',
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
  { path: 'keys.signing', default: 'ephemeral (development only)', summary: 'Private JWKS used to sign ID tokens; the first key of each algorithm signs.', security: 'Required with NODE_ENV=production.', see: 'RFC 7517' },
  { path: 'keys.cookies', default: 'random (development only)', summary: 'Secrets for signed cookies, newest first.', security: 'Required with NODE_ENV=production; share them between instances.' },
  { path: 'registration.initialAccessToken', default: '(unset: registration off)', summary: 'Bearer token required at `POST /registration`.', security: 'Without it nobody can register clients.', see: 'RFC 7591 §3' },
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
  { path: 'storage.type', default: 'memory', summary: 'Storage of codes, tokens, sessions and grants.' },
  { path: 'storage.maxEntries', default: '0 (unbounded)', summary: 'Bound on memory entries; when full new writes get 503 rather than evicting live data.' },
  { path: 'proxy', default: 'false', summary: 'Trust `X-Forwarded-*` headers from a reverse proxy.', security: 'Only enable behind a proxy that sets them.' },
  { path: 'demo', default: 'false', summary: 'Marks demo fixtures; refused with NODE_ENV=production.' },
  { path: 'logger', default: 'pino to stdout', summary: 'A pino logger; the default writes JSON lines at `LOG_LEVEL` (default info) with secrets redacted.' },
]);
