/**
 * The one option schema of Portcullis: every option's type and constraints, default, unit, meaning, security effect
 * and the standard it follows, written once as TypeBox (JSON Schema). Everything else is derived from it: the input
 * type {@link PortcullisConfigInput}, the resolved type {@link ResolvedOptions}, validation (ajv with
 * `useDefaults`, `lib/config/load.ts`), `DEFAULTS` and `OPTION_DOCS` (`config/defaults.ts`) and the option
 * reference table (docs/reference/options.md, `npm run docs:options`).
 *
 * It is composed of the core's options, written here (issuer, clients, accounts, keys, lifetimes, storage, mail,
 * proxy, the provider's switches, …), and the slices the server's features own, each written in its folder
 * (`lib/features/<id>/options.ts`): `registration`, `graphql`, `selfService`, `passkeys`, `mfa` and `ui`
 * (branding). A slice is schema only, written with the helpers of config/option-kit.ts (whose header says the
 * conventions: `description` = an option, `title` = a section, `default`, `derived` with `defaultText`), and
 * imports nothing else of ours, which is what lets this file import it (.dependency-cruiser.cjs). The slices are
 * placed among the core's options in the order the option reference shows them. A configuration merges deeply over
 * the defaults; arrays and maps (`clients`, `scopes`, `fieldCosts`) replace.
 *
 * A host's own feature may add options of its own (`options` of the feature contract): `loadConfig` validates them
 * with this schema at run time; they are not part of these types nor of the option reference.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { Cluster, Redis } from 'ioredis';
import type { AccountStore } from '../lib/core/account-store.js';
import type { Logger } from '../lib/core/logger.js';
import type { Mailer } from '../lib/core/mailer.js';
import { PASSWORD_HASH_PATTERN, SEED_PASSWORD_LENGTH } from '../lib/core/password-hash.js';
import type { Storage } from '../lib/core/storage.js';
import { brandingOptions } from '../lib/features/branding/options.js';
import { graphqlOptions } from '../lib/features/graphql/options.js';
import { mfaOptions } from '../lib/features/mfa/options.js';
import { passkeysOptions } from '../lib/features/passkeys/options.js';
import { registrationOptions } from '../lib/features/registration/options.js';
import { selfServiceOptions } from '../lib/features/self-service/options.js';
import { limit, maybe, oneOf, optional, required, section, seconds, withDefault, type Resolve } from './option-kit.js';

export {
  DefaultKind,
  OPTION_KEYWORDS,
  type DefaultsOf,
  type OptionMeta,
  type Resolve,
  type TDerivedDefault,
  type TLiteralDefault,
} from './option-kit.js';

const DAYS_14 = 14 * 24 * 3600;

/** A private JWKS (RFC 7517 §5): every key has a private part. */
export const privateJwksSchema = Type.Object({
  keys: Type.Array(
    Type.Object(
      { kty: Type.Unsafe<'RSA' | 'EC' | 'OKP'>({ enum: ['RSA', 'EC', 'OKP'] }), d: Type.String() },
      { additionalProperties: true },
    ),
    { minItems: 1 },
  ),
});
/** A JSON Web Key Set with private keys (RFC 7517 §5). */
export interface PrivateJwks {
  keys: Array<Record<string, unknown>>;
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
const publicJwksSchema = Type.Object(
  {
    keys: Type.Array(
      Type.Unsafe<{ kty: string; [member: string]: unknown }>(
        Type.Object({ kty: Type.String({ minLength: 1 }) }, { additionalProperties: true }),
      ),
      { minItems: 1 },
    ),
  },
  { additionalProperties: true },
);

const clientSchema = Type.Object(
  {
    client_id: Type.String({ minLength: 1, maxLength: 255 }),
    client_secret: optional(Type.String({ minLength: 12 }), {
      description:
        'Secret of a confidential client, at least 12 characters; with `client_secret_jwt` at least 32 bytes ' +
        '(the HS256 key). Required for `client_secret_basic`, `client_secret_post` and `client_secret_jwt`; ' +
        'refused with `none` and `private_key_jwt`',
      defaultText: 'unset',
      security: 'refused in production when it is a demo value',
      see: 'RFC 6749 §2.3.1, RFC 7518 §3.2',
    }),
    redirect_uris: Type.Array(Type.String({ format: 'uri' }), { minItems: 1 }),
    grant_types: maybe(Type.Array(oneOf(['authorization_code', 'refresh_token', 'implicit'] as const))),
    response_types: maybe(
      Type.Array(
        oneOf(['code', 'id_token', 'id_token token', 'code id_token', 'code token', 'code id_token token'] as const),
      ),
    ),
    token_endpoint_auth_method: optional(
      oneOf(['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt', 'none'] as const),
      {
        description:
          'How the client authenticates at the token, introspection, revocation and PAR endpoints: ' +
          '`client_secret_basic`, `client_secret_post`, `client_secret_jwt` (an HS256 assertion made with ' +
          '`client_secret`), `private_key_jwt` (an assertion signed with a private key whose public key is ' +
          'in `jwks` or at `jwks_uri`) or `none` (a public client)',
        defaultText: '`client_secret_basic`',
        security: '`private_key_jwt` keeps no shared secret on the server',
        see: 'RFC 7591 §2, OIDC Core §9, RFC 7523',
      },
    ),
    token_endpoint_auth_signing_alg: optional(
      oneOf([...CLIENT_AUTH_SIGNING_ALGS.private_key_jwt, ...CLIENT_AUTH_SIGNING_ALGS.client_secret_jwt] as const),
      {
        description:
          `The one algorithm the client's assertions may ` +
          `use: ${CLIENT_AUTH_SIGNING_ALGS.private_key_jwt.map((a) => `\`${a}\``).join(', ')} with ` +
          `\`private_key_jwt\`, \`HS256\` with \`client_secret_jwt\`; only with those two methods`,
        defaultText: "unset: any of the method's algorithms",
        see: 'OIDC Registration §2',
      },
    ),
    jwks: optional(publicJwksSchema, {
      description:
        "The client's public keys inline (a JWK Set): for `private_key_jwt` and signed request objects. " +
        'Exclusive with `jwks_uri`',
      defaultText: 'unset',
      security:
        'public keys only: a key with private members (`d`, `p`, `q`, …) or a symmetric `oct` key is ' +
        'refused; keys Node cannot use and RSA keys under 2048 bits too',
      see: 'RFC 7591 §2, RFC 7517 §5',
    }),
    jwks_uri: optional(Type.String({ format: 'uri' }), {
      description:
        "Where the server fetches the client's public keys (a JWK Set) when it needs them, through the " +
        'guarded fetcher (`outboundFetch`). Exclusive with `jwks`',
      defaultText: 'unset',
      security: 'https and a public address only, unless its origin is in `outboundFetch.allowedOrigins`',
      see: 'RFC 7591 §2, SPEC rule 8',
    }),
    dpop_bound_access_tokens: optional(Type.Boolean(), {
      description:
        'The client must present a DPoP proof at the token endpoint; its access and refresh tokens are bound ' +
        "to the proof's key (a token request without one is `400 invalid_grant`)",
      defaultText: '`false`',
      security: "a stolen access token is useless without the client's DPoP private key",
      see: 'RFC 9449 §5.2',
    }),
    application_type: maybe(oneOf(['web', 'native'] as const)),
    client_name: maybe(Type.String()),
    scope: maybe(Type.String()),
    post_logout_redirect_uris: maybe(Type.Array(Type.String({ format: 'uri' }))),
    require_mfa: optional(Type.Boolean(), {
      description:
        'Every sign-in for this client needs a second factor (TOTP or a recovery code); the ID token then ' +
        'has `acr` `urn:portcullis:mfa` and `amr` with `mfa`. Also accepted as registration metadata',
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
  },
  { additionalProperties: false },
);

const accountSchema = Type.Object(
  {
    id: maybe(Type.String({ minLength: 1, maxLength: 255 })),
    email: Type.String({ format: 'email' }),
    password: maybe(Type.String({ minLength: SEED_PASSWORD_LENGTH.min, maxLength: SEED_PASSWORD_LENGTH.max })),
    passwordHash: maybe(
      Type.String({
        pattern: PASSWORD_HASH_PATTERN,
        errorMessages: {
          pattern:
            'must be a hash made by `npx portcullis hash-password` (scrypt$N$r$p$salt$key, base64url parts; ' +
            'lib/core/password-hash.ts)',
        },
      }),
    ),
    email_verified: maybe(Type.Boolean()),
    roles: maybe(Type.Array(Type.String())),
    claims: maybe(Type.Unsafe<Record<string, unknown>>({ type: 'object' })),
  },
  {
    additionalProperties: false,
    // Exactly one of password and passwordHash: without passwordHash, password is required; never both.
    // (`properties: {}` entries: ajv's strictRequired wants each required property declared beside it.)
    if: { not: { properties: { passwordHash: {} }, required: ['passwordHash'] } },
    then: { properties: { password: {} }, required: ['password'] },
    not: { properties: { password: {}, passwordHash: {} }, required: ['password', 'passwordHash'] },
    errorMessages: { not: 'has both password and passwordHash: keep one' },
  },
);

const scopeSchema = Type.Object(
  {
    description: Type.String({ minLength: 1 }),
    requiresRole: maybe(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

/** The schema of `PortcullisConfig`, the configuration of `createServer`. Unknown keys are rejected. */
export const ConfigSchema = Type.Object(
  {
    issuer: required(
      Type.String({
        format: 'uri',
        pattern: '^https?://',
        not: { pattern: '[?#]' },
        // What the configuration error says for each failed keyword (lib/config/schema-errors.ts), instead of ajv's
        // words.
        errorMessages: {
          format: 'must be an absolute URL such as https://id.example.com',
          pattern: 'must start with https:// (or http:// in development)',
          not: 'must have no query ("?") or fragment ("#") (OpenID Connect Discovery 1.0 §3, RFC 8414 §2)',
        },
      }),
      {
        defaultText: '(required)',
        description:
          'Issuer identifier; absolute http(s) URL without query, fragment or trailing `/` (`https://host`, ' +
          'not `https://host/`: tokens carry it as written and relying parties compare it exactly). ' +
          'Endpoints, pages and cookies hang off it: with a path (`https://host/auth`) everything is served ' +
          "under `/auth`, plus RFC 8414's `/.well-known/oauth-authorization-server/auth`",
        security: 'https required in production',
        see: 'OIDC Discovery §3, §4.3; RFC 8414 §2',
      },
    ),
    clients: withDefault(Type.Array(clientSchema), [], {
      description:
        'Statically registered clients (client metadata, `redirect_uris` matched exactly). The `client_id` ' +
        "`portcullis-account` is reserved (the account page's own client)",
      security: 'each client is validated at start-up against the registration policy; an invalid one stops the server',
      see: 'RFC 7591 §2',
    }),
    accounts: withDefault(Type.Array(accountSchema), [], {
      description:
        'Seed accounts, written to the storage at start-up: `{ id?, email, password | passwordHash, ' +
        'email_verified?, roles?, claims? }`, exactly one of `password` (clear text) and `passwordHash` (from ' +
        '`npx portcullis hash-password`, scrypt)',
      security:
        'passwords hashed with scrypt at start-up, never kept in clear; `passwordHash` keeps clear text out of ' +
        'the configuration; with NODE_ENV=production a `passwordHash` cheaper than N=2^15, r=8, p=1 is refused',
      see: 'OIDC Core §5.1',
    }),
    accountStore: optional(Type.Unsafe<AccountStore>({ type: 'object' }), {
      defaultText: 'in-memory store',
      description: 'Your own `AccountStore`; replaces the in-memory store seeded from `accounts`',
    }),
    scopes: withDefault(
      Type.Unsafe<Record<string, Static<typeof scopeSchema>>>({
        type: 'object',
        propertyNames: { pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' },
        additionalProperties: scopeSchema,
      }),
      {},
      {
        description:
          'Extra scopes: `{ name: { description, requiresRole? } }`; the description is the consent-page ' +
          'wording. Unknown scopes are ignored',
        security:
          '`requiresRole` keeps a scope out of consent and out of every token issued while the account lacks ' +
          'the role (code exchange and refresh included: checked at each issuance, not only at consent); ' +
          'tokens issued before a role is removed keep it until they expire',
        see: 'RFC 6749 §3.3',
      },
    ),
    ttl: section('Lifetimes, in seconds', {
      authorizationCode: withDefault(seconds({ maximum: 600 }), 60, {
        unit: 'seconds',
        description: 'Authorization code lifetime (max 600)',
        see: 'RFC 6749 §4.1.2',
      }),
      accessToken: withDefault(seconds(), 3600, {
        unit: 'seconds',
        description: 'Access token lifetime (`expires_in`)',
        see: 'RFC 6749 §5.1',
      }),
      idToken: withDefault(seconds(), 3600, { unit: 'seconds', description: 'ID token lifetime', see: 'OIDC Core §2' }),
      refreshToken: withDefault(seconds(), DAYS_14, {
        unit: 'seconds',
        defaultText: '(14 days)',
        description: 'Refresh token lifetime; rotated on every use, reuse revokes the grant',
        see: 'RFC 9700 §4.14',
      }),
      interaction: withDefault(seconds(), 3600, { unit: 'seconds', description: 'Login/consent interaction lifetime' }),
      session: withDefault(seconds(), DAYS_14, {
        unit: 'seconds',
        defaultText: '(14 days)',
        description: 'Browser session lifetime at the provider',
      }),
      grant: withDefault(seconds(), DAYS_14, {
        unit: 'seconds',
        defaultText: '(14 days)',
        description: "Grant (one session's consent record) lifetime",
      }),
    }),
    keys: section('Signing and cookie keys', {
      // The key set's shape (privateJwksSchema) is checked by loadConfig, as for a file, with a message that says what
      // is wrong.
      signing: optional(
        Type.Unsafe<PrivateJwks | string>({ anyOf: [{ type: 'string', minLength: 1 }, { type: 'object' }] }),
        {
          defaultText: 'ephemeral RS256+ES256+EdDSA (development)',
          description:
            'Private JWKS, or the path of a JSON file holding one, that signs ID tokens; per algorithm the ' +
            'first key signs, later ones still verify (rotation: put the new key first)',
          security: 'required in production; keep it secret; `npx portcullis keys` generates one',
          see: 'RFC 7517',
        },
      ),
      cookies: optional(Type.Array(Type.String({ minLength: 32 }), { minItems: 1 }), {
        defaultText: 'random (development)',
        description: 'Secrets for signed cookies, newest first (≥ 32 characters)',
        security: 'required in production; share them between instances',
      }),
    }),
    ...registrationOptions,
    outboundFetch: section(
      'The guarded fetcher used for every URL the server dereferences (`jwks_uri`, `sector_identifier_uri`)',
      {
        allowedOrigins: withDefault(Type.Array(Type.String({ format: 'uri', pattern: '^https?://[^/?#]+/?$' })), [], {
          description:
            'Origins (`scheme://host[:port]`) the server may fetch despite the https-only and public-address ' +
            'rules (e.g. an internal JWKS host)',
          security: 'each entry re-opens server-side requests to that origin',
          see: 'SPEC rule 8',
        }),
        timeoutMs: withDefault(Type.Integer({ minimum: 1, maximum: 60_000 }), 2500, {
          unit: 'milliseconds',
          description: 'Time-out of one outbound request, connection to last body byte',
        }),
        maxResponseBytes: withDefault(Type.Integer({ minimum: 1, maximum: 16 * 1024 * 1024 }), 512 * 1024, {
          unit: 'bytes',
          defaultText: '(512 KiB)',
          description: 'Largest outbound response body accepted',
        }),
      },
    ),
    rateLimits: section('Per-IP rate limits of the provider endpoints', {
      clientAuthFailures: limit(30, 60, {
        description:
          'Failed client authentications per IP at the token, introspection, revocation and pushed ' +
          'authorization request endpoints, counted together; then `429` with `Retry-After` at all four',
        security: 'slows client secret guessing',
        see: 'RFC 6749 §5.2',
      }),
      registrations: limit(100, 60, {
        description: 'Registration attempts per IP at `POST /registration`; then `429` with `Retry-After`',
        see: 'RFC 7591',
      }),
    }),
    ...graphqlOptions,
    storage: section('Where codes, tokens, sessions, grants, consent and counters live', {
      type: withDefault(oneOf(['memory', 'redis', 'custom'] as const), 'memory', {
        description:
          'Storage of codes, tokens, sessions, grants, remembered consent and rate-limit counters: `memory` ' +
          '(one process), `redis`, or `custom` (your own `Storage` as `instance`)',
        security: 'production refuses an unset type: choose `redis`, or `memory` explicitly for one instance',
      }),
      url: optional(Type.String({ pattern: '^rediss?://' }), {
        defaultText: 'unset',
        description:
          "Redis URL (`redis://[:password@]host:port[/db]`, `rediss://…`) for `type: 'redis'` (`REDIS_URL` " +
          'for the standalone server); exclusive with `client`',
      }),
      client: optional(Type.Unsafe<Redis | Cluster>({ type: 'object' }), {
        defaultText: 'unset',
        description: 'An ioredis client you own (single node, Sentinel or `Cluster`) instead of `url`',
      }),
      instance: optional(Type.Unsafe<Storage>({ type: 'object' }), {
        defaultText: 'unset',
        description:
          'Your own `Storage` (the contract in `lib/core/storage.ts`: adapters, `ping`, `close`, ' +
          "`accountStore`, `limiterBackend`) for `type: 'custom'`; you own it: `close()` leaves it open",
      }),
      keyPrefix: withDefault(Type.String({ maxLength: 100 }), 'portcullis:', {
        description: 'Prefix of every Redis key',
      }),
      maxEntries: withDefault(Type.Integer({ minimum: 0 }), 0, {
        defaultText: '(unbounded)',
        description: 'Bound on memory entries: when full, new writes get 503 instead of evicting live data',
      }),
    }),
    proxy: withDefault(Type.Boolean(), false, {
      description:
        'Trust `X-Forwarded-For`/`-Proto`/`-Host` from a reverse proxy: client IP, protocol and the host ' +
        'checked against the issuer; emitted URLs always come from `issuer`',
      security:
        'only behind a proxy that sets them; with an https issuer in production, plain-http requests are ' +
        'refused until it is set behind a TLS proxy',
    }),
    proxyHops: withDefault(Type.Integer({ minimum: 1, maximum: 20 }), 1, {
      description:
        'With `proxy`: how many reverse proxies in front of the server append to `X-Forwarded-For` (and ' +
        "`-Proto`, `-Host`). The client IP, the protocol and the host checked are each header's entry that " +
        'many from the right; entries further left came from the client and are ignored (Koa `maxIpsCount`). ' +
        'A proxy that overwrites a header leaves one entry, which is read',
      security:
        'too high and a client picks its own IP for every per-IP limit, and its own protocol and host past ' +
        'the plain-http and host checks; too low and every client shares the IP of a proxy, and the protocol ' +
        'read is that of the link between two proxies',
    }),
    allowedHosts: withDefault(
      Type.Array(Type.String({ minLength: 1, maxLength: 261 }), { maxItems: 50, uniqueItems: true }),
      [],
      {
        description:
          "`host[:port]` values accepted in `Host` besides the issuer's, written as a `Host` header carries " +
          'them (`id.example.com`, `id.example.com:8443`, `[::1]:3000`; a scheme, path or wildcard is ' +
          'refused at start-up); other hosts get `421`. Health endpoints answer under any host',
        security: 'emitted URLs still name the issuer, so discovery and links can never be poisoned through `Host`',
        see: 'RFC 9110 §7.4',
      },
    ),
    demo: withDefault(Type.Boolean(), false, { description: 'Marks demo fixtures', security: 'refused in production' }),
    ...selfServiceOptions,
    ...passkeysOptions,
    mail: section('Outgoing mail (nodemailer)', {
      from: withDefault(Type.String({ minLength: 3 }), 'Portcullis <no-reply@localhost>', {
        description: 'Sender of account mail',
      }),
      smtp: optional(
        Type.Unsafe<string | Record<string, unknown>>({
          anyOf: [{ type: 'string', pattern: '^smtps?://' }, { type: 'object' }],
        }),
        {
          defaultText: 'unset: development mailbox',
          description: 'SMTP for nodemailer: `smtp://user:pass@host:587`, `smtps://…` or an options object',
          security: 'without it production sends no mail and turns sign-up and reset off',
        },
      ),
      mailer: optional(Type.Unsafe<Mailer>({ type: 'object' }), {
        defaultText: 'unset: built from `smtp`',
        description:
          "Your own `Mailer` (`{ kind: 'custom', send(message) }`: a mail API, a queue); used instead of " +
          '`smtp` and the mailbox',
        security: 'counts as mail in production (sign-up and reset stay on)',
      }),
      mailbox: withDefault(Type.String({ minLength: 1 }), '.mailbox', {
        defaultText: '(or `PORTCULLIS_DEV_MAILBOX` when set)',
        description: 'Development only: each message is written there as an `.eml` file and its link is logged',
      }),
    }),
    accountLimits: section('Rate limits of the account pages; over a limit the page answers 429 with `Retry-After`', {
      loginPerAccount: limit(10, 900, {
        description:
          'Login attempts per e-mail address (known or not); success resets it; over it `429` + `Retry-After`',
        security: 'slows guessing; can lock an account for the window',
      }),
      loginPerIp: limit(100, 900, {
        description: 'Login attempts per client IP',
        security: 'slows spraying; set `proxy` behind a proxy so the client IP is used',
      }),
      mailPerAddress: limit(5, 3600, {
        description: 'Sign-up, resend, reset and change mails per e-mail address',
        security: 'keeps the server from flooding a mailbox',
      }),
      mailPerIp: limit(30, 3600, { description: 'Sign-ups, resends, reset and change requests per client IP' }),
      secondFactorPerAccount: limit(5, 900, {
        description:
          'Second-factor attempts (TOTP or recovery code) per account, at sign-in, step-up and enrolment; ' +
          'success resets it',
        security: 'a 6-digit code has 10⁶ values: 5 tries per 15 minutes keeps guessing hopeless',
        see: 'RFC 6238 §5.1',
      }),
      secondFactorPerIp: limit(50, 900, { description: 'Second-factor attempts per client IP' }),
    }),
    ...mfaOptions,
    openid: withDefault(Type.Boolean(), true, {
      description:
        'OpenID Connect on top of OAuth 2.0. `false` = OAuth-only mode: `scope=openid` gets `invalid_scope`, ' +
        'response types with `id_token` get `unsupported_response_type`, no userinfo endpoint, no ' +
        '`/.well-known/openid-configuration` (the RFC 8414 document stays, without OpenID members)',
      security: "clients may only be registered for `response_types: ['code']`",
      see: 'OIDC Core §3, RFC 8414 §3',
    }),
    implicitFlow: withDefault(Type.Boolean(), false, {
      description:
        'Offer the OpenID Connect implicit and hybrid response types (`id_token`, `id_token token`, `code ' +
        "id_token`) to clients registered for them. Off: only `response_types: ['code']`; a configured " +
        'client with another response type is a configuration error, registration refuses one ' +
        '(`invalid_client_metadata`) and the authorization endpoint answers `unsupported_response_type`',
      security:
        'tokens in the URL fragment (RFC 9700 §2.1.2 says not to use the implicit grant): use code + PKCE; ' +
        'turn on only for clients that cannot',
      see: 'OIDC Core §3.2, §3.3; RFC 9700 §2.1.2',
    }),
    webMessageResponseMode: withDefault(Type.Boolean(), false, {
      description: 'Accept `response_mode=web_message` (an experimental draft in oidc-provider)',
      security: 'off: answered `unsupported_response_mode`; redirect_uri is validated exactly the same either way',
      see: 'draft-sakimura-oauth-wmrm-01',
    }),
    ...brandingOptions,
    logger: optional(Type.Unsafe<Logger>({ type: 'object' }), {
      defaultText: 'pino to stdout',
      description:
        "A pino logger, or an object with pino's `info`, `warn`, `error` and `child(bindings, options)` " +
        '(returning such a logger; `console` has no `child` and is refused at start-up, before anything is ' +
        'logged); the default writes JSON lines at `LOG_LEVEL` (default `info`)',
      security: 'passwords, secrets, tokens, codes, `Authorization` and cookies are redacted',
    }),
  },
  { additionalProperties: false },
);

/** What a caller writes (every defaulted option optional). */
export type PortcullisConfigInput = Static<typeof ConfigSchema>;
/** What ajv leaves after validating with `useDefaults`: literal defaults filled in, derived ones not yet. */
export type ValidatedOptions = Resolve<typeof ConfigSchema, false>;
/** Every option with its default (literal or derived) applied. */
export type ResolvedOptions = Resolve<typeof ConfigSchema, true>;
