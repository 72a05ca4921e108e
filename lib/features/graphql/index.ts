import type { ApolloServer } from '@apollo/server';
import { BODY_LIMITS } from '../../http/body-limit.js';
import type { Feature } from '../../kernel/types.js';
import { startApollo } from '../../graphql/apollo.js';
import type { GraphqlContext } from '../../graphql/auth-context.js';
import { bearerAuth } from '../../graphql/bearer-auth.js';
import { CSRF_TOKEN_SUFFIX, graphqlTransportGuard } from '../../graphql/transport.js';
import { graphqlTransportOptions, tokenVerification } from '../../graphql/wiring.js';
import type { Services } from '../services.js';
import { checkGraphql } from './checks.js';
import { graphqlOptions } from './options.js';

declare module '../services.js' {
  interface Services {
    /** `graphql` set: the Apollo Server (`server.apollo`). */
    graphql: { apollo: ApolloServer<GraphqlContext> };
  }
}

/**
 * The GraphQL API (`graphql` set) at `graphql.path` and its CSRF-token path, absolute on the host: the transport
 * guard, bearer (and DPoP) authentication against this server's tokens, the document gate and Apollo Server, as
 * lib/graphql builds them.
 */
export const graphql: Feature<Services['graphql']> = {
  id: 'graphql',
  options: graphqlOptions,
  // The API's resource indicator (RFC 8707) defaults to its URL: the issuer's origin and `graphql.path`.
  defaults: ({ graphql, issuer }) =>
    graphql
      ? { graphql: { ...graphql, resource: graphql.resource ?? `${new URL(issuer).origin}${graphql.path}` } }
      : {},
  enabled: (config) => Boolean(config.graphql),
  check: checkGraphql,
  async setup({ config, kernel }) {
    const options = config.graphql!;
    const { issuer } = config;
    const { logger, limiterBackend } = kernel;
    const started = await startApollo(options, { issuer, logger, limiterBackend, knownScopes: kernel.scopes.all });
    return {
      services: { apollo: started.apollo },
      close: () => started.apollo.stop(),
      routes: (provider) => [
        {
          name: 'graphql',
          where: { absolute: [options.path, `${options.path}${CSRF_TOKEN_SUFFIX}`] },
          bodyLimit: BODY_LIMITS.graphql,
          chain: [
            ...graphqlTransportGuard(graphqlTransportOptions(started.options, kernel.csrf.under(options.path))),
            bearerAuth(
              tokenVerification(provider, issuer, started.options.resource, kernel.signingKeys, limiterBackend),
            ),
            started.gate,
            started.middleware,
          ],
        },
      ],
    };
  },
};
