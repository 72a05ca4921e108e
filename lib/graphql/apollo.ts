import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { koaMiddleware } from '@as-integrations/koa';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { Middleware } from 'koa';
import type { GraphqlConfig } from '../config/types.js';
import type { GraphqlContext } from './auth-context.js';

/**
 * Starts Apollo Server for the host's schema with secure settings: no introspection, no landing page or
 * CDN-loaded sandbox, no stack traces, no "Did you mean" hints, CSRF prevention on.
 */
export async function startApollo(config: GraphqlConfig): Promise<{ apollo: ApolloServer<GraphqlContext>; middleware: Middleware }> {
  const schema = makeExecutableSchema({ typeDefs: config.typeDefs as never, resolvers: (config.resolvers ?? {}) as never });
  const apollo = new ApolloServer<GraphqlContext>({
    schema,
    introspection: false,
    includeStacktraceInErrorResponses: false,
    hideSchemaDetailsFromClientErrors: true,
    csrfPrevention: true,
    plugins: [ApolloServerPluginLandingPageDisabled()],
  });
  await apollo.start();
  const middleware = koaMiddleware(apollo, {
    context: async ({ ctx }) => ({ auth: (ctx.state.auth as GraphqlContext['auth']) ?? null }),
  }) as unknown as Middleware;
  return { apollo, middleware };
}
