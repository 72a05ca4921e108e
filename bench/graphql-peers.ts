/**
 * The GraphQL peers issue 29 names, as lean as a user would write them, for `bench/server.ts`:
 * - `lean`: Apollo Server 5 on Koa with `@koa/bodyparser` and `@as-integrations/koa`, plain resolvers over the
 *   same four products as the example catalog (no authorization, no rules);
 * - `armor`: the same hardened with GraphQL Armor (`@escape.tech/graphql-armor`) at the limits Portcullis runs
 *   with in the bench (its defaults: depth 6, aliases 15, cost 5000, directives 50, tokens 1000; field
 *   suggestions blocked, Armor's default).
 * Both get Portcullis' request log line (lib/http/request-log.ts, the same logger settings) in front, as the issue
 * compares against a peer "with the same log line".
 */
import { ApolloServer } from '@apollo/server';
import { koaMiddleware } from '@as-integrations/koa';
import { bodyParser } from '@koa/bodyparser';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import Koa from 'koa';
import { DEMO_PRODUCTS, typeDefs } from '../examples/catalog/schema.js';
import { createLogger } from '../lib/core/logger.js';
import { requestLog } from '../lib/http/request-log.js';

/**
 * Portcullis' default GraphQL limits (config/options.ts, `graphql.limits`), which the bench's Portcullis server keeps:
 * the Armor peer gets the same numbers.
 */
const DEFAULT_LIMITS = { maxDepth: 6, maxAliases: 15, maxCost: 5000, maxDirectives: 50, maxTokens: 1000 } as const;

/** The catalog's SDL with its directive declared, so that it parses without Portcullis. */
const SDL = `directive @requiresScopes(scopes: [String!]!) on FIELD_DEFINITION | OBJECT | INTERFACE\n${typeDefs}`;

type Product = (typeof DEMO_PRODUCTS)[number];
const listed = () => DEMO_PRODUCTS.filter((p) => p.listed);
const firstOf = <T>(list: T[], first?: number | null) =>
  first === undefined || first === null ? list : list.slice(0, Math.max(0, first));

/** Plain resolvers over the four products, as a user writes them. */
const resolvers = {
  Query: {
    product: (_: unknown, { id }: { id: number }) => DEMO_PRODUCTS.find((p) => p.id === id && p.listed) ?? null,
    products: (_: unknown, { first }: { first?: number | null }) => firstOf(listed(), first),
    delistedProducts: () => [],
  },
  Product: {
    related: (product: Product, { first }: { first?: number | null }) =>
      firstOf(
        listed().filter((p) => p.id !== product.id),
        first,
      ),
  },
};

/** Starts the peer on `port`; `close` stops it. */
export async function startGraphqlPeer(kind: 'lean' | 'armor', port: number, logLevel: string) {
  const armor =
    kind === 'armor'
      ? new ApolloArmor({
          maxDepth: { n: DEFAULT_LIMITS.maxDepth },
          maxAliases: { n: DEFAULT_LIMITS.maxAliases },
          costLimit: { maxCost: DEFAULT_LIMITS.maxCost },
          maxDirectives: { n: DEFAULT_LIMITS.maxDirectives },
          maxTokens: { n: DEFAULT_LIMITS.maxTokens },
        }).protect()
      : undefined;
  // Armor's types name Apollo's CommonJS declarations, ours the ES module ones: the same classes at run time.
  const apollo = new ApolloServer({ typeDefs: SDL, resolvers, ...(armor as object) });
  await apollo.start();
  const app = new Koa();
  app.use(requestLog(createLogger({ LOG_LEVEL: logLevel })));
  app.use(bodyParser());
  app.use(koaMiddleware(apollo) as never);
  const http = app.listen(port, '127.0.0.1');
  await new Promise((r) => http.once('listening', r));
  return { http, close: () => apollo.stop() };
}
