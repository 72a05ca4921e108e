/**
 * Portcullis in an Express 5 app (docs/guides/hosts.md): `app.use(portcullis.handler())` at the root serves the
 * authorization server under the issuer's path (`http://host/auth` → `/auth/…`, plus RFC 8414's
 * `/.well-known/oauth-authorization-server/auth`) and GraphQL at `graphql.path`; every other path goes on to the
 * host's own middleware and routes.
 */
import type { Server } from 'node:http';
import express, { type Express } from 'express';
import { createServer, type PortcullisConfig, type PortcullisServer } from '../../lib/index.js';

/** What the example hosts return: the host app, Portcullis, `listen` and `close` (Portcullis, then the listener). */
export interface ExampleHost<App> {
  app: App;
  portcullis: PortcullisServer;
  listen(port: number, host: string): Promise<Server>;
  close(): Promise<void>;
}

/**
 * Builds the Express host. `opts.bodyParsers: 'before'` puts the host's `express.json()` and `express.urlencoded()`
 * in front of Portcullis (it then uses the parsed `req.body`, or the raw body when `keepRawBody` stores it as
 * `req.rawBody`); the default, and the recommended order, is Portcullis first.
 */
export async function buildExpressHost(
  config: PortcullisConfig,
  opts: { bodyParsers?: 'before' | 'after'; keepRawBody?: boolean } = {},
): Promise<ExampleHost<Express>> {
  const portcullis = await createServer(config);
  const app = express();
  if (opts.bodyParsers === 'before') {
    // body-parser's `verify` sees the raw bytes: kept as `req.rawBody`, oidc-provider parses them as its own.
    const keep = (req: { rawBody?: string }, _res: unknown, buf: Buffer) => {
      req.rawBody = buf.toString('utf8');
    };
    const verify = opts.keepRawBody ? keep : undefined;
    app.use(express.json({ verify }), express.urlencoded({ verify, limit: '1mb' }));
  }
  app.use(portcullis.handler());
  if (opts.bodyParsers !== 'before') app.use(express.json());
  app.get('/', (_req, res) => {
    res.json({ hello: 'from the host app' });
  });
  app.post('/api/echo', (req, res) => {
    res.json({ received: req.body });
  });
  return withListener(app, portcullis, (port, host) => app.listen(port, host));
}

/** `listen` and `close` around a host app's own listener. */
export function withListener<App>(
  app: App,
  portcullis: PortcullisServer,
  listen: (port: number, host: string) => Server,
): ExampleHost<App> {
  let server: Server | undefined;
  return {
    app,
    portcullis,
    async listen(port, host) {
      server = listen(port, host);
      await new Promise((resolve, reject) => {
        server!.once('listening', resolve);
        server!.once('error', reject);
      });
      return server;
    },
    async close() {
      const open = server;
      if (open)
        await new Promise<void>((resolve) => {
          open.close(() => resolve());
          open.closeAllConnections();
        });
      await portcullis.close();
    },
  };
}
