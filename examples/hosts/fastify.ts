/**
 * Portcullis in a Fastify 5 app (docs/guides/hosts.md): an `onRequest` hook hands every request to
 * `portcullis.handler()` before Fastify parses its body. Portcullis answers its own paths on the raw response and
 * never calls `done` for them (Fastify then parses nothing and runs no route; its request log and `onResponse`
 * hooks still run when the response finishes); for every other path it calls `done()` and Fastify goes on.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { createServer, type PortcullisConfig } from '../../lib/index.js';
import type { ExampleHost } from './express.js';

/** Builds the Fastify host: Portcullis' hook, then the host's own routes (Fastify's JSON parser for them). */
export async function buildFastifyHost(config: PortcullisConfig): Promise<ExampleHost<FastifyInstance>> {
  const portcullis = await createServer(config);
  const app = Fastify();
  const handler = portcullis.handler();
  app.addHook('onRequest', (request, reply, done) => handler(request.raw, reply.raw, done));
  app.get('/', async () => ({ hello: 'from the host app' }));
  app.post('/api/echo', async (request) => ({ received: request.body }));
  return {
    app,
    portcullis,
    async listen(port, host) {
      await app.listen({ port, host });
      return app.server;
    },
    async close() {
      await app.close();
      await portcullis.close();
    },
  };
}
