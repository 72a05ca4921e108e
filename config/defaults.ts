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
  openid: true,
  webMessageResponseMode: false,
  graphqlPath: '/graphql',
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
  { path: 'storage.type', default: 'memory', summary: 'Storage of codes, tokens, sessions and grants.' },
  { path: 'storage.maxEntries', default: '0 (unbounded)', summary: 'Bound on memory entries; when full new writes get 503 rather than evicting live data.' },
  { path: 'proxy', default: 'false', summary: 'Trust `X-Forwarded-*` headers from a reverse proxy.', security: 'Only enable behind a proxy that sets them.' },
  { path: 'demo', default: 'false', summary: 'Marks demo fixtures; refused with NODE_ENV=production.' },
  { path: 'openid', default: 'true', summary: 'OpenID Connect on top of OAuth 2.0. `false` (OAuth-only): `scope=openid` gets `invalid_scope`, `id_token` response types `unsupported_response_type`; no userinfo, no openid-configuration (RFC 8414 metadata stays).', see: 'OIDC Core §3, RFC 8414' },
  { path: 'webMessageResponseMode', default: 'false', summary: 'Accept `response_mode=web_message` (experimental draft in oidc-provider). Off: `unsupported_response_mode`.', security: 'redirect_uri is validated exactly as for the other modes either way.', see: 'draft-sakimura-oauth-wmrm-01' },
  { path: 'logger', default: 'pino to stdout', summary: 'A pino logger; the default writes JSON lines at `LOG_LEVEL` (default info) with secrets redacted.' },
]);
