import type Provider from 'oidc-provider';
import type { PrivateJwks } from '../../config/types.js';
import type { CsrfGuard } from '../http/csrf.js';
import type { TokenVerification } from './auth-context.js';
import { DpopReplayCache } from './dpop.js';
import type { LimiterBackend } from '../core/limiter.js';
import type { ResolvedGraphqlOptions } from './options.js';
import type { TransportOptions } from './transport.js';

const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'];

/** The public half of a private JWKS (RFC 7517 §5), as served at the jwks endpoint. */
export function publicJwks(keys: PrivateJwks): { keys: Array<Record<string, unknown>> } {
  return {
    keys: keys.keys.map((k) =>
      Object.fromEntries(Object.entries(k).filter(([name]) => !PRIVATE_JWK_MEMBERS.includes(name))),
    ),
  };
}

/** Transport guard options from the resolved `graphql` section. */
export function graphqlTransportOptions(options: ResolvedGraphqlOptions, csrf: CsrfGuard): TransportOptions {
  return {
    path: options.path,
    ...options.transports,
    maxBatchSize: options.maxBatchSize,
    corsOrigins: options.corsOrigins,
    csrf,
    onReject: options.onReject,
  };
}

/** How `/graphql` verifies access tokens: this issuer's keys, this API's resource, a DPoP `jti` cache. */
export function tokenVerification(
  provider: Provider,
  issuer: string,
  resource: string,
  signingKeys: PrivateJwks,
  limiterBackend?: LimiterBackend,
): TokenVerification {
  return {
    provider,
    issuer,
    resource,
    jwks: publicJwks(signingKeys) as TokenVerification['jwks'],
    replay: new DpopReplayCache(limiterBackend),
  };
}
