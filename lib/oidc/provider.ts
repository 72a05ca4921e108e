import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { SCOPE_CLAIMS } from '../../config/defaults.js';
import type { AdapterFactory, Storage } from '../core/storage.js';
import type { AccountStore } from '../core/account-store.js';
import { ConfigError } from '../core/errors.js';
import type { PrivateJwks, ResolvedConfig } from '../../config/types.js';
import { providerPageHeaders, setPageSecurityHeaders } from '../http/security-headers.js';
import { answerUnservedEndpoint } from '../http/error-handler.js';
import { answerStorageOutages, retryAfterOnOutages, throughProviderBoundary } from './storage-outage.js';
import type { ConsentStore } from './consent-store.js';
import type { ScopePolicy } from './scope-policy.js';
import { logoutSource, nameClientAfterLogout, postLogoutSuccessSource } from './logout-pages.js';
import { errorPage } from '../http/pages.js';
import { useUiLocales } from '../ui/ui.js';
import { CLIENT_AUTH_ENDPOINTS, issuerPath, PROVIDER_ROUTES, providerPreMiddleware } from '../http/routes.js';
import type { ProviderContribution } from '../core/feature.js';
import { ACR_VALUES } from '../accounts/mfa/policy.js';
import { interactionPolicyOf } from './login-hint.js';
import { ACCOUNT_CLIENT_ID } from '../accounts/account-home.js';
import { HOME_PATHS } from '../accounts/paths.js';
import { clientKeysFetch } from './client-jwks.js';
import { endpointRateLimits } from './endpoint-limits.js';
import type { LimiterBackend } from '../core/limiter.js';
import { enabledJwa, registrationPolicy } from './registration-policy.js';
import { resourceIndicators } from './resource-server.js';
import { clientOriginAllowed } from './client-cors.js';
import { accountFinder, accountLookup, existingGrantLoader, prefetchingAdapter } from './provider-accounts.js';
import { explainPlainTokenResponseType, oauthOnlyDiscovery, refuseOpenidScope, codeExchangeScopeAdapter, revokeOnCodeReplay, inactiveStructuredTokens } from './authorization-rules.js';
import { describeUndescribedErrors, errorPageDescription, explainAuthorizationHeader } from './error-descriptions.js';
import { checkedSignIns, type CredentialsChangedAt } from './stale-sign-in.js';
import { postedAuthorization, refuseProviderInput } from './authorization-post.js';
import { LOCALES } from '../ui/i18n.js';

export interface ProviderDeps {
  config: ResolvedConfig;
  storage: Storage;
  accounts: AccountStore;
  consents: ConsentStore;
  scopes: ScopePolicy;
  signingKeys: PrivateJwks;
  cookieKeys: string[];
  /** Backend of the endpoint rate limits (Redis counters when storage is Redis). */
  limiterBackend?: LimiterBackend;
  /** The adapter factory for oidc-provider's models, before the features' wrappers. @default storage.adapter */
  adapter?: AdapterFactory;
  /**
   * What the features add, in their order (lib/core/feature.ts): configuration changes, adapter wrappers (innermost
   * first, inside Portcullis' own), pre-middleware per endpoint (after Portcullis' own) and event listeners.
   */
  contributions?: readonly ProviderContribution[];
  /** When an account's password or address last changed: a sign-in checked before then is not resumed (stale-sign-in.ts). */
  credentialsChangedAt?: CredentialsChangedAt;
}

/** Whether `POST /registration` is on (`registration.enabled`, which defaults to whether a token is configured). */
export function registrationEnabled(config: ResolvedConfig): boolean {
  return config.registration.enabled;
}

/**
 * The introspection and revocation `allowedPolicy`: whether the token was issued to the authenticated caller.
 * Explicit for revocation too: oidc-provider's default answers a confidential client presenting another client's
 * live token `400 invalid_request` (while an unknown token gets 200, so the answer told live tokens from dead
 * ones) and prints a console NOTICE on first use.
 */
async function issuedToCaller(_ctx: KoaContextWithOIDC, client: { clientId: string }, token: { clientId?: string }): Promise<boolean> {
  return token.clientId === client.clientId;
}

/** Client metadata for oidc-provider: Portcullis extensions removed. */
function clientMetadata(config: ResolvedConfig) {
  return config.clients.map(({ pkce_optional: _omit, ...metadata }) => metadata);
}

/** oidc-provider's `features`: what is on, and with which of our policies. */
function providerFeatures(deps: ProviderDeps): Configuration['features'] {
  const { config, scopes } = deps;
  return {
    devInteractions: { enabled: false },
    // Dynamic registration: the registration feature turns it on (lib/features/registration).
    registration: { enabled: false },
    registrationManagement: { enabled: false, rotateRegistrationAccessToken: true },
    // RFC 7662 §2.2 / RFC 7009 §2.2: a client may introspect or revoke only tokens issued to itself; another
    // client's token is answered as an unknown one (`active: false`; revocation 200 and the token left alive).
    introspection: { enabled: true, allowedPolicy: issuedToCaller },
    revocation: { enabled: true, allowedPolicy: issuedToCaller },
    // Encrypted userinfo (OIDC Registration §2 userinfo_encrypted_response_*); RSA1_5 is refused by the policy.
    encryption: { enabled: true },
    jwtUserinfo: { enabled: config.openid },
    userinfo: { enabled: config.openid },
    rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource },
    resourceIndicators: resourceIndicators(config, scopes.all, deps.signingKeys),
    // RFC 9101 request objects by value; oidc-provider applies RFC 9101 §5 (outer parameters ignored).
    requestObjects: { enabled: true },
    webMessageResponseMode: config.webMessageResponseMode ? { enabled: true, ack: 'individual-draft-01' } : { enabled: false },
  };
}

/** The browser session cookie's name on an https issuer at a host's root (see {@link sessionCookieName}). */
export const SESSION_COOKIE_SECURE = '__Host-portcullis.session';

/**
 * The name of oidc-provider's browser session cookie (`cookies.names.session`). On an https issuer at a host's root
 * it is {@link SESSION_COOKIE_SECURE}: the `__Host-` prefix (RFC 6265bis §4.1.3.2) makes browsers accept it only
 * with `Secure`, `Path=/` and no `Domain` from this very host, so a sibling host (`evil.example.com` beside
 * `id.example.com`) cannot plant its own session into the victim's browser (login CSRF, session fixation).
 * Elsewhere oidc-provider's `_session`: a path issuer's cookies have `Path=` the issuer's path, which the prefix
 * does not allow, and a plain-http issuer's are not `Secure`.
 */
export function sessionCookieName(issuer: string): string {
  const url = new URL(issuer);
  return url.protocol === 'https:' && issuerPath(issuer) === '' ? SESSION_COOKIE_SECURE : '_session';
}

/**
 * Builds the oidc-provider configuration. Everything oidc-provider does itself (protocol, token formats,
 * redirect_uri matching, PKCE) stays with it; this function only chooses secure settings and wires our stores.
 */
export function providerConfiguration(deps: ProviderDeps): Configuration {
  const { config, storage, consents, scopes } = deps;
  const accounts = accountLookup(deps.accounts, consents);
  const wrapped = (deps.contributions ?? []).reduce((factory, part) => part.wrapAdapter?.(factory) ?? factory, deps.adapter ?? storage.adapter);
  const prefetching = prefetchingAdapter(wrapped, accounts);
  const adapter = codeExchangeScopeAdapter(deps.credentialsChangedAt ? checkedSignIns(prefetching, deps.credentialsChangedAt) : prefetching);
  const pkceOptional = new Set(config.clients.filter((c) => c.pkce_optional).map((c) => c.client_id));
  // Under an issuer with a path, every URL and cookie of ours is under that path (lib/http/routes.ts).
  const prefix = issuerPath(config.issuer);

  return {
    adapter: adapter as unknown as Configuration['adapter'],
    // Configured clients, plus the first-party client through which `/account` signs a browser in.
    clients: [...clientMetadata(config), {
      client_id: ACCOUNT_CLIENT_ID, client_name: 'Your account', token_endpoint_auth_method: 'none',
      redirect_uris: [`${config.issuer}${HOME_PATHS.callback}`], response_types: ['code'], grant_types: ['authorization_code'],
    }] as Configuration['clients'],
    jwks: deps.signingKeys as Configuration['jwks'],
    cookies: {
      keys: deps.cookieKeys,
      long: { httpOnly: true, sameSite: 'lax', signed: true, path: prefix || '/' },
      short: { httpOnly: true, sameSite: 'lax', signed: true, path: prefix || '/' },
      names: { session: sessionCookieName(config.issuer) },
    },
    routes: PROVIDER_ROUTES,
    // OpenID Connect Discovery §3: the languages of the pages and mails (`ui_locales`). Claims are not localised.
    discovery: { ui_locales_supported: [...LOCALES] },
    scopes: scopes.all,
    // acr (OIDC Core §2) and amr (RFC 8176) of the sign-in go into ID tokens: what the login result set.
    claims: { ...SCOPE_CLAIMS, sid: null, iss: null, acr: null, amr: null, auth_time: null } as Configuration['claims'],
    acrValues: [...ACR_VALUES],
    // The spec puts the claims of the granted scopes in the ID token too (OIDC Core §5.4 allows it when no
    // access token is issued; we release them always, filtered by scope, as the spec describes).
    conformIdTokenClaims: false,
    // SPEC rule 1: redirect_uri is validated on every authorization request, never inferred.
    allowOmittingSingleRegisteredRedirectUri: false,
    // Implicit and hybrid only as a deployment's explicit choice (`implicitFlow`), and only with OpenID Connect.
    responseTypes: config.openid && config.implicitFlow ? ['code', 'id_token', 'id_token token', 'code id_token'] : ['code'],
    pkce: {
      // RFC 9700 §2.1.1: PKCE for every client; confidential clients may be exempted one by one.
      required: (_ctx, client) => client.clientAuthMethod === 'none' || !pkceOptional.has(client.clientId),
    },
    ttl: {
      AuthorizationCode: config.ttl.authorizationCode,
      AccessToken: config.ttl.accessToken,
      IdToken: config.ttl.idToken,
      RefreshToken: config.ttl.refreshToken,
      Interaction: config.ttl.interaction,
      Session: config.ttl.session,
      Grant: config.ttl.grant,
    },
    rotateRefreshToken: true,
    features: providerFeatures(deps),
    enabledJWA: enabledJwa(),
    extraParams: { [OFFLINE_MARKER]: config.openid ? null : refuseOpenidScope },
    extraClientMetadata: registrationPolicy({ production: config.production, allowedFetchOrigins: config.outboundFetch.allowedOrigins }),
    fetch: clientKeysFetch(config.outboundFetch) as Configuration['fetch'],
    interactions: {
      // oidc-provider's prompts, plus the login_hint check (login-hint.ts) and, with mfa on, the step-up check
      // of the MFA policy (lib/accounts/mfa/policy.ts).
      policy: interactionPolicyOf(accounts, config.mfa.enabled),
      url: (_ctx, interaction) => `${prefix}/interaction/${interaction.uid}`,
    },
    findAccount: accountFinder(accounts, scopes),
    loadExistingGrant: existingGrantLoader(accounts, consents, scopes),
    renderError,
    clientBasedCORS: (_ctx, origin, client) => clientOriginAllowed(origin, client),
  };
}

/**
 * oidc-provider's `renderError`: errors that cannot go back to a validated redirect_uri (RFC 6749 §4.1.2.1) get a
 * page (with a description, also where oidc-provider has none), never a redirect. An unknown client at the
 * authorization endpoint is a bad request of the browser, not HTTP authentication (400, not 401).
 */
const renderError: Configuration['renderError'] = async (ctx, out) => {
  if (ctx.status === 401 && ['authorization', 'resume'].includes(ctx.oidc?.route ?? '')) ctx.status = 400;
  const nonce = setPageSecurityHeaders(ctx as never);
  ctx.type = 'html';
  const ui = useUiLocales(ctx as never, (ctx.oidc?.params as { ui_locales?: unknown } | undefined)?.ui_locales);
  ctx.body = errorPage(nonce, String(out.error), errorPageDescription(ctx, out), { ui });
};

/**
 * RFC 9207 §2: every authorization response carries `iss`. oidc-provider adds it to error responses and to
 * successful ones without an ID token, but leaves it out when an `id_token` is in the response (implicit and
 * hybrid), counting on the token's `iss` claim; a client that checks the parameter (RFC 9207 §2.4) before it
 * parses the token would then refuse the response. The `authorization.success` event receives the very
 * object that is then encoded into the redirect, form or web message, synchronously, so setting `iss` there
 * puts it into every mode. JWT response modes (JARM, not enabled here) carry `iss` inside the JWT instead.
 */
function issuerInEveryResponse(ctx: KoaContextWithOIDC, out?: Record<string, unknown>): void {
  if (out && out.iss === undefined && !String(ctx.oidc.responseMode ?? '').includes('jwt')) out.iss = ctx.oidc.provider.issuer;
}

/** Internal marker of {@link allowOfflineAccessWithoutPromptConsent}; never taken from the client. */
export const OFFLINE_MARKER = 'portcullis_offline';

/**
 * oidc-provider drops `offline_access` unless `prompt=consent` is present (OIDC Core §11 allows "other
 * conditions ... permitting offline access"). For a code request that asks for `offline_access` without any
 * `prompt`, we add `prompt=consent` plus a marker, and the consent step then skips its page when the user's
 * remembered consent already covers every requested scope. A client that sends `prompt` itself is untouched.
 */
function allowOfflineAccessWithoutPromptConsent(authorizationPath: string) {
  return async function offlineAccessPrompt(ctx: { path: string; method: string; query: Record<string, unknown>; querystring: string }, next: () => Promise<unknown>) {
    if (ctx.method === 'GET' && ctx.path === authorizationPath) {
      const params = new URLSearchParams(ctx.querystring);
      params.delete(OFFLINE_MARKER);
      const scope = params.get('scope')?.split(' ') ?? [];
      if (scope.includes('offline_access') && !params.has('prompt') && params.get('response_type')?.split(' ').includes('code')) {
        params.set('prompt', 'consent');
        params.set(OFFLINE_MARKER, '1');
      }
      ctx.querystring = params.toString();
    }
    return next();
  };
}

/**
 * Creates the oidc-provider instance and validates every configured client up front (oidc-provider validates
 * static clients lazily, on first use).
 *
 * @throws the provider's `InvalidClientMetadata` naming the client when one is invalid.
 */
export async function createProvider(deps: ProviderDeps): Promise<Provider> {
  const configuration = providerConfiguration(deps);
  for (const part of deps.contributions ?? []) part.configure?.(configuration);
  const provider = new Provider(deps.config.issuer, throughProviderBoundary(configuration));
  provider.proxy = deps.config.proxy;
  // The client IP of its per-IP limits: the proxies' own entry of X-Forwarded-For, never one the client wrote.
  // (oidc-provider 9's Provider is its Koa application: `provider.app` is a deprecated alias.)
  (provider as unknown as { maxIpsCount: number }).maxIpsCount = deps.config.proxyHops;
  provider.on('authorization.success', issuerInEveryResponse);
  retryAfterOnOutages(provider as never);
  // One lookup per request picks the pre-middleware of its endpoint (lib/http/routes.ts).
  provider.use(providerPreMiddleware({
    answerStorageOutages: answerStorageOutages as never,
    endpointRateLimits: endpointRateLimits(deps.config.rateLimits, deps.limiterBackend, { clientAuth: [...CLIENT_AUTH_ENDPOINTS], registration: PROVIDER_ROUTES.registration }) as never,
    offlineAccessPrompt: allowOfflineAccessWithoutPromptConsent(PROVIDER_ROUTES.authorization) as never,
    explainPlainTokenResponseType: explainPlainTokenResponseType(PROVIDER_ROUTES.authorization) as never,
    describeErrors: describeUndescribedErrors as never,
    revokeOnCodeReplay: revokeOnCodeReplay(provider, PROVIDER_ROUTES.token) as never,
    inactiveStructuredTokens: inactiveStructuredTokens as never,
    oauthOnlyDiscovery: deps.config.openid ? undefined : oauthOnlyDiscovery() as never,
    pageHeaders: providerPageHeaders as never,
    nameClientAfterLogout: nameClientAfterLogout as never,
    explainAuthorizationHeader: explainAuthorizationHeader as never,
    answerUnservedEndpoint: answerUnservedEndpoint as never,
    postedAuthorization: postedAuthorization(deps.config.issuer) as never,
    refuseInput: refuseProviderInput,
  }, (deps.contributions ?? []).flatMap((part) => part.before ?? [])) as never);
  for (const part of deps.contributions ?? []) {
    for (const [event, listener] of Object.entries(part.on ?? {})) provider.on(event as never, listener as never);
  }
  for (const [i, metadata] of clientMetadata(deps.config).entries()) {
    try {
      await provider.Client.validate(metadata as never);
    } catch (err) {
      const e = err as { error_description?: string; message: string };
      const types = (metadata as { response_types?: string[] }).response_types ?? [];
      const hint = deps.config.openid && !deps.config.implicitFlow && types.some((t) => t !== 'code')
        ? ` (implicit and hybrid response types need implicitFlow: true; prefer code + PKCE)` : '';
      throw new ConfigError(`clients[${i}]`, `client ${JSON.stringify(metadata.client_id)}: ${e.error_description ?? e.message}${hint}`);
    }
  }
  return provider;
}
