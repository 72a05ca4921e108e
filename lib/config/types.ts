import type { DocumentNode } from 'graphql';
import type { IResolvers } from '@graphql-tools/utils';
import type { AccountStore } from '../accounts/account-store.js';
import type { Logger } from '../logger.js';
import type { RedisClient } from '../../adapters/redis.js';
import type { LimitSpec } from '../limits/limiter.js';

/**
 * A client (relying party) registered statically in configuration.
 * Members are OpenID Connect Dynamic Client Registration 1.0 §2 / RFC 7591 §2 client metadata.
 */
export interface ClientConfig {
  /** Client identifier (RFC 6749 §2.2). */
  client_id: string;
  /** Client secret; omit for public clients (`token_endpoint_auth_method: 'none'`). */
  client_secret?: string;
  /** Exact-match whitelist of redirect URIs (RFC 6749 §3.1.2). */
  redirect_uris: string[];
  /** @default ['authorization_code'] */
  grant_types?: string[];
  /** @default ['code'] */
  response_types?: string[];
  /** `client_secret_basic` (default), `client_secret_post` or `none` (public client, PKCE always required). */
  token_endpoint_auth_method?: 'client_secret_basic' | 'client_secret_post' | 'none';
  /** @default 'web' */
  application_type?: 'web' | 'native';
  client_name?: string;
  /** Space-separated list of scopes this client may request; unset means every configured scope. */
  scope?: string;
  post_logout_redirect_uris?: string[];
  /**
   * Portcullis extension: lets a confidential client that cannot send `code_verifier` skip PKCE
   * (RFC 7636). Ignored for public clients, which always need PKCE. Weakens code-injection protection.
   * @default false
   */
  pkce_optional?: boolean;
}

/** A seed account for the built-in in-memory account store. */
export interface SeedAccount {
  /** Stable subject identifier (`sub`); generated from the e-mail when omitted. */
  id?: string;
  email: string;
  /** Clear-text password; hashed with scrypt when the server is built and never kept in clear. */
  password: string;
  /** @default false */
  email_verified?: boolean;
  /** Roles used by scope policies (see {@link ScopeDefinition.requiresRole}). */
  roles?: string[];
  /** Further OpenID Connect Core §5.1 standard claims (`given_name`, `family_name`, `birthdate`, `address`, …). */
  claims?: Record<string, unknown>;
}

/** A scope offered by this server beyond the OpenID Connect standard ones. */
export interface ScopeDefinition {
  /** Plain-words description shown on the consent page. */
  description: string;
  /** When set, only accounts holding this role can be granted the scope; others never see it. */
  requiresRole?: string;
}

/** Lifetimes, all in seconds. */
export interface TtlConfig {
  /** @default 60 */ authorizationCode?: number;
  /** @default 3600 */ accessToken?: number;
  /** @default 3600 */ idToken?: number;
  /** @default 1209600 (14 days) */ refreshToken?: number;
  /** @default 3600 */ interaction?: number;
  /** @default 1209600 (14 days) */ session?: number;
  /** @default 1209600 (14 days) */ grant?: number;
}

/** A JSON Web Key Set with private keys (RFC 7517 §5). */
export interface PrivateJwks { keys: Array<Record<string, unknown>> }

export interface KeysConfig {
  /**
   * Private signing keys: a private JWKS object, or the path of a JSON file holding one. For each algorithm the
   * first key in the set signs; later keys of that algorithm are still published and verify (rotation: put the
   * new key first). Development generates ephemeral RS256, ES256 and EdDSA keys when omitted; production refuses
   * to start.
   */
  signing?: PrivateJwks | string;
  /** Secrets for signed cookies, newest first. Development generates random ones; production requires them. */
  cookies?: string[];
}

export interface GraphqlConfig {
  /** @default '/graphql' */
  path?: string;
  /** GraphQL SDL type definitions of the host's schema. */
  typeDefs: string | DocumentNode | Array<string | DocumentNode>;
  /** Resolver map of the host's schema. */
  resolvers?: IResolvers | IResolvers[];
  /** Introspection (`__schema`, `__type`); see {@link GraphqlIntrospectionConfig}. @default { enabled: false } */
  introspection?: GraphqlIntrospectionConfig;
  /** Opt-in transports beyond `POST application/json`; see {@link GraphqlTransportsConfig}. */
  transports?: GraphqlTransportsConfig;
  /** Origins allowed by CORS (exact `scheme://host:port`). @default [] (no CORS headers: same-origin only) */
  corsOrigins?: string[];
  /** Maximum operations in one batched (JSON array) request; `0` refuses batches. @default 0 */
  maxBatchSize?: number;
  /**
   * Trusted documents (allow-list): when set, only these exact query texts run; anything else gets 400
   * `UNTRUSTED_DOCUMENT`. Clients may also send `extensions.persistedQuery.sha256Hash` of a listed document.
   * Automatic persisted queries (registration by clients) are always off.
   */
  trustedDocuments?: string[];
  /** Query limits; see {@link GraphqlLimitsConfig}. */
  limits?: GraphqlLimitsConfig;
  /** Rate limit on executed root fields (cost-weighted), per token subject+client or per IP; `false` turns it off. */
  rateLimit?: LimitSpec | false;
  /**
   * What to do at start-up when the schema has fields that look private (e-mail, password, token, secret, user
   * id …) without `@requiresScopes` or `@public`: `warn` logs, `refuse` stops the server, `off` skips the check.
   * @default 'warn'
   */
  privateFieldCheck?: 'warn' | 'refuse' | 'off';
  /**
   * Resource indicator (RFC 8707) of this API. Access tokens requested with `resource=<this>` are JWTs
   * (RFC 9068) with this audience; tokens for another audience are refused at the endpoint.
   * @default issuer + graphql.path
   */
  resource?: string;
}

/** Introspection of the GraphQL schema. */
export interface GraphqlIntrospectionConfig {
  /** @default false */
  enabled?: boolean;
  /** When set, only access tokens carrying this scope may introspect. */
  requiredScope?: string;
}

/** Transports that are off by default (SPEC area B rule 4). */
export interface GraphqlTransportsConfig {
  /** `GET ?query=` (queries only; mutations get 405). @default false */
  get?: boolean;
  /**
   * `POST application/x-www-form-urlencoded` with fields `query`, `variables`, `operationName` and `csrf_token`
   * (from `GET <path>/csrf-token`, checked against its cookie). @default false
   */
  form?: boolean;
}

/** Limits of the GraphQL endpoint; each violation is a 400 naming the limit (`MAX_DEPTH_EXCEEDED`, …). */
export interface GraphqlLimitsConfig {
  /** Query text size in bytes, checked before parsing (413). @default 16384 */
  maxQueryBytes?: number;
  /** Lexer tokens, enforced while parsing. @default 1000 */
  maxTokens?: number;
  /** Nesting depth in fields. @default 6 */
  maxDepth?: number;
  /** Aliases in the document (`__typename` aliases count). @default 15 */
  maxAliases?: number;
  /** Fields at the root of one operation. @default 15 */
  maxRootFields?: number;
  /** Distinct `Type.field` coordinates in the document. @default 50 */
  maxUniqueFields?: number;
  /** Directive uses in the document. @default 50 */
  maxDirectives?: number;
  /** Selections after expanding fragments. @default 1000 */
  maxRecursiveSelections?: number;
  /** Operation cost (field costs × list sizes). @default 5000 */
  maxCost?: number;
  /** Cost of a field without an entry in `fieldCosts`. @default 1 */
  defaultFieldCost?: number;
  /** Costs per schema coordinate, e.g. `{ "Query.products": 5 }`. @default {} */
  fieldCosts?: Record<string, number>;
  /** Assumed length of list fields without a `first`/`last`/`limit` argument. @default 10 */
  defaultListSize?: number;
}

export interface StorageConfig {
  /**
   * `memory` (one process only) or `redis` (production, several instances). With `NODE_ENV=production` an
   * unset type is refused: choose `redis`, or `memory` explicitly for a single instance.
   * @default 'memory'
   */
  type?: 'memory' | 'redis';
  /** Redis URL (`redis://[:password@]host:port[/db]`, `rediss://…`) for `type: 'redis'`. Exclusive with `client`. */
  url?: string;
  /** An ioredis client (`Redis`, Sentinel-backed `Redis`, or `Cluster`) you own, for `type: 'redis'`. */
  client?: RedisClient;
  /** Prefix of every Redis key. @default 'portcullis:' */
  keyPrefix?: string;
  /**
   * Upper bound on stored entries for the memory adapter; when reached, new writes fail with 503 instead of
   * evicting live codes or sessions. `0` means unbounded.
   * @default 0
   */
  maxEntries?: number;
}

/** Self-service account pages: sign-up, e-mail verification, password reset. */
export interface SelfServiceConfig {
  /**
   * Shows the sign-up page (`/account/signup`, linked from the login page).
   * @default true in development, false with NODE_ENV=production
   */
  signup?: boolean;
  /**
   * Refuses sign-in to accounts whose e-mail address is not verified. `false` lets them sign in with
   * `email_verified: false` in their claims (OIDC Core §5.1); clients must then not trust the address.
   * @default true
   */
  requireVerifiedEmail?: boolean;
  /** Minimum password length in characters (maximum is 256). @default 12 */
  passwordMinLength?: number;
  /** Lifetime of e-mail verification links (sign-up, e-mail change), seconds. @default 86400 (24 h) */
  verificationTtl?: number;
  /** Lifetime of password reset links, seconds. @default 3600 (1 h) */
  resetTtl?: number;
}

/** Outgoing mail (nodemailer). */
export interface MailConfig {
  /** Sender address. @default 'Portcullis <no-reply@localhost>' */
  from?: string;
  /**
   * SMTP transport: a `smtp://user:pass@host:587` / `smtps://…` URL or nodemailer SMTP options. Unset in
   * development: messages are written as `.eml` files into {@link MailConfig.mailbox}. Unset in production: no mail
   * is sent, so sign-up and password reset are off.
   */
  smtp?: string | Record<string, unknown>;
  /** Development mailbox directory. @default PORTCULLIS_DEV_MAILBOX, else './.mailbox' */
  mailbox?: string;
}

/** `points` per `durationSeconds` (a fixed window, counted per key): the one limit shape, {@link LimitSpec}. */
export type LimitConfig = LimitSpec;

/** Rate limits of the account pages. Over a limit the page answers 429 with `Retry-After`. */
export interface AccountLimitsConfig {
  /** Failed logins per account (e-mail address, known or not); a successful login resets it. @default 10 per 900 s */
  loginPerAccount?: LimitConfig;
  /** Login attempts per client IP. @default 100 per 900 s */
  loginPerIp?: LimitConfig;
  /** Mails (verification, resend, reset) per e-mail address. @default 5 per 3600 s */
  mailPerAddress?: LimitConfig;
  /** Sign-ups, resends and reset requests per client IP. @default 30 per 3600 s */
  mailPerIp?: LimitConfig;
}

/** Configuration of {@link createServer}. Validated (ajv) when the server is built; unknown keys are rejected. */
export interface PortcullisConfig {
  /** Issuer identifier (OpenID Connect Discovery §3, RFC 8414 §2): an absolute URL without query or fragment. */
  issuer: string;
  clients?: ClientConfig[];
  accounts?: SeedAccount[];
  /** A host-provided account store; replaces the in-memory store seeded from `accounts`. */
  accountStore?: AccountStore;
  /** Extra scopes with their consent-page wording and policy. */
  scopes?: Record<string, ScopeDefinition>;
  ttl?: TtlConfig;
  keys?: KeysConfig;
  registration?: {
    /** Initial access token that authorizes `POST /registration` (RFC 7591 §3). Registration is off without one. */
    initialAccessToken?: string;
    /**
     * Turns `POST /registration` on for tokens minted with `server.mintInitialAccessToken()` only.
     * @default true when `initialAccessToken` is set, else false
     */
    enabled?: boolean;
    /**
     * Lets the consent page show a registered client's `logo_uri` (https only), loaded by the user's browser;
     * the server itself never fetches it. @default false
     */
    allowRemoteLogos?: boolean;
  };
  /** The guarded fetcher used for every URL the server dereferences (`jwks_uri`, `sector_identifier_uri`). */
  outboundFetch?: OutboundFetchConfig;
  /** Per-IP rate limits of client authentication failures and registration attempts. */
  rateLimits?: RateLimitsConfig;
  graphql?: GraphqlConfig;
  storage?: StorageConfig;
  /** Trust `X-Forwarded-*` headers (behind a reverse proxy). @default false */
  proxy?: boolean;
  /**
   * `host[:port]` values accepted in the `Host` header (or `X-Forwarded-Host` with `proxy`) besides the issuer's
   * host; any other host is answered `421 Misdirected Request`. Every URL the server emits (discovery,
   * registration, redirects, mail links) and compares (DPoP `htu`) still derives from `issuer`. Health
   * endpoints answer under any host. RFC 9110 §7.4. @default []
   */
  allowedHosts?: string[];
  /** Marks demo fixtures; refused with `NODE_ENV=production`. @default false */
  demo?: boolean;
  /**
   * OpenID Connect on top of OAuth 2.0. `false` is OAuth-only mode: `scope=openid` fails with `invalid_scope`,
   * response types containing `id_token` with `unsupported_response_type`, and neither userinfo nor
   * `/.well-known/openid-configuration` is served (RFC 8414 metadata still is).
   * @default true
   */
  openid?: boolean;
  /**
   * Accept `response_mode=web_message` (OAuth 2.0 Web Message Response Mode, an individual draft that
   * oidc-provider ships as experimental). Off: such a request is refused with `unsupported_response_mode`.
   * @default false
   */
  webMessageResponseMode?: boolean;
  /** A pino logger (or one with the same methods). @default JSON logs to stdout, level from `LOG_LEVEL` */
  logger?: Logger;
  /** Sign-up, e-mail verification and password reset. */
  selfService?: SelfServiceConfig;
  /** Outgoing mail. */
  mail?: MailConfig;
  /** Login and mail rate limits. */
  accountLimits?: AccountLimitsConfig;
}

export interface OutboundFetchConfig {
  /**
   * Origins (`scheme://host[:port]`) exempt from the https-only and public-address rules, e.g. an internal
   * JWKS server. @default []
   */
  allowedOrigins?: string[];
  /** Time-out of one outbound request, milliseconds. @default 2500 */
  timeoutMs?: number;
  /** Largest accepted response body, bytes. @default 524288 */
  maxResponseBytes?: number;
}

/** `points` events per `durationSeconds` per client IP address ({@link LimitSpec}). */
export type RateLimitSpec = LimitSpec;

export interface RateLimitsConfig {
  /** Failed client authentications at the token, introspection and revocation endpoints. @default 30 per 60 s */
  clientAuthFailures?: RateLimitSpec;
  /** Registration attempts at `POST /registration`. @default 100 per 60 s */
  registrations?: RateLimitSpec;
}

/** The configuration after defaults are applied and validation has passed. */
export type ResolvedConfig = Readonly<
  Omit<PortcullisConfig, 'ttl' | 'keys' | 'storage' | 'scopes' | 'clients' | 'accounts' | 'selfService' | 'mail' | 'accountLimits' | 'outboundFetch' | 'rateLimits'> & {
    ttl: Required<TtlConfig>;
    keys: { signing?: PrivateJwks; cookies?: string[] };
    storage: StorageConfig & { type: 'memory' | 'redis'; maxEntries: number; keyPrefix: string; explicitType: boolean };
    scopes: Record<string, ScopeDefinition>;
    clients: ClientConfig[];
    accounts: SeedAccount[];
    proxy: boolean;
    allowedHosts: readonly string[];
    demo: boolean;
    openid: boolean;
    webMessageResponseMode: boolean;
    production: boolean;
    selfService: Required<SelfServiceConfig>;
    mail: MailConfig;
    accountLimits: Required<AccountLimitsConfig>;
    outboundFetch: Required<OutboundFetchConfig>;
    rateLimits: Required<RateLimitsConfig>;
  }
>;
