import { createServer as createNetServer } from 'node:net';
import { createServer, type PortcullisConfig, type PortcullisServer } from '../../lib/index.js';
import { catalogResolvers, typeDefs } from '../../examples/catalog/schema.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createNetServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface RunningServer {
  server: PortcullisServer;
  issuer: string;
  graphqlUrl: string;
  close(): Promise<void>;
}

/**
 * Starts a real Portcullis server on 127.0.0.1 with the demo fixtures and the example catalog schema, with
 * `overrides` merged over that configuration. The issuer is the server's real address.
 */
export async function startServer(overrides: Partial<PortcullisConfig> | ((issuer: string) => Partial<PortcullisConfig>) = {}): Promise<RunningServer> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const extra = typeof overrides === 'function' ? overrides(issuer) : overrides;
  const server = await createServer({
    issuer,
    graphql: { path: '/graphql', typeDefs, resolvers: catalogResolvers() },
    ...demoFixtures(),
    ...extra,
  });
  await server.listen(port, '127.0.0.1');
  const graphqlUrl = `${issuer}${server.config.graphql?.path ?? '/graphql'}`;
  return { server, issuer, graphqlUrl, close: () => server.close() };
}

/** The example catalog's `graphql` section, to extend with options in tests. */
export function catalogGraphql() {
  return { path: '/graphql', typeDefs, resolvers: catalogResolvers() };
}

/** POSTs a GraphQL request as JSON. */
export async function graphql(url: string, query: string, init: { token?: string; variables?: Record<string, unknown> } = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
    body: JSON.stringify({ query, variables: init.variables }),
  });
  return { status: res.status, headers: res.headers, body: await res.json() as { data?: Record<string, unknown>; errors?: Array<{ message: string; extensions?: { code?: string } }> } };
}
