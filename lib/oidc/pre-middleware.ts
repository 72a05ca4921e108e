/**
 * Portcullis' pre-middleware of oidc-provider's endpoints, by name ({@link ProviderPreMiddleware}; the table of
 * lib/http/provider-routes.ts says which endpoint runs which): storage outages, rate limits, the authorization
 * endpoint's corrections and refusals, error descriptions, token replay and page headers.
 */
import type Provider from 'oidc-provider';
import type { ResolvedConfig } from '../../config/types.js';
import type { LimiterBackend } from '../core/limiter.js';
import { answerUnservedEndpoint } from '../http/error-handler.js';
import { CLIENT_AUTH_ENDPOINTS, PROVIDER_ROUTES, type ProviderPreMiddleware } from '../http/routes.js';
import { providerPageHeaders } from '../http/security-headers.js';
import { postedAuthorization, refuseProviderInput } from './authorization-post.js';
import { explainPlainTokenResponseType, inactiveStructuredTokens, oauthOnlyDiscovery } from './authorization-rules.js';
import { endpointRateLimits } from './endpoint-limits.js';
import { describeUndescribedErrors, explainAuthorizationHeader } from './error-descriptions.js';
import { nameClientAfterLogout } from './logout-pages.js';
import { allowOfflineAccessWithoutPromptConsent } from './offline-access.js';
import { answerStorageOutages } from './storage-outage.js';
import { revokeOnCodeReplay } from './token-grant-rules.js';

/**
 * The pre-middleware of `provider`'s endpoints for `config`; the endpoint rate limits count in `limiterBackend`
 * (in memory when absent).
 */
export function portcullisPreMiddleware(
  provider: Provider,
  config: ResolvedConfig,
  limiterBackend: LimiterBackend | undefined,
): ProviderPreMiddleware {
  return {
    answerStorageOutages: answerStorageOutages as never,
    endpointRateLimits: endpointRateLimits(config.rateLimits, limiterBackend, {
      clientAuth: [...CLIENT_AUTH_ENDPOINTS],
      registration: PROVIDER_ROUTES.registration,
    }) as never,
    offlineAccessPrompt: allowOfflineAccessWithoutPromptConsent(PROVIDER_ROUTES.authorization) as never,
    explainPlainTokenResponseType: explainPlainTokenResponseType(PROVIDER_ROUTES.authorization) as never,
    describeErrors: describeUndescribedErrors as never,
    revokeOnCodeReplay: revokeOnCodeReplay(provider, PROVIDER_ROUTES.token) as never,
    inactiveStructuredTokens: inactiveStructuredTokens as never,
    oauthOnlyDiscovery: config.openid ? undefined : (oauthOnlyDiscovery() as never),
    pageHeaders: providerPageHeaders as never,
    nameClientAfterLogout: nameClientAfterLogout as never,
    explainAuthorizationHeader: explainAuthorizationHeader as never,
    answerUnservedEndpoint: answerUnservedEndpoint as never,
    postedAuthorization: postedAuthorization(config.issuer) as never,
    refuseInput: refuseProviderInput,
  };
}
