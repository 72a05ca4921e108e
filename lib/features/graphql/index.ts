import { ConfigError } from '../../core/errors.js';
import { BODY_LIMITS } from '../../http/body-limit.js';
import { isReservedPath, issuerPath } from '../../http/paths.js';
import type { Feature } from '../../kernel/types.js';
import { startApollo } from '../../graphql/apollo.js';
import { bearerAuth } from '../../graphql/bearer-auth.js';
import { CSRF_TOKEN_SUFFIX, graphqlTransportGuard } from '../../graphql/transport.js';
import { graphqlTransportOptions, tokenVerification } from '../../graphql/wiring.js';
import type { Services } from '../services.js';

/** `graphql.path` is absolute on the host; under the issuer's path it must not shadow a route of the server. */
function checkGraphqlPath(path: string, prefix: string): void {
  const under = prefix === '' ? path : path === prefix ? '/' : path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : undefined;
  if (under !== undefined && isReservedPath(under)) {
    throw new ConfigError('graphql.path', `${path} collides with an authorization server route under the issuer ${prefix ? `path ${prefix}` : 'root'}`);
  }
}

/**
 * The GraphQL API (`graphql` set) at `graphql.path` and its CSRF-token path, absolute on the host: the transport
 * guard, bearer (and DPoP) authentication against this server's tokens, the document gate and Apollo Server, as
 * lib/graphql builds them.
 */
export const graphql: Feature<Services['graphql']> = {
  id: 'graphql',
  enabled: (config) => Boolean(config.graphql),
  check: (config) => checkGraphqlPath(config.graphql!.path, issuerPath(config.issuer)),
  async setup({ config, kernel }) {
    const options = config.graphql!;
    const { issuer } = config;
    const { logger, limiterBackend } = kernel;
    const started = await startApollo(options, { issuer, logger, limiterBackend, knownScopes: kernel.scopes.all });
    return {
      services: { apollo: started.apollo },
      close: () => started.apollo.stop(),
      routes: (provider) => [{
        name: 'graphql', where: { absolute: [options.path, `${options.path}${CSRF_TOKEN_SUFFIX}`] }, bodyLimit: BODY_LIMITS.graphql,
        chain: [
          ...graphqlTransportGuard(graphqlTransportOptions(started.options, kernel.csrf.under(options.path))),
          bearerAuth(tokenVerification(provider, issuer, started.options.resource, kernel.signingKeys, limiterBackend)),
          started.gate,
          started.middleware,
        ],
      }],
    };
  },
};
