/**
 * The one home of every Portcullis option: its type and constraints, default, unit, meaning, security effect and
 * the standard it follows, written once as a TypeBox schema (JSON Schema). Everything else is derived from it:
 * the input type {@link PortcullisConfigInput}, the resolved type {@link ResolvedOptions}, validation (ajv with
 * `useDefaults`, `lib/config/load.ts`), `DEFAULTS` and `OPTION_DOCS` (`config/defaults.ts`) and the option
 * reference table (docs/reference/options.md, `npm run docs:options`).
 *
 * Conventions of this file: a node with a `description` is one option (one row of the option reference); a node with a `title` is a
 * section that only groups options. A literal default is the JSON Schema `default` keyword (ajv fills it in); a
 * default that depends on the environment or another option is `derived` and resolved by `loadConfig`, with
 * `defaultText` saying how. Sections are created empty when missing, so the defaults of their members apply: a
 * configuration merges deeply over the defaults. Arrays and maps (`clients`, `scopes`, `fieldCosts`) replace.
 */
import { OptionalKind, Type, type Static, type TArray, type TObject, type TOptional, type TProperties, type TSchema } from '@sinclair/typebox';
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import type { DocumentNode, ValidationRule } from 'graphql';
import type { IResolvers } from '@graphql-tools/utils';
import type { Cluster, Redis } from 'ioredis';
import type { AccountStore } from '../lib/core/account-store.js';
import type { Logger } from '../lib/core/logger.js';
import type { Mailer } from '../lib/core/mailer.js';
import type { Storage } from '../lib/core/storage.js';
import type { Locale, MessageKey } from '../lib/ui/i18n.js';
import type { UiTemplates } from '../lib/ui/templates.js';

/** What an option says about itself beyond JSON Schema: the option reference's columns. */
export interface OptionMeta {
  /** What the option does (the "meaning" column). */
  description: string;
  /** Unit of a number (`seconds`, `milliseconds`, `bytes`); shown beside the default. */
  unit?: string;
  /** What it changes for security (the "security effect" column). */
  security?: string;
  /** The standard (RFC, specification section) it follows. */
  see?: string;
  /**
   * Words for the default. With a literal `default`, a note shown after it (`(14 days)`); without one, the whole
   * default (a derived or unset value, e.g. `issuer + graphql.path`).
   */
  defaultText?: string;
}

/** Keywords of {@link OptionMeta} that are not JSON Schema: registered with ajv as annotations. */
export const OPTION_KEYWORDS = ['unit', 'security', 'see', 'defaultText', 'errorMessages'] as const;

/** Marks a property that always has a value once the configuration is resolved. */
export const DefaultKind = Symbol.for('portcullis.defaultKind');
/** A literal default (JSON Schema `default`) that ajv fills in. */
export interface TLiteralDefault { [DefaultKind]: 'literal' }
/** A default computed by `loadConfig` from the environment or another option. */
export interface TDerivedDefault { [DefaultKind]: 'derived' }

const annotate = <T extends TSchema>(schema: T, extra: object): T => ({ ...schema, ...extra });

/** A required option. */
function required<T extends TSchema>(schema: T, meta: OptionMeta): T {
  return annotate(schema, meta);
}
/** An option that may stay unset. */
function optional<T extends TSchema>(schema: T, meta: OptionMeta): TOptional<T> {
  return Type.Optional(annotate(schema, meta)) as TOptional<T>;
}
/** An option with a literal default: optional in the input, always present once resolved. */
function withDefault<T extends TSchema>(schema: T, value: Static<T>, meta: OptionMeta): TOptional<T> & TLiteralDefault {
  return Type.Optional(annotate(schema, { ...meta, default: value, [DefaultKind]: 'literal' })) as TOptional<T> & TLiteralDefault;
}
/** An option whose default depends on the environment or another option (resolved by `loadConfig`). */
function derived<T extends TSchema>(schema: T, meta: OptionMeta & { defaultText: string }): TOptional<T> & TDerivedDefault {
  return Type.Optional(annotate(schema, { ...meta, [DefaultKind]: 'derived' })) as TOptional<T> & TDerivedDefault;
}
/** A group of options; created empty when missing so that its members' defaults apply. */
function section<P extends TProperties>(title: string, properties: P): TOptional<TObject<P>> & TLiteralDefault {
  return Type.Optional(Type.Object(properties, { title, additionalProperties: false, default: {}, [DefaultKind]: 'literal' })) as TOptional<TObject<P>> & TLiteralDefault;
}

const MAX_SECONDS = 10 * 365 * 24 * 3600;
const seconds = (options: { maximum?: number } = {}) => Type.Integer({ minimum: 1, maximum: MAX_SECONDS, ...options });
const DAYS_14 = 14 * 24 * 3600;

/** A private JWKS (RFC 7517 §5): every key has a private part. */
export const privateJwksSchema = Type.Object({
  keys: Type.Array(Type.Object({ kty: Type.Unsafe<'RSA' | 'EC' | 'OKP'>({ enum: ['RSA', 'EC', 'OKP'] }), d: Type.String() }, { additionalProperties: true }), { minItems: 1 }),
});
/** A JSON Web Key Set with private keys (RFC 7517 §5). */
export interface PrivateJwks { keys: Array<Record<string, unknown>> }

/** One rate limit, `{ points, durationSeconds }`: a fixed window counted per key (the shape of `LimitSpec`). */
const limitSpec = Type.Object({ points: Type.Integer({ minimum: 1 }), durationSeconds: seconds() }, { additionalProperties: false });
/** A limit option: `points` per `durationSeconds`, whole values replace the default. */
function limit(points: number, durationSeconds: number, meta: OptionMeta) {
  return withDefault(limitSpec, { points, durationSeconds }, meta);
}
/** `{ enum }` only (no `type`), so a wrong value of any type reads "must be one of …". */
const oneOf = <const V extends readonly (string | number)[]>(values: V) => Type.Unsafe<V[number]>({ enum: [...values] });

/** A hex colour: nothing else can reach the inline style sheet, so no CSS can be injected through it. */
const hexColor = Type.String({ pattern: '^#([0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$' });
/** The colour options of one scheme, each with its default. */
function palette<const N extends string>(defaults: Record<N, string>, scheme: string) {
  return Object.fromEntries(Object.entries(defaults).map(([name, value]) => [name, withDefault(hexColor, value as string, {
    description: `\`--pc-${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}\` (${scheme})`,
  })])) as Record<N, ReturnType<typeof withDefault<typeof hexColor>>>;
}

/**
 * Algorithms of the client assertions (RFC 7523 §2.2) the token endpoint accepts, per authentication method: the
 * one list for configured clients, registration and discovery (`token_endpoint_auth_signing_alg_values_supported`;
 * oidc-provider's `enabledJWA.clientAuthSigningAlgValues`). `client_secret_jwt` is HMAC with the client secret.
 */
export const CLIENT_AUTH_SIGNING_ALGS = Object.freeze({
  private_key_jwt: ['RS256', 'PS256', 'ES256', 'Ed25519', 'EdDSA'],
  client_secret_jwt: ['HS256'],
} as const);

/** A client's public keys (RFC 7517 §5 JWK Set); what each key may hold is checked by `loadConfig`. */
const publicJwksSchema = Type.Object({
  keys: Type.Array(Type.Unsafe<{ kty: string; [member: string]: unknown }>(Type.Object({ kty: Type.String({ minLength: 1 }) }, { additionalProperties: true })), { minItems: 1 }),
}, { additionalProperties: true });

const clientSchema = Type.Object({
  client_id: Type.String({ minLength: 1, maxLength: 255 }),
  client_secret: optional(Type.String({ minLength: 12 }), {
    description: 'Secret of a confidential client, at least 12 characters; with `client_secret_jwt` at least 32 bytes (the HS256 key). Required for `client_secret_basic`, `client_secret_post` and `client_secret_jwt`; refused with `none` and `private_key_jwt`',
    defaultText: 'unset',
    security: 'refused in production when it is a demo value',
    see: 'RFC 6749 §2.3.1, RFC 7518 §3.2',
  }),
  redirect_uris: Type.Array(Type.String({ format: 'uri' }), { minItems: 1 }),
  grant_types: Type.Optional(Type.Array(oneOf(['authorization_code', 'refresh_token', 'implicit'] as const))),
  response_types: Type.Optional(Type.Array(oneOf(['code', 'id_token', 'id_token token', 'code id_token', 'code token', 'code id_token token'] as const))),
  token_endpoint_auth_method: optional(oneOf(['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt', 'none'] as const), {
    description: 'How the client authenticates at the token, introspection, revocation and PAR endpoints: `client_secret_basic`, `client_secret_post`, `client_secret_jwt` (an HS256 assertion made with `client_secret`), `private_key_jwt` (an assertion signed with a private key whose public key is in `jwks` or at `jwks_uri`) or `none` (a public client)',
    defaultText: '`client_secret_basic`',
    security: '`private_key_jwt` keeps no shared secret on the server',
    see: 'RFC 7591 §2, OIDC Core §9, RFC 7523',
  }),
  token_endpoint_auth_signing_alg: optional(oneOf([...CLIENT_AUTH_SIGNING_ALGS.private_key_jwt, ...CLIENT_AUTH_SIGNING_ALGS.client_secret_jwt] as const), {
    description: `The one algorithm the client's assertions may use: ${CLIENT_AUTH_SIGNING_ALGS.private_key_jwt.map((a) => `\`${a}\``).join(', ')} with \`private_key_jwt\`, \`HS256\` with \`client_secret_jwt\`; only with those two methods`,
    defaultText: 'unset: any of the method\'s algorithms',
    see: 'OIDC Registration §2',
  }),
  jwks: optional(publicJwksSchema, {
    description: 'The client\'s public keys inline (a JWK Set): for `private_key_jwt` and signed request objects. Exclusive with `jwks_uri`',
    defaultText: 'unset',
    security: 'public keys only: a key with private members (`d`, `p`, `q`, …) or a symmetric `oct` key is refused; keys Node cannot use and RSA keys under 2048 bits too',
    see: 'RFC 7591 §2, RFC 7517 §5',
  }),
  jwks_uri: optional(Type.String({ format: 'uri' }), {
    description: 'Where the server fetches the client\'s public keys (a JWK Set) when it needs them, through the guarded fetcher (`outboundFetch`). Exclusive with `jwks`',
    defaultText: 'unset',
    security: 'https and a public address only, unless its origin is in `outboundFetch.allowedOrigins`',
    see: 'RFC 7591 §2, SPEC rule 8',
  }),
  dpop_bound_access_tokens: optional(Type.Boolean(), {
    description: 'The client must present a DPoP proof at the token endpoint; its access and refresh tokens are bound to the proof\'s key (a token request without one is `400 invalid_grant`)',
    defaultText: '`false`',
    security: 'a stolen access token is useless without the client\'s DPoP private key',
    see: 'RFC 9449 §5.2',
  }),
  application_type: Type.Optional(oneOf(['web', 'native'] as const)),
  client_name: Type.Optional(Type.String()),
  scope: Type.Optional(Type.String()),
  post_logout_redirect_uris: Type.Optional(Type.Array(Type.String({ format: 'uri' }))),
  require_mfa: optional(Type.Boolean(), {
    description: 'Every sign-in for this client needs a second factor (TOTP or a recovery code); the ID token then has `acr` `urn:portcullis:mfa` and `amr` with `mfa`. Also accepted as registration metadata',
    defaultText: '`false`',
    security: 'a session signed in with a password only is stepped up before the client gets a code',
    see: 'RFC 8176, OIDC Core §2 (acr)',
  }),
  pkce_optional: optional(Type.Boolean(), {
    description: 'Lets a confidential client skip PKCE when it cannot send `code_verifier`',
    defaultText: '`false`',
    security: 'weakens code-injection protection; public clients always need PKCE',
    see: 'RFC 7636, RFC 9700 §2.1.1',
  }),
}, { additionalProperties: false });

const accountSchema = Type.Object({
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  email: Type.String({ format: 'email' }),
  password: Type.String({ minLength: 8, maxLength: 256 }),
  email_verified: Type.Optional(Type.Boolean()),
  roles: Type.Optional(Type.Array(Type.String())),
  claims: Type.Optional(Type.Unsafe<Record<string, unknown>>({ type: 'object' })),
}, { additionalProperties: false });

const scopeSchema = Type.Object({
  description: Type.String({ minLength: 1 }),
  requiresRole: Type.Optional(Type.String({ minLength: 1 })),
}, { additionalProperties: false });

const graphqlLimits = {
  maxQueryBytes: withDefault(Type.Integer({ minimum: 16, maximum: 1048576 }), 16384, { unit: 'bytes', description: 'Query text size, checked before parsing (`413 QUERY_TOO_LARGE`; the whole body is capped at 100 kB, `413 PAYLOAD_TOO_LARGE`)' }),
  maxTokens: withDefault(Type.Integer({ minimum: 1 }), 1000, { description: 'Lexer tokens, enforced by graphql-js while parsing (`MAX_TOKENS_EXCEEDED`, recognised by graphql-js\' exact message; any other syntax error is `GRAPHQL_PARSE_FAILED` with its own message)' }),
  maxDepth: withDefault(Type.Integer({ minimum: 1 }), 6, { description: 'Field nesting depth, fragments followed; `__schema`/`__type` subtrees are not measured (`MAX_DEPTH_EXCEEDED`)' }),
  maxAliases: withDefault(Type.Integer({ minimum: 0 }), 15, { description: 'Aliases per document, `__typename` and introspection aliases included (`MAX_ALIASES_EXCEEDED`)' }),
  maxRootFields: withDefault(Type.Integer({ minimum: 1 }), 15, { description: 'Root fields per operation, `__schema`/`__type` included (`MAX_ROOT_FIELDS_EXCEEDED`)' }),
  maxUniqueFields: withDefault(Type.Integer({ minimum: 1 }), 50, { description: 'Distinct `Type.field` coordinates per document; `__schema`/`__type` subtrees are not counted (`MAX_UNIQUE_FIELDS_EXCEEDED`)' }),
  maxDirectives: withDefault(Type.Integer({ minimum: 0 }), 50, { description: 'Directive uses per document, introspection included (`MAX_DIRECTIVES_EXCEEDED`)' }),
  maxRecursiveSelections: withDefault(Type.Integer({ minimum: 1 }), 1000, { description: 'Selections after expanding fragments: the fragment-bomb guard (`MAX_RECURSIVE_SELECTIONS_EXCEEDED`)' }),
  maxCost: withDefault(Type.Integer({ minimum: 1 }), 5000, { description: 'Operation cost = (field cost + children) × list size, the list size from `first`/`last`/`limit` as the executor will see it (literals, variables and their defaults, the schema\'s argument defaults; the largest when several are given), else `defaultListSize`; `null` and negative sizes count as `defaultListSize`; `__schema`/`__type` subtrees are not measured, they spend rate-limit points instead (`MAX_COST_EXCEEDED`)' }),
  defaultFieldCost: withDefault(Type.Number({ minimum: 0 }), 1, { description: 'Cost of a field without a `fieldCosts` entry (`__typename` costs 0)' }),
  fieldCosts: withDefault(Type.Unsafe<Record<string, number>>({
    type: 'object',
    propertyNames: { pattern: '^[_A-Za-z][_0-9A-Za-z]*\\.[_A-Za-z][_0-9A-Za-z]*$' },
    additionalProperties: { type: 'number', minimum: 0 },
  }), {}, { description: 'Per-field costs by schema coordinate, e.g. `{ "Query.products": 5 }`. A cost on an interface field also prices that field of every implementation, and a cost on an object field also prices it on the interfaces the object implements, so it holds however a query selects the field (the highest entry wins)' }),
  defaultListSize: withDefault(Type.Integer({ minimum: 0 }), 10, { description: 'Assumed length of a list field without a `first`/`last`/`limit` argument' }),
};

const graphqlSchema = Type.Object({
  path: withDefault(Type.String({ pattern: '^/[A-Za-z0-9/_-]*$' }), '/graphql', { description: 'Path of the GraphQL endpoint on the host, absolute (not under the issuer\'s path unless written so): `/api/graphql`, `/auth/graphql`, …' }),
  typeDefs: required(Type.Unsafe<string | DocumentNode | Array<string | DocumentNode>>({ anyOf: [{ type: 'string', minLength: 1 }, { type: 'object' }, { type: 'array' }] }), {
    description: 'The host schema (SDL, a parsed `DocumentNode`, or an array of them)', defaultText: 'unset: GraphQL off',
  }),
  resolvers: withDefault(Type.Unsafe<IResolvers | IResolvers[]>({ anyOf: [{ type: 'object' }, { type: 'array' }] }), {}, {
    description: 'Resolvers of the host schema; `context.auth` is `{ sub, client_id, scope, scopes }` (RFC 7662 names) or `null`',
  }),
  introspection: section('Introspection of the GraphQL schema', {
    enabled: withDefault(Type.Boolean(), false, {
      description: 'Allow `__schema`/`__type` queries (the full and the legacy introspection query work when on, under the default limits); `__typename` always works. Introspection counts towards aliases, root fields, directives and the rate limit; depth, distinct fields and cost measure the data part only',
      security: 'off: the schema stays private; refused on the parsed document (`INTROSPECTION_DISABLED`), however spaced, commented, aliased or hidden in a fragment, in every transport',
      see: 'GraphQL spec §4',
    }),
    requiredScope: optional(Type.String({ minLength: 1 }), { description: 'With introspection on, only tokens carrying this scope may introspect (decided per request; others get `INTROSPECTION_DISABLED`, `401` without a token and `403 insufficient_scope` with one, the scope named in `WWW-Authenticate`); a scope this server does not have (standard or `scopes`) is a start-up warning' }),
  }),
  transports: section('Transports beyond POST application/json (SPEC area B rule 4)', {
    get: withDefault(Type.Boolean(), false, {
      description: 'Accept `GET ?query=&variables=&operationName=` (queries only; mutations get `405` with `Allow: POST`)',
      security: 'query text lands in logs and caches; exempt from Apollo CSRF prevention (a GET never mutates)',
      see: 'GraphQL over HTTP',
    }),
    form: withDefault(Type.Boolean(), false, {
      description: 'Accept `application/x-www-form-urlencoded` POSTs with `query`, `variables`, `operationName` and `csrf_token` from `GET <path>/csrf-token`; without a matching token and cookie `403 CSRF_TOKEN_INVALID`',
      security: 'a form needs no CORS preflight: the CSRF token (signed double-submit cookie) protects it instead',
      see: 'OWASP CSRF Cheat Sheet',
    }),
  }),
  corsOrigins: withDefault(Type.Array(Type.String({ pattern: '^https?://[^/?#]+$' })), [], {
    description: 'Exact origins (`scheme://host:port`) allowed to call the endpoint from browsers (CORS); others get no CORS headers. The demo allows `http://localhost:8080`',
    security: 'each origin listed can send credentialed requests from its pages',
  }),
  maxBatchSize: withDefault(Type.Integer({ minimum: 0, maximum: 100 }), 0, {
    defaultText: '(batching off)',
    description: 'Operations allowed in one JSON-array request (`0` refuses batches with `BATCHING_DISABLED`); each runs through every limit, and the rate limit is charged for the whole batch before any of it runs: over budget, `429 RATE_LIMITED` and nothing ran (never some results with a 429)',
    security: 'batches multiply work per request',
  }),
  trustedDocuments: optional(Type.Array(Type.String({ minLength: 1 })), {
    defaultText: 'unset: any document',
    description: 'Allow-list of exact query texts; others get `400 UNTRUSTED_DOCUMENT`. Requests carry the full text: a persisted-query hash (`extensions.persistedQuery`), even of a listed text, is refused with or without the text (`PERSISTED_QUERY_NOT_SUPPORTED`)',
  }),
  limits: section('Limits of the GraphQL endpoint; each violation is a 400 naming the limit', graphqlLimits),
  rateLimit: withDefault(Type.Union([Type.Unsafe<false>({ const: false }), limitSpec]), { points: 600, durationSeconds: 60 }, {
    description: 'Budget of executed root fields (each alias counts, weighted by its field cost; `__schema`/`__type` weigh like a list field, `defaultFieldCost × defaultListSize` = 10, unless listed in `fieldCosts`) and of aliased fields below the root (each `defaultFieldCost`, at least 1: an alias there is another call with arguments of the caller\'s choosing) per token subject + client, or per IP when anonymous; `false` turns it off. Documents not seen before spend points too, before they are parsed, refused or not (`parseBytesPerPoint`). Over it `429 RATE_LIMITED` with `Retry-After`',
    security: 'closes alias brute force (one request, many operations) and floods of refused documents',
  }),
  parseBytesPerPoint: withDefault(Type.Integer({ minimum: 1, maximum: 1048576 }), 1024, {
    unit: 'bytes',
    description: 'What checking a document costs in `rateLimit` points, refused or not: a query text not in the document cache spends one point per started `parseBytesPerPoint` bytes (16 kB: 16 points), in one consume under the same key, before it is parsed (over budget `429 RATE_LIMITED` with `Retry-After`, unread). That covers any refusal that follows (syntax, `MAX_TOKENS_EXCEEDED`, the limits, validation, `413 QUERY_TOO_LARGE`, …) and counts towards the operation\'s points: a request that runs spends the larger of the two. A refusal whose documents were all cached (variables, `operationName`, cost with the variables, introspection for this caller) spends 1 point. Unused with `rateLimit: false`',
    security: 'refused documents are throttled like operations: with the defaults an address gets at most 37 new 16 kB documents parsed a minute; larger: new documents are cheaper to send',
  }),
  privateFieldCheck: withDefault(oneOf(['warn', 'refuse', 'off'] as const), 'warn', {
    description: 'Start-up check for fields named like e-mail, password, token, secret, user/account id without `@requiresScopes` or `@public(reason:)`: `warn` logs, `refuse` stops the server, `off` skips it',
  }),
  exposeResolverErrors: withDefault(Type.Boolean(), false, {
    description: 'Send clients the message of an error a resolver throws that is not a `GraphQLError` (a `TypeError`, a database driver\'s error). Off: such an error answers `Unexpected error.` with `extensions.code` `INTERNAL_SERVER_ERROR` (its `path` kept, its field `null`) and is logged at `error` with the request id; a `GraphQLError` thrown on purpose keeps its message and extensions either way',
    security: 'messages of unexpected errors (hosts, file paths, SQL text) reach every client',
  }),
  plugins: withDefault(Type.Unsafe<ApolloServerPlugin<BaseContext>[]>({ type: 'array', items: { type: 'object' } }), [], {
    description: 'Extra Apollo Server plugins (tracing, metrics, audit logs), run after Portcullis\' own; their hooks see `contextValue.auth`',
    security: 'runs inside the request: a plugin can read tokens\' claims and change responses',
  }),
  validationRules: withDefault(Type.Unsafe<ValidationRule[]>({ type: 'array' }), [], {
    description: 'Extra graphql-js validation rules, run by the document gate with the standard ones (failures `400 GRAPHQL_VALIDATION_FAILED`); a document that passed is remembered, so a rule must depend on the document and schema only',
  }),
  resource: derived(Type.String({ format: 'uri', not: { pattern: '#' } }), {
    defaultText: 'issuer\'s origin + `graphql.path`',
    description: 'Resource indicator of the API: tokens requested with `resource=<this>` are JWT access tokens (RFC 9068) verified without a storage lookup; tokens for other audiences are refused',
    see: 'RFC 8707, RFC 9068',
  }),
}, { additionalProperties: false, title: 'The hardened GraphQL endpoint; off unless `typeDefs` is given' });

/** The schema of `PortcullisConfig`, the configuration of `createServer`. Unknown keys are rejected. */
export const ConfigSchema = Type.Object({
  issuer: required(Type.String({
    format: 'uri', pattern: '^https?://', not: { pattern: '[?#]' },
    // What the configuration error says for each failed keyword (lib/config/schema-errors.ts), instead of ajv's words.
    errorMessages: {
      format: 'must be an absolute URL such as https://id.example.com',
      pattern: 'must start with https:// (or http:// in development)',
      not: 'must have no query ("?") or fragment ("#") (OpenID Connect Discovery 1.0 §3, RFC 8414 §2)',
    },
  }), {
    defaultText: '(required)',
    description: 'Issuer identifier; absolute http(s) URL without query, fragment or trailing `/` (`https://host`, not `https://host/`: tokens carry it as written and relying parties compare it exactly). Endpoints, pages and cookies hang off it: with a path (`https://host/auth`) everything is served under `/auth`, plus RFC 8414\'s `/.well-known/oauth-authorization-server/auth`',
    security: 'https required in production',
    see: 'OIDC Discovery §3, §4.3; RFC 8414 §2',
  }),
  clients: withDefault(Type.Array(clientSchema), [], {
    description: 'Statically registered clients (client metadata, `redirect_uris` matched exactly). The `client_id` `portcullis-account` is reserved (the account page\'s own client)',
    security: 'each client is validated at start-up against the registration policy; an invalid one stops the server',
    see: 'RFC 7591 §2',
  }),
  accounts: withDefault(Type.Array(accountSchema), [], {
    description: 'Seed accounts of the in-memory store: `{ id?, email, password, email_verified?, roles?, claims? }`',
    security: 'passwords hashed with scrypt at start-up, never kept in clear',
    see: 'OIDC Core §5.1',
  }),
  accountStore: optional(Type.Unsafe<AccountStore>({ type: 'object' }), { defaultText: 'in-memory store', description: 'Your own `AccountStore`; replaces the in-memory store seeded from `accounts`' }),
  scopes: withDefault(Type.Unsafe<Record<string, Static<typeof scopeSchema>>>({
    type: 'object',
    propertyNames: { pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' },
    additionalProperties: scopeSchema,
  }), {}, {
    description: 'Extra scopes: `{ name: { description, requiresRole? } }`; the description is the consent-page wording. Unknown scopes are ignored',
    security: '`requiresRole` keeps a scope out of consent and out of every token issued while the account lacks the role (code exchange and refresh included: checked at each issuance, not only at consent); tokens issued before a role is removed keep it until they expire',
    see: 'RFC 6749 §3.3',
  }),
  ttl: section('Lifetimes, in seconds', {
    authorizationCode: withDefault(seconds({ maximum: 600 }), 60, { unit: 'seconds', description: 'Authorization code lifetime (max 600)', see: 'RFC 6749 §4.1.2' }),
    accessToken: withDefault(seconds(), 3600, { unit: 'seconds', description: 'Access token lifetime (`expires_in`)', see: 'RFC 6749 §5.1' }),
    idToken: withDefault(seconds(), 3600, { unit: 'seconds', description: 'ID token lifetime', see: 'OIDC Core §2' }),
    refreshToken: withDefault(seconds(), DAYS_14, { unit: 'seconds', defaultText: '(14 days)', description: 'Refresh token lifetime; rotated on every use, reuse revokes the grant', see: 'RFC 9700 §4.14' }),
    interaction: withDefault(seconds(), 3600, { unit: 'seconds', description: 'Login/consent interaction lifetime' }),
    session: withDefault(seconds(), DAYS_14, { unit: 'seconds', defaultText: '(14 days)', description: 'Browser session lifetime at the provider' }),
    grant: withDefault(seconds(), DAYS_14, { unit: 'seconds', defaultText: '(14 days)', description: 'Grant (one session\'s consent record) lifetime' }),
  }),
  keys: section('Signing and cookie keys', {
    // The key set's shape (privateJwksSchema) is checked by loadConfig, as for a file, with a message that says what is wrong.
    signing: optional(Type.Unsafe<PrivateJwks | string>({ anyOf: [{ type: 'string', minLength: 1 }, { type: 'object' }] }), {
      defaultText: 'ephemeral RS256+ES256+EdDSA (development)',
      description: 'Private JWKS, or the path of a JSON file holding one, that signs ID tokens; per algorithm the first key signs, later ones still verify (rotation: put the new key first)',
      security: 'required in production; keep it secret; `npx portcullis keys` generates one',
      see: 'RFC 7517',
    }),
    cookies: optional(Type.Array(Type.String({ minLength: 32 }), { minItems: 1 }), {
      defaultText: 'random (development)',
      description: 'Secrets for signed cookies, newest first (≥ 32 characters)',
      security: 'required in production; share them between instances',
    }),
  }),
  registration: section('Dynamic client registration (RFC 7591)', {
    initialAccessToken: optional(Type.String({ minLength: 16 }), {
      defaultText: 'unset: registration off',
      description: 'Bearer token required at `POST /registration` (multi-use, no expiry); compared in memory, never written to storage, so a replaced or removed token stops working at the next start',
      security: 'without it nobody can register clients',
      see: 'RFC 7591 §3',
    }),
    enabled: derived(Type.Boolean(), {
      defaultText: '`true` if `initialAccessToken` is set',
      description: 'Turns `POST /registration` on for tokens minted with `server.mintInitialAccessToken()` only',
      security: 'registration always needs an initial access token',
      see: 'RFC 7591 §3',
    }),
    allowRemoteLogos: withDefault(Type.Boolean(), false, {
      description: 'Show a client\'s https `logo_uri` on the consent page (the browser loads it, the server never does)',
      security: 'lets a client make users\' browsers contact its logo host; CSP `img-src` then allows that one origin',
      see: 'RFC 7591 §2',
    }),
  }),
  outboundFetch: section('The guarded fetcher used for every URL the server dereferences (`jwks_uri`, `sector_identifier_uri`)', {
    allowedOrigins: withDefault(Type.Array(Type.String({ format: 'uri', pattern: '^https?://[^/?#]+/?$' })), [], {
      description: 'Origins (`scheme://host[:port]`) the server may fetch despite the https-only and public-address rules (e.g. an internal JWKS host)',
      security: 'each entry re-opens server-side requests to that origin',
      see: 'SPEC rule 8',
    }),
    timeoutMs: withDefault(Type.Integer({ minimum: 1, maximum: 60_000 }), 2500, { unit: 'milliseconds', description: 'Time-out of one outbound request, connection to last body byte' }),
    maxResponseBytes: withDefault(Type.Integer({ minimum: 1, maximum: 16 * 1024 * 1024 }), 512 * 1024, { unit: 'bytes', defaultText: '(512 KiB)', description: 'Largest outbound response body accepted' }),
  }),
  rateLimits: section('Per-IP rate limits of the provider endpoints', {
    clientAuthFailures: limit(30, 60, {
      description: 'Failed client authentications per IP at the token, introspection, revocation and pushed authorization request endpoints, counted together; then `429` with `Retry-After` at all four',
      security: 'slows client secret guessing',
      see: 'RFC 6749 §5.2',
    }),
    registrations: limit(100, 60, { description: 'Registration attempts per IP at `POST /registration`; then `429` with `Retry-After`', see: 'RFC 7591' }),
  }),
  graphql: Type.Optional(graphqlSchema),
  storage: section('Where codes, tokens, sessions, grants, consent and counters live', {
    type: withDefault(oneOf(['memory', 'redis', 'custom'] as const), 'memory', {
      description: 'Storage of codes, tokens, sessions, grants, remembered consent and rate-limit counters: `memory` (one process), `redis`, or `custom` (your own `Storage` as `instance`)',
      security: 'production refuses an unset type: choose `redis`, or `memory` explicitly for one instance',
    }),
    url: optional(Type.String({ pattern: '^rediss?://' }), { defaultText: 'unset', description: 'Redis URL (`redis://[:password@]host:port[/db]`, `rediss://…`) for `type: \'redis\'` (`REDIS_URL` for the standalone server); exclusive with `client`' }),
    client: optional(Type.Unsafe<Redis | Cluster>({ type: 'object' }), { defaultText: 'unset', description: 'An ioredis client you own (single node, Sentinel or `Cluster`) instead of `url`' }),
    instance: optional(Type.Unsafe<Storage>({ type: 'object' }), {
      defaultText: 'unset',
      description: 'Your own `Storage` (the contract in `lib/core/storage.ts`: adapters, `ping`, `close`, `accountStore`, `limiterBackend`) for `type: \'custom\'`; you own it: `close()` leaves it open',
    }),
    keyPrefix: withDefault(Type.String({ maxLength: 100 }), 'portcullis:', { description: 'Prefix of every Redis key' }),
    maxEntries: withDefault(Type.Integer({ minimum: 0 }), 0, { defaultText: '(unbounded)', description: 'Bound on memory entries: when full, new writes get 503 instead of evicting live data' }),
  }),
  proxy: withDefault(Type.Boolean(), false, {
    description: 'Trust `X-Forwarded-For`/`-Proto`/`-Host` from a reverse proxy: client IP, protocol and the host checked against the issuer; emitted URLs always come from `issuer`',
    security: 'only behind a proxy that sets them; with an https issuer in production, plain-http requests are refused until it is set behind a TLS proxy',
  }),
  proxyHops: withDefault(Type.Integer({ minimum: 1, maximum: 20 }), 1, {
    description: 'With `proxy`: how many reverse proxies in front of the server append to `X-Forwarded-For` (and `-Proto`, `-Host`). The client IP, the protocol and the host checked are each header\'s entry that many from the right; entries further left came from the client and are ignored (Koa `maxIpsCount`). A proxy that overwrites a header leaves one entry, which is read',
    security: 'too high and a client picks its own IP for every per-IP limit, and its own protocol and host past the plain-http and host checks; too low and every client shares the IP of a proxy, and the protocol read is that of the link between two proxies',
  }),
  allowedHosts: withDefault(Type.Array(Type.String({ minLength: 1, maxLength: 261 }), { maxItems: 50, uniqueItems: true }), [], {
    description: '`host[:port]` values accepted in `Host` besides the issuer\'s, written as a `Host` header carries them (`id.example.com`, `id.example.com:8443`, `[::1]:3000`; a scheme, path or wildcard is refused at start-up); other hosts get `421`. Health endpoints answer under any host',
    security: 'emitted URLs still name the issuer, so discovery and links can never be poisoned through `Host`',
    see: 'RFC 9110 §7.4',
  }),
  demo: withDefault(Type.Boolean(), false, { description: 'Marks demo fixtures', security: 'refused in production' }),
  selfService: section('Sign-up, e-mail verification and password reset pages', {
    signup: derived(Type.Boolean(), {
      defaultText: '`true` (`false` with NODE_ENV=production)',
      description: 'Sign-up page at `/account/signup`, linked from the login page; new accounts must verify their e-mail address',
      security: 'needs mail; production refuses it without `mail.smtp`; same answer for taken addresses',
    }),
    requireVerifiedEmail: withDefault(Type.Boolean(), true, {
      description: 'Unverified accounts cannot sign in; `false` lets them in with `email_verified: false`',
      security: 'only relax when every client checks `email_verified`',
      see: 'OIDC Core §5.1',
    }),
    passwordMinLength: withDefault(Type.Integer({ minimum: 8, maximum: 256 }), 12, { description: 'Minimum password length in characters (8–256; passwords are at most 256)', see: 'NIST SP 800-63B §5.1.1' }),
    verificationTtl: withDefault(seconds(), 24 * 3600, { unit: 'seconds', defaultText: '(24 h)', description: 'Lifetime of confirmation links (sign-up, e-mail change); single use' }),
    resetTtl: withDefault(seconds(), 3600, { unit: 'seconds', description: 'Lifetime of password reset links; single use' }),
  }),
  passkeys: section('Passkeys (WebAuthn): sign-in without a password, or as a second factor', {
    enabled: derived(Type.Boolean(), {
      defaultText: '`true` when the issuer host is a domain name and the account store has the passkey methods',
      description: 'Passkeys: `/account/passkeys` to register, rename and delete them, a passkey sign-in (with autofill) on the login page, and the passkey as a second factor after a password. Relying-party ID = the issuer\'s host name, expected origin = the issuer\'s origin',
      security: 'passwordless sign-in requires user verification (PIN or biometrics) and gives `amr` `hwk`/`swk` + `user` + `mfa`; a host `accountStore` without the passkey methods is refused when set to `true`',
      see: 'WebAuthn Level 3, RFC 8176',
    }),
    rpName: withDefault(Type.String({ minLength: 1, maxLength: 64 }), 'Portcullis', { description: 'Relying-party name the authenticator may show next to the passkey', see: 'WebAuthn §5.4.2' }),
    secondFactor: derived(Type.Boolean(), {
      defaultText: '`true` when `mfa.enabled`',
      description: 'An account that has a passkey must also present it (or its TOTP code) after its password, in the second sign-in step of `mfa` (`amr` `pwd` + `hwk`/`swk` + `mfa`); a passkey also counts as enrolled for `require_mfa` and `acr_values`. Needs `mfa.enabled`',
      security: '`false` lets a password alone still sign in such an account; `true` with `mfa.enabled: false` is refused',
    }),
    challengeTtl: withDefault(seconds({ maximum: 3600 }), 300, { unit: 'seconds', description: 'Lifetime of a WebAuthn challenge (stored server-side, bound to the login or the session, single use)', see: 'WebAuthn §13.4.3' }),
  }),
  mail: section('Outgoing mail (nodemailer)', {
    from: withDefault(Type.String({ minLength: 3 }), 'Portcullis <no-reply@localhost>', { description: 'Sender of account mail' }),
    smtp: optional(Type.Unsafe<string | Record<string, unknown>>({ anyOf: [{ type: 'string', pattern: '^smtps?://' }, { type: 'object' }] }), {
      defaultText: 'unset: development mailbox',
      description: 'SMTP for nodemailer: `smtp://user:pass@host:587`, `smtps://…` or an options object',
      security: 'without it production sends no mail and turns sign-up and reset off',
    }),
    mailer: optional(Type.Unsafe<Mailer>({ type: 'object' }), {
      defaultText: 'unset: built from `smtp`',
      description: 'Your own `Mailer` (`{ kind: \'custom\', send(message) }`: a mail API, a queue); used instead of `smtp` and the mailbox',
      security: 'counts as mail in production (sign-up and reset stay on)',
    }),
    mailbox: withDefault(Type.String({ minLength: 1 }), '.mailbox', {
      defaultText: '(or `PORTCULLIS_DEV_MAILBOX` when set)',
      description: 'Development only: each message is written there as an `.eml` file and its link is logged',
    }),
  }),
  accountLimits: section('Rate limits of the account pages; over a limit the page answers 429 with `Retry-After`', {
    loginPerAccount: limit(10, 900, {
      description: 'Login attempts per e-mail address (known or not); success resets it; over it `429` + `Retry-After`',
      security: 'slows guessing; can lock an account for the window',
    }),
    loginPerIp: limit(100, 900, { description: 'Login attempts per client IP', security: 'slows spraying; set `proxy` behind a proxy so the client IP is used' }),
    mailPerAddress: limit(5, 3600, { description: 'Sign-up, resend, reset and change mails per e-mail address', security: 'keeps the server from flooding a mailbox' }),
    mailPerIp: limit(30, 3600, { description: 'Sign-ups, resends, reset and change requests per client IP' }),
    secondFactorPerAccount: limit(5, 900, {
      description: 'Second-factor attempts (TOTP or recovery code) per account, at sign-in, step-up and enrolment; success resets it',
      security: 'a 6-digit code has 10⁶ values: 5 tries per 15 minutes keeps guessing hopeless',
      see: 'RFC 6238 §5.1',
    }),
    secondFactorPerIp: limit(50, 900, { description: 'Second-factor attempts per client IP' }),
  }),
  mfa: section('Second factors (TOTP with recovery codes) and the signed-in account page `/account`', {
    enabled: withDefault(Type.Boolean(), true, {
      description: 'TOTP enrolment on `/account/security`, the second sign-in step for accounts that enrolled, `require_mfa` clients and `acr_values=urn:portcullis:mfa`. Needs an account store with `getSecondFactor`/`setSecondFactor` (and `updateSecondFactor`, for atomic changes)',
      see: 'RFC 6238, RFC 8176',
    }),
    encryptionKey: optional(Type.String({ minLength: 32 }), {
      defaultText: 'derived from the first cookie key (development only)',
      description: 'Secret (≥ 32 characters) from which the AES-256-GCM key encrypting TOTP secrets at rest is derived (HKDF-SHA-256). Environment: `PORTCULLIS_MFA_KEY`; `npx portcullis cookie-key` makes one',
      security: 'required with `NODE_ENV=production` while `mfa.enabled` (`ERR_CONFIG_INSECURE` otherwise): derived from `keys.cookies[0]`, rotating cookie keys would make every enrolled TOTP unusable (recovery codes still work); in development a start-up warning says so',
    }),
    issuerLabel: optional(Type.String({ minLength: 1, maxLength: 64 }), {
      defaultText: 'the issuer\'s host name',
      description: 'Name shown in authenticator apps for the TOTP entry (`issuer` of the `otpauth://` URI)',
    }),
    reauthenticateAfterSeconds: withDefault(seconds(), 600, {
      unit: 'seconds',
      description: 'On `/account`, a change (factors, sessions, applications) needs a sign-in no older than this; else the browser signs in again first. The `acr_values`/`require_mfa` step-up (second factor or its enrolment without the password) is offered only to a sign-in this recent; an older one asks for the password first',
      security: 'a browser left signed in cannot change factors, nor enrol the first one by a step-up, without the password (and second factor)',
    }),
  }),
  openid: withDefault(Type.Boolean(), true, {
    description: 'OpenID Connect on top of OAuth 2.0. `false` = OAuth-only mode: `scope=openid` gets `invalid_scope`, response types with `id_token` get `unsupported_response_type`, no userinfo endpoint, no `/.well-known/openid-configuration` (the RFC 8414 document stays, without OpenID members)',
    security: 'clients may only be registered for `response_types: [\'code\']`',
    see: 'OIDC Core §3, RFC 8414 §3',
  }),
  implicitFlow: withDefault(Type.Boolean(), false, {
    description: 'Offer the OpenID Connect implicit and hybrid response types (`id_token`, `id_token token`, `code id_token`) to clients registered for them. Off: only `response_types: [\'code\']`; a configured client with another response type is a configuration error, registration refuses one (`invalid_client_metadata`) and the authorization endpoint answers `unsupported_response_type`',
    security: 'tokens in the URL fragment (RFC 9700 §2.1.2 says not to use the implicit grant): use code + PKCE; turn on only for clients that cannot',
    see: 'OIDC Core §3.2, §3.3; RFC 9700 §2.1.2',
  }),
  webMessageResponseMode: withDefault(Type.Boolean(), false, {
    description: 'Accept `response_mode=web_message` (an experimental draft in oidc-provider)',
    security: 'off: answered `unsupported_response_mode`; redirect_uri is validated exactly the same either way',
    see: 'draft-sakimura-oauth-wmrm-01',
  }),
  ui: section('Branding and language of the pages and mails', {
    productName: withDefault(Type.String({ minLength: 1, maxLength: 80 }), 'Portcullis', {
      description: 'Name shown in the page header, page titles, messages ("signed out of …") and mail signatures',
    }),
    logo: optional(Type.String({ minLength: 1 }), {
      defaultText: 'unset: the product name in text',
      description: 'Path of a logo file (PNG, JPEG, GIF, WebP or SVG, at most 256 KiB), read at start-up and served by us at `/ui/logo`; its type is taken from its bytes and must match its extension',
      security: 'never hot-linked, so pages keep `img-src \'self\'`; an SVG is served with a CSP that runs no script',
    }),
    logoAlt: optional(Type.String({ maxLength: 200 }), { defaultText: '`productName`', description: 'Text alternative of the logo' }),
    colors: section('Colours of the pages (CSS custom properties `--pc-*`); `#rgb`, `#rgba`, `#rrggbb` or `#rrggbbaa` only', palette({
      primary: '#2457c5', onPrimary: '#ffffff', background: '#f4f5f7', surface: '#ffffff', text: '#1d2330', muted: '#5b6474',
      border: '#9aa3b2', error: '#8a1c12', errorBackground: '#fdecea',
    }, 'light')),
    darkColors: section('Colours under `prefers-color-scheme: dark`; same names as `ui.colors`', palette({
      primary: '#8fb0ff', onPrimary: '#0b1020', background: '#111418', surface: '#1c2028', text: '#e6e8ec', muted: '#a3abb8',
      border: '#566074', error: '#ffb4a9', errorBackground: '#3d1713',
    }, 'dark')),
    supportUrl: optional(Type.String({ pattern: '^(https?://[^\\s]+|mailto:[^\\s]+)$', maxLength: 2000 }), {
      defaultText: 'unset: no link',
      description: 'Help link in the footer of every page (`https://…` or `mailto:…`)',
    }),
    homeUrl: optional(Type.String({ pattern: '^https?://[^\\s]+$', maxLength: 2000 }), {
      defaultText: 'unset',
      description: 'Where "signed out" sends people onward when the client has no `client_uri`; also linked from the header logo',
    }),
    footer: optional(Type.String({ maxLength: 500 }), { defaultText: 'unset', description: 'Footer text of every page (plain text, escaped)' }),
    defaultLocale: withDefault(oneOf(['en', 'de'] as const satisfies readonly Locale[]), 'en', {
      description: 'Language when neither `ui_locales` nor `Accept-Language` names a shipped one (`en`, `de`)',
      see: 'OIDC Core §3.1.2.1 (ui_locales), RFC 9110 §12.5.4',
    }),
    messages: optional(Type.Unsafe<Partial<Record<Locale, Partial<Record<MessageKey, string>>>>>({ type: 'object' }), {
      defaultText: 'unset',
      description: 'Your own wording per language and message key, e.g. `{ en: { \'login.title\': \'Welcome back\' } }`; keys are those of `lib/ui/messages/en.ts`',
    }),
    templates: optional(Type.Unsafe<UiTemplates>({ type: 'object' }), {
      defaultText: 'unset',
      description: 'Functions replacing a page (`login`, `consent`, `error`, `logout`, `signedOut`, `form`, `message`, `secondFactor`, `totpEnrol`, `recoveryCodes`, `passkey`, `accountHome`) or the frame (`layout`); see docs/guides/branding.md',
      security: 'values put in with the `html` tag they receive are escaped; `raw` is the explicit way out',
    }),
  }),
  logger: optional(Type.Unsafe<Logger>({ type: 'object' }), {
    defaultText: 'pino to stdout',
    description: 'A pino logger, or an object with pino\'s `info`, `warn`, `error` and `child(bindings, options)` (returning such a logger; `console` has no `child` and is refused at start-up, before anything is logged); the default writes JSON lines at `LOG_LEVEL` (default `info`)',
    security: 'passwords, secrets, tokens, codes, `Authorization` and cookies are redacted',
  }),
}, { additionalProperties: false });

/** TypeBox's mark of an optional member. */
type Optional = { [OptionalKind]: 'Optional' };
type Flatten<T> = { [K in keyof T]: T[K] } & {};
type HasDefault<S, WithDerived extends boolean> =
  S extends TLiteralDefault ? true : WithDerived extends true ? (S extends TDerivedDefault ? true : false) : false;
type ResolveObject<P extends TProperties, D extends boolean> = Flatten<
  { [K in keyof P as HasDefault<P[K], D> extends true ? K : P[K] extends Optional ? never : K]: Resolve<P[K], D> } &
  { [K in keyof P as HasDefault<P[K], D> extends true ? never : P[K] extends Optional ? K : never]?: Resolve<P[K], D> }
>;
/**
 * The type of a value of schema `S` once defaults are applied: members with a literal default (and, when
 * `WithDerived`, a derived one) are present.
 */
export type Resolve<S, WithDerived extends boolean = true> =
  S extends TObject<infer P> ? ResolveObject<P, WithDerived>
    : S extends TArray<infer I> ? Array<Resolve<I, WithDerived>>
      : S extends TSchema ? Static<S> : never;

/** What a caller writes (every defaulted option optional). */
export type PortcullisConfigInput = Static<typeof ConfigSchema>;
/** What ajv leaves after validating with `useDefaults`: literal defaults filled in, derived ones not yet. */
export type ValidatedOptions = Resolve<typeof ConfigSchema, false>;
/** Every option with its default (literal or derived) applied. */
export type ResolvedOptions = Resolve<typeof ConfigSchema, true>;

/** The literal defaults: the type of `DEFAULTS` (`config/defaults.ts`). Derived and unset options are absent. */
export type DefaultsOf<S> = S extends TObject<infer P>
  ? Flatten<{ [K in keyof P as P[K] extends TLiteralDefault ? K : P[K] extends TObject ? K : never]: DefaultsOf<P[K]> }>
  : S extends TSchema ? Static<S> : never;
