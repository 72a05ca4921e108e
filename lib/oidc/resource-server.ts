import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import { errors } from 'oidc-provider';
import type { PrivateJwks, ResolvedConfig } from '../../config/types.js';

/** Scopes that concern the OpenID Provider itself, never a resource server's token. */
const PROVIDER_ONLY_SCOPES = new Set(['openid', 'offline_access']);

/**
 * `features.resourceIndicators` (RFC 8707) for the GraphQL API: a client that asks for
 * `resource=<graphql.resource>` gets a JWT access token (RFC 9068) with that audience, signed with the first
 * signing key, carrying the granted non-OpenID scopes; the API verifies it against the JWKS without a storage
 * lookup. Any other resource is `invalid_target`. Without a `resource` parameter tokens stay opaque (for
 * userinfo and the API alike). A granted resource is reused at the token endpoint when the client omits it.
 */
export function resourceIndicators(
  config: ResolvedConfig,
  allScopes: readonly string[],
  signingKeys: PrivateJwks,
): NonNullable<Configuration['features']>['resourceIndicators'] {
  if (!config.graphql) return { enabled: false };
  const resource = config.graphql.resource;
  const alg = String(signingKeys.keys[0]?.alg ?? 'RS256');
  const scope = allScopes.filter((s) => !PROVIDER_ONLY_SCOPES.has(s)).join(' ');
  return {
    enabled: true,
    useGrantedResource: async () => true,
    async getResourceServerInfo(_ctx: KoaContextWithOIDC, indicator: string) {
      if (indicator !== resource)
        throw new errors.InvalidTarget('this authorization server issues tokens only for its own GraphQL API');
      return {
        scope,
        audience: resource,
        accessTokenFormat: 'jwt',
        accessTokenTTL: config.ttl.accessToken,
        jwt: { sign: { alg } },
      };
    },
  } as NonNullable<Configuration['features']>['resourceIndicators'];
}
