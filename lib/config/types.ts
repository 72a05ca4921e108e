import type { DocumentNode } from 'graphql';
import type { IResolvers } from '@graphql-tools/utils';
import type { AccountStore } from '../accounts/account-store.js';
import type { Logger } from '../logger.js';

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
  /** Private signing keys. Development generates an ephemeral key when omitted; production refuses to start. */
  signing?: PrivateJwks;
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
}

export interface StorageConfig {
  /** @default 'memory' */
  type?: 'memory';
  /**
   * Upper bound on stored entries for the memory adapter; when reached, new writes fail with 503 instead of
   * evicting live codes or sessions. `0` means unbounded.
   * @default 0
   */
  maxEntries?: number;
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
  };
  graphql?: GraphqlConfig;
  storage?: StorageConfig;
  /** Trust `X-Forwarded-*` headers (behind a reverse proxy). @default false */
  proxy?: boolean;
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
}

/** The configuration after defaults are applied and validation has passed. */
export type ResolvedConfig = Readonly<
  Omit<PortcullisConfig, 'ttl' | 'keys' | 'storage' | 'scopes' | 'clients' | 'accounts'> & {
    ttl: Required<TtlConfig>;
    keys: KeysConfig;
    storage: Required<StorageConfig>;
    scopes: Record<string, ScopeDefinition>;
    clients: ClientConfig[];
    accounts: SeedAccount[];
    proxy: boolean;
    demo: boolean;
    openid: boolean;
    webMessageResponseMode: boolean;
    production: boolean;
  }
>;
