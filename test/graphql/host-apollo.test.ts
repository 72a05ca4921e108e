import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloServer } from '@apollo/server';
import { koaMiddleware } from '@as-integrations/koa';
import { bodyParser } from '@koa/bodyparser';
import { makeExecutableSchema } from '@graphql-tools/schema';
import Koa from 'koa';
import {
  applyScopeDirectives,
  AUTHORIZATION_TYPE_DEFS,
  costLimitPlugin,
  createMaxCostRule,
  type GraphqlContext,
} from '../../lib/graphql/index.js';

/**
 * `portcullis/graphql` in a host's own Apollo Server on Koa (no Portcullis server): the scope directive is enforced
 * once the schema goes through `applyScopeDirectives`, and the cost limit holds for sizes given as variables once
 * `costLimitPlugin` runs beside `createMaxCostRule`. Each piece is also shown missing, to say why it is needed.
 */

const typeDefs = `${AUTHORIZATION_TYPE_DEFS}
  type Item { id: Int! related(first: Int): [Item!]! }
  type Query { items(first: Int): [Item!]! secret: String @requiresScopes(scopes: ["admin"]) }`;
const items = (n: number) => Array.from({ length: Math.min(n ?? 10, 3) }, (_, id) => ({ id }));
const resolvers = {
  Query: { items: (_: unknown, a: { first?: number }) => items(a.first ?? 10), secret: () => 'top secret' },
  Item: { related: (_: unknown, a: { first?: number }) => items(a.first ?? 10) },
};

interface Host {
  url: string;
  close: () => Promise<void>;
}

async function host(options: {
  enforceScopes: boolean;
  costPlugin: boolean;
  auth?: GraphqlContext['auth'];
}): Promise<Host> {
  const built = makeExecutableSchema({ typeDefs, resolvers });
  const schema = options.enforceScopes ? applyScopeDirectives(built) : built;
  const apollo = new ApolloServer<GraphqlContext>({
    schema,
    validationRules: [createMaxCostRule(5000)],
    plugins: options.costPlugin ? [costLimitPlugin(schema, { maxCost: 5000 })] : [],
  });
  await apollo.start();
  const app = new Koa();
  app.use(bodyParser());
  app.use(koaMiddleware(apollo, { context: async () => ({ auth: options.auth ?? null }) }) as never);
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: async () => {
      server.close();
      await apollo.stop();
    },
  };
}

async function post(h: Host, query: string, variables?: Record<string, unknown>) {
  const res = await fetch(h.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return {
    status: res.status,
    body: (await res.json()) as {
      data?: Record<string, unknown> | null;
      errors?: Array<{ extensions?: { code?: string } }>;
    },
  };
}

const nested = 'query($n: Int) { items(first: $n) { related(first: $n) { related(first: $n) { id } } } }';

describe('portcullis/graphql in a host Apollo Server', () => {
  test('with applyScopeDirectives a marked field needs its scope; without it the mark is only a declaration', async () => {
    for (const [enforceScopes, auth, expected] of [
      [true, null, { data: { secret: null }, code: 'FORBIDDEN' }],
      [
        true,
        { sub: 'a', client_id: 'c', scope: 'admin', scopes: ['admin'] },
        { data: { secret: 'top secret' }, code: undefined },
      ],
      [false, null, { data: { secret: 'top secret' }, code: undefined }],
    ] as const) {
      const h = await host({ enforceScopes, costPlugin: true, auth: auth as never });
      try {
        const res = await post(h, '{ secret }');
        expect({ data: res.body.data, code: res.body.errors?.[0]?.extensions?.code }).toEqual(expected);
      } finally {
        await h.close();
      }
    }
  });

  test('with costLimitPlugin a size given as a variable is measured; createMaxCostRule alone lets it run', async () => {
    const withPlugin = await host({ enforceScopes: true, costPlugin: true });
    const ruleOnly = await host({ enforceScopes: true, costPlugin: false });
    try {
      const refused = await post(withPlugin, nested, { n: 1_000_000 });
      expect({ status: refused.status, code: refused.body.errors?.[0]?.extensions?.code }).toEqual({
        status: 400,
        code: 'MAX_COST_EXCEEDED',
      });
      expect((await post(withPlugin, nested, { n: 2 })).status).toBe(200);
      expect((await post(ruleOnly, nested, { n: 1_000_000 })).status).toBe(200);
    } finally {
      await Promise.all([withPlugin.close(), ruleOnly.close()]);
    }
  });
});
