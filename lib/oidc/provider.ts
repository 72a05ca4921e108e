import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { SCOPE_CLAIMS } from '../../config/defaults.js';
import type { AdapterFactory, Storage } from '../core/storage.js';
import type { AccountStore } from '../core/account-store.js';
import { ConfigError } from '../core/errors.js';
import type { PrivateJwks, ResolvedConfig } from '../../config/types.js';
import { setPageSecurityHeaders } from '../http/security-headers.js';
import { retryAfterOnOutages, throughProviderBoundary } from './storage-outage.js';
import type { ConsentStore } from './consent-store.js';
import type { ScopePolicy } from './scope-policy.js';
import { errorPage } from '../http/pages.js';
import { useUiLocales } from '../ui/ui.js';
import { issuerPath, PROVIDER_ROUTES, providerPreMiddleware } from '../http/routes.js';
import type { ProviderContribution } from '../core/feature.js';
import { ACR_VALUES } from '../accounts/mfa/policy.js';
import { interactionPolicyOf } from './login-hint.js';
import { ACCOUNT_CLIENT_ID } from '../accounts/account-home.js';
import { HOME_PATHS } from '../accounts/paths.js';
import { clientKeysFetch } from './client-jwks.js';
import type { LimiterBackend } from '../core/limiter.js';
import { enabledJwa, registrationPolicy } from './registration-policy.js';
import { clientOriginAllowed } from './client-cors.js';
import {
  accountFinder,
  accountLookup,
  existingGrantLoader,
  prefetchingAdapter,
  type AccountLookup,
} from './provider-accounts.js';
import { refuseOpenidScope } from './authorization-rules.js';
import { codeExchangeScopeAdapter } from './token-grant-rules.js';
import { errorPageDescription } from './error-descriptions.js';
import { checkedSignIns, type CredentialsChangedAt } from './stale-sign-in.js';
import { LOCALES } from '../ui/i18n.js';
import { OFFLINE_MARKER } from './offline-access.js';
import { portcullisPreMiddleware } from './pre-middleware.js';
import { providerFeatures } from './provider-features.js';
import { providerCookies } from './session-cookie.js';

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
  /**
   * When an account's password or address last changed: a sign-in checked before then is not resumed
   * (stale-sign-in.ts).
   */
  credentialsChangedAt?: CredentialsChangedAt;
}

/** Whether `POST /registration` is on (`registration.enabled`, which defaults to whether a token is configured). */
export function registrationEnabled(config: ResolvedConfig): boolean {
  return config.registration.enabled;
}

/** Client metadata for oidc-provider: Portcullis extensions removed. */
function clientMetadata(config: ResolvedConfig) {
  return config.clients.map(({ pkce_optional: _omit, ...metadata }) => metadata);
}

/** The configured clients, plus the first-party client through which `/account` signs a browser in. */
function providerClients(config: ResolvedConfig): Configuration['clients'] {
  return [
    ...clientMetadata(config),
    {
      client_id: ACCOUNT_CLIENT_ID,
      client_name: 'Your account',
      token_endpoint_auth_method: 'none',
      redirect_uris: [`${config.issuer}${HOME_PATHS.callback}`],
      response_types: ['code'],
      grant_types: ['authorization_code'],
    },
  ] as Configuration['clients'];
}

/**
 * The adapter factory oidc-provider gets: the storage's (or `deps.adapter`), wrapped by the features' wrappers
 * (innermost first), then by Portcullis' own: account prefetching, the stale sign-in check when
 * `credentialsChangedAt` is given, and the code exchange's scope check (outermost).
 */
function providerAdapter(deps: ProviderDeps, accounts: AccountLookup): AdapterFactory {
  const wrapped = (deps.contributions ?? []).reduce(
    (factory, part) => part.wrapAdapter?.(factory) ?? factory,
    deps.adapter ?? deps.storage.adapter,
  );
  const prefetching = prefetchingAdapter(wrapped, accounts);
  return codeExchangeScopeAdapter(
    deps.credentialsChangedAt ? checkedSignIns(prefetching, deps.credentialsChangedAt) : prefetching,
  );
}

/**
 * Builds the oidc-provider configuration. Everything oidc-provider does itself (protocol, token formats,
 * redirect_uri matching, PKCE) stays with it; this function only chooses secure settings and wires our stores.
 */
export function providerConfiguration(deps: ProviderDeps): Configuration {
  const { config, consents, scopes } = deps;
  const accounts = accountLookup(deps.accounts, consents);
  const adapter = providerAdapter(deps, accounts);
  const pkceOptional = new Set(config.clients.filter((c) => c.pkce_optional).map((c) => c.client_id));
  // Under an issuer with a path, every URL and cookie of ours is under that path (lib/http/routes.ts).
  const prefix = issuerPath(config.issuer);

  return {
    adapter: adapter as unknown as Configuration['adapter'],
    clients: providerClients(config),
    jwks: deps.signingKeys as Configuration['jwks'],
    cookies: providerCookies(config.issuer, deps.cookieKeys),
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
    responseTypes:
      config.openid && config.implicitFlow ? ['code', 'id_token', 'id_token token', 'code id_token'] : ['code'],
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
    features: providerFeatures(config, scopes, deps.signingKeys),
    enabledJWA: enabledJwa(),
    extraParams: { [OFFLINE_MARKER]: config.openid ? null : refuseOpenidScope },
    extraClientMetadata: registrationPolicy({
      production: config.production,
      allowedFetchOrigins: config.outboundFetch.allowedOrigins,
    }),
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
  if (out && out.iss === undefined && !String(ctx.oidc.responseMode ?? '').includes('jwt'))
    out.iss = ctx.oidc.provider.issuer;
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
  const before = (deps.contributions ?? []).flatMap((part) => part.before ?? []);
  provider.use(
    providerPreMiddleware(portcullisPreMiddleware(provider, deps.config, deps.limiterBackend), before) as never,
  );
  for (const part of deps.contributions ?? []) {
    for (const [event, listener] of Object.entries(part.on ?? {})) provider.on(event as never, listener as never);
  }
  await validateClients(provider, deps.config);
  return provider;
}

/**
 * Validates every configured client's metadata with the provider's own checks, at start-up rather than on the
 * client's first request.
 *
 * @throws ConfigError naming `clients[i]`, with the provider's description and, for an implicit or hybrid response
 *   type without `implicitFlow`, what to set.
 */
async function validateClients(provider: Provider, config: ResolvedConfig): Promise<void> {
  for (const [i, metadata] of clientMetadata(config).entries()) {
    try {
      await provider.Client.validate(metadata as never);
    } catch (err) {
      const e = err as { error_description?: string; message: string };
      const types = (metadata as { response_types?: string[] }).response_types ?? [];
      const hint =
        config.openid && !config.implicitFlow && types.some((t) => t !== 'code')
          ? ` (implicit and hybrid response types need implicitFlow: true; prefer code + PKCE)`
          : '';
      throw new ConfigError(
        `clients[${i}]`,
        `client ${JSON.stringify(metadata.client_id)}: ${e.error_description ?? e.message}${hint}`,
      );
    }
  }
}
