import type { Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import Koa from 'koa';
import { createServer, type PortcullisConfig, type PortcullisServer } from '../../lib/index.js';
import { catalogResolvers, typeDefs } from '../../examples/catalog/schema.js';
import { DEMO, demoFixtures } from '../../examples/demo-fixtures.js';
import { hashPasswordAtCost } from '../../adapters/password.js';
import { runSigningKeys } from './run-resources.js';

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

/** `password` hashed at scrypt N=2^10 (about 1 ms instead of 70). */
const cheapHash = (password: string) => hashPasswordAtCost(password, { N: 1024, r: 8, p: 1 });

/**
 * The demo accounts' `passwordHash` (N=2^15) → a hash of the same password at N=2^10. Sign-ins of the demo accounts
 * were most of the suite's password checks (about 800 scrypt runs of 70 ms each): the check is the same code with
 * the cost the stored hash names, which development accepts (lib/config/checks.ts refuses it in production;
 * test/accounts/seed-password-hash.test.ts covers both). Tests that build their own configuration keep N=2^15.
 */
const CHEAP_DEMO_HASHES = new Map([
  [DEMO.alice.passwordHash, await cheapHash(DEMO.alice.password)],
  [DEMO.admin.passwordHash, await cheapHash(DEMO.admin.password)],
]);

/**
 * The run's signing keys (test/helpers/run-resources.ts) as `keys`, for a configuration without `keys`: the same
 * algorithms as development's ephemeral set, without generating one per server. A configuration that gives `keys`
 * (even `{}`, for development's own ephemeral set) keeps them. The demo accounts' hashes become cheaper ones of the
 * same passwords (see {@link CHEAP_DEMO_HASHES}).
 */
export function withRunKeys<T extends Partial<PortcullisConfig>>(config: T): T {
  const accounts = config.accounts?.map((a) =>
    a.passwordHash && CHEAP_DEMO_HASHES.has(a.passwordHash)
      ? { ...a, passwordHash: CHEAP_DEMO_HASHES.get(a.passwordHash) }
      : a,
  );
  const cheap = accounts ? { ...config, accounts } : config;
  if ('keys' in config) return cheap;
  const signing = runSigningKeys();
  return signing ? { ...cheap, keys: { signing } } : cheap;
}

/**
 * Starts a real Portcullis server on 127.0.0.1 with the demo fixtures and the example catalog schema, with
 * `overrides` merged over that configuration. The issuer is the server's real address. Signs with the run's keys
 * unless `overrides` gives `keys` (see {@link withRunKeys}).
 */
export async function startServer(
  overrides: Partial<PortcullisConfig> | ((issuer: string) => Partial<PortcullisConfig>) = {},
): Promise<RunningServer> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const extra = typeof overrides === 'function' ? overrides(issuer) : overrides;
  const server = await createServer(
    withRunKeys({
      issuer,
      graphql: { path: '/graphql', typeDefs, resolvers: catalogResolvers() },
      ...demoFixtures(),
      ...extra,
    }),
  );
  await server.listen(port, '127.0.0.1');
  const graphqlUrl = `${issuer}${server.config.graphql?.path ?? '/graphql'}`;
  return { server, issuer, graphqlUrl, close: () => server.close() };
}

/**
 * Portcullis on a free port of 127.0.0.1 as the standalone server (`hostApp` unset: `server.listen`) or mounted in a
 * Koa host app (`app.use(server.middleware())`), which `hostApp` completes: it gets the app and the middleware and
 * uses them in its own order (a body parser before or after, the host's own routes). `config` gets the origin
 * (`http://127.0.0.1:<port>`). `close` stops the host app's server and Portcullis. Signs with the run's keys unless
 * the configuration gives `keys` (see {@link withRunKeys}).
 */
export async function startDeployment(
  config: (origin: string) => PortcullisConfig,
  hostApp?: (app: Koa, middleware: Koa.Middleware) => void,
): Promise<{ origin: string; server: PortcullisServer; close(): Promise<void> }> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const server = await createServer(withRunKeys(config(origin)));
  if (!hostApp) {
    await server.listen(port, '127.0.0.1');
    return { origin, server, close: () => server.close() };
  }
  const app = new Koa();
  hostApp(app, server.middleware());
  const http: Server = app.listen(port, '127.0.0.1');
  await new Promise((resolve) => http.once('listening', resolve));
  return {
    origin,
    server,
    close: async () => {
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
      await server.close();
    },
  };
}

/** The example catalog's `graphql` section, to extend with options in tests. */
export function catalogGraphql() {
  return { path: '/graphql', typeDefs, resolvers: catalogResolvers() };
}

/** POSTs a GraphQL request as JSON. */
export async function graphql(
  url: string,
  query: string,
  init: { token?: string; variables?: Record<string, unknown> } = {},
) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
    body: JSON.stringify({ query, variables: init.variables }),
  });
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as {
      data?: Record<string, unknown>;
      errors?: Array<{ message: string; extensions?: { code?: string } }>;
    },
  };
}
