/**
 * Mounting Portcullis into an existing Koa app: the host keeps its own routes; Portcullis serves the OAuth 2.0 /
 * OpenID Connect endpoints, the login and consent pages and the GraphQL API. Mount it before any body parser.
 */
import Koa from 'koa';
import { createServer, type PortcullisConfig } from '../lib/index.js';

export async function buildHostApp(config: PortcullisConfig): Promise<{ app: Koa; close: () => Promise<void> }> {
  const portcullis = await createServer(config);
  const app = new Koa();
  app.use(portcullis.middleware());
  app.use(async (ctx) => {
    if (ctx.path === '/') ctx.body = { hello: 'from the host app' };
  });
  return { app, close: () => portcullis.close() };
}
