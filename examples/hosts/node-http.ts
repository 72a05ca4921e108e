/**
 * Portcullis in a plain `node:http` server (docs/guides/hosts.md): `portcullis.handler()` is a request listener.
 * With a third argument it calls it for every path that is not Portcullis' (the host's own routes); without one
 * (`createServer(portcullis.handler())`) it answers those paths as the standalone server does (404 JSON).
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer, type PortcullisConfig } from '../../lib/index.js';
import { withListener, type ExampleHost } from './express.js';

/** The host's own routes: `GET /` and a 404 of its own for the rest. */
function hostRoutes(req: IncomingMessage, res: ServerResponse): void {
  const found = req.method === 'GET' && req.url === '/';
  res.writeHead(found ? 200 : 404, { 'content-type': 'application/json' });
  res.end(JSON.stringify(found ? { hello: 'from the host app' } : { host: 'not found' }));
}

/** Builds the `node:http` host; `opts.hostRoutes: false` leaves every other path to Portcullis' 404. */
export async function buildNodeHttpHost(
  config: PortcullisConfig,
  opts: { hostRoutes?: boolean } = {},
): Promise<ExampleHost<undefined>> {
  const portcullis = await createServer(config);
  const handler = portcullis.handler();
  const server =
    opts.hostRoutes === false
      ? createHttpServer(handler)
      : createHttpServer((req, res) => handler(req, res, () => hostRoutes(req, res)));
  return withListener(undefined, portcullis, (port, host) => server.listen(port, host));
}
