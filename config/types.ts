/**
 * The configuration types, all derived from the option schema (`config/options.ts`, which composes the core's
 * options and the features' slices, `lib/features/<id>/options.ts`), where each option's meaning, default, unit,
 * security effect and standard are written once. The names below are the public ones.
 */
import type { PortcullisConfigInput, PrivateJwks, ResolvedOptions, ValidatedOptions } from './options.js';

export type { PrivateJwks } from './options.js';

/** Configuration of {@link createServer}. Validated (ajv) when the server is built; unknown keys are rejected. */
export type PortcullisConfig = PortcullisConfigInput;
/** A client (relying party) registered statically (OIDC Dynamic Client Registration §2 / RFC 7591 §2 metadata). */
export type ClientConfig = NonNullable<PortcullisConfig['clients']>[number];
/** A seed account for the built-in in-memory account store; the password is hashed with scrypt at start-up. */
export type SeedAccount = NonNullable<PortcullisConfig['accounts']>[number];
/** A scope offered beyond the OpenID Connect standard ones: consent-page wording and an optional role. */
export type ScopeDefinition = NonNullable<PortcullisConfig['scopes']>[string];
/** Lifetimes, all in seconds. */
export type TtlConfig = NonNullable<PortcullisConfig['ttl']>;
/** Signing keys (a private JWKS or the path of one) and cookie secrets. */
export type KeysConfig = NonNullable<PortcullisConfig['keys']>;
/** The hardened GraphQL endpoint; off unless given. */
export type GraphqlConfig = NonNullable<PortcullisConfig['graphql']>;
/** Introspection of the GraphQL schema. */
export type GraphqlIntrospectionConfig = NonNullable<GraphqlConfig['introspection']>;
/** Transports that are off by default (SPEC area B rule 4). */
export type GraphqlTransportsConfig = NonNullable<GraphqlConfig['transports']>;
/** Limits of the GraphQL endpoint; each violation is a 400 naming the limit. */
export type GraphqlLimitsConfig = NonNullable<GraphqlConfig['limits']>;
/** Storage of codes, tokens, sessions, grants, consent and counters. */
export type StorageConfig = NonNullable<PortcullisConfig['storage']>;
/** Self-service account pages: sign-up, e-mail verification, password reset. */
export type SelfServiceConfig = NonNullable<PortcullisConfig['selfService']>;
/** Outgoing mail (nodemailer). */
export type MailConfig = NonNullable<PortcullisConfig['mail']>;
/** Rate limits of the account pages. */
export type AccountLimitsConfig = NonNullable<PortcullisConfig['accountLimits']>;
/** `points` per `durationSeconds` (a fixed window, counted per key): the one limit shape. */
export type LimitConfig = AccountLimitsConfig['loginPerAccount'] & {};
/** The guarded fetcher used for every URL the server dereferences. */
export type OutboundFetchConfig = NonNullable<PortcullisConfig['outboundFetch']>;
/** `points` events per `durationSeconds` per client IP address. */
export type RateLimitSpec = LimitConfig;
/** Per-IP rate limits of client authentication failures and registration attempts. */
export type RateLimitsConfig = NonNullable<PortcullisConfig['rateLimits']>;
/** Dynamic client registration (RFC 7591): the initial access token, `enabled`, remote logos. */
export type RegistrationConfig = NonNullable<PortcullisConfig['registration']>;
/** Passkeys (WebAuthn): sign-in without a password, or as a second factor. */
export type PasskeysConfig = NonNullable<PortcullisConfig['passkeys']>;
/** Second factors (TOTP with recovery codes) and the signed-in account page `/account`. */
export type MfaConfig = NonNullable<PortcullisConfig['mfa']>;
/** Branding and language of the pages and mails: product name, logo, colours, links, messages, templates. */
export type UiConfig = NonNullable<PortcullisConfig['ui']>;
/** The colours of one scheme (`ui.colors`, `ui.darkColors`): `#rgb`, `#rgba`, `#rrggbb` or `#rrggbbaa`. */
export type UiColorsConfig = NonNullable<UiConfig['colors']>;

/**
 * The configuration after validation, with every default applied (literal and derived: `selfService.signup`,
 * `registration.enabled`, `graphql.resource`), signing keys read, and what the production guards need to know.
 */
export type ResolvedConfig = Readonly<
  Omit<ResolvedOptions, 'keys' | 'storage'> & {
    /** Signing keys read (a path in the input is replaced by the key set it holds). */
    keys: { signing?: PrivateJwks; cookies?: string[] };
    /** `explicitType`: whether the input chose `storage.type` (production refuses an implicit one). */
    storage: ResolvedOptions['storage'] & { explicitType: boolean };
    /** `NODE_ENV=production`. */
    production: boolean;
  }
>;

/**
 * The configuration as the features' `defaults` see it (lib/core/feature.ts), inside `loadConfig`: validated, the
 * literal defaults filled in, signing keys read and `production` set, but the derived defaults (`derived` in the
 * option schema) possibly unset: each feature completes its own.
 */
export type ValidatedConfig = Readonly<
  Omit<ValidatedOptions, 'keys' | 'storage'> & Pick<ResolvedConfig, 'keys' | 'storage' | 'production'>
>;
