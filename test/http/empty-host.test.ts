import type { Server } from 'node:http';
import { connect } from 'node:net';
import Koa from 'koa';
import { catalogResolvers, typeDefs } from '../../examples/catalog/schema.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';
import { createServer } from '../../lib/index.js';
import { freePort } from '../helpers/server.js';

/**
 * An empty `Host` is an invalid Host (an http(s) authority is never empty, RFC 9110 §4.2.1): `400 invalid_request`
 * (RFC 9112 §3.2), as a malformed Host is. Before, it got the `421` of a Host naming another server ("the request
 * named another host"), on the standalone server and in a host app alike. Sent over raw sockets: Node's client
 * cannot send an empty Host.
 */

/** One raw request (`version` HTTP/1.1 or HTTP/1.0); the answer's status, headers block and body. */
function rawLines(origin: string, requestLine: string, fields: string[], version = 'HTTP/1.1', body = ''): Promise<{ status: number; head: string; body: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.end([`${requestLine} ${version}`, ...fields, `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close', '', body].join('\r\n'));
    });
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const head = text.slice(0, text.indexOf('\r\n\r\n'));
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]), head, body: text.slice(head.length + 4) });
    });
  });
}

const PATHS: Array<[string, string, string[], string]> = [
  ['GET', '/.well-known/openid-configuration', [], ''],
  ['POST', '/token', ['Content-Type: application/x-www-form-urlencoded'], 'grant_type=authorization_code&code=x'],
  ['GET', '/userinfo', ['Authorization: Bearer x'], ''],
  ['GET', '/interaction/abc', [], ''],
  ['GET', '/account/signup', [], ''],
  ['POST', '/graphql', ['Content-Type: application/json'], '{"query":"{__typename}"}'],
];
const EMPTY = { error: 'invalid_request', error_description: 'The Host header is empty: it must name this server.' };

describe.each([{ name: 'standalone server', host: false }, { name: 'host app (server.middleware())', host: true }])('$name', ({ host }) => {
  let origin: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    const portcullis = await createServer({ issuer: origin, graphql: { path: '/graphql', typeDefs, resolvers: catalogResolvers() }, ...demoFixtures() });
    if (!host) {
      await portcullis.listen(port, '127.0.0.1');
      close = () => portcullis.close();
      return;
    }
    const app = new Koa();
    app.use(portcullis.middleware());
    app.use((ctx) => { ctx.body = 'host app'; });
    const http: Server = app.listen(port, '127.0.0.1');
    await new Promise((resolve) => http.once('listening', resolve));
    close = async () => {
      await new Promise<void>((resolve) => { http.close(() => resolve()); http.closeAllConnections(); });
      await portcullis.close();
    };
  });
  afterAll(() => close());

  describe.each([['Host:', 'an empty Host'], ['Host:    ', 'a Host of spaces only']])('%s (%s)', (line) => {
    test.each(PATHS)('%s %s → 400 invalid_request', async (method, path, fields, body) => {
      const res = await rawLines(origin, `${method} ${path}`, [line, 'Accept: application/json', ...fields], 'HTTP/1.1', body);
      expect([res.status, JSON.parse(res.body)]).toEqual([400, EMPTY]);
      expect(res.head).toMatch(/^Content-Type: application\/json/m);
    });
  });

  test('unchanged: an HTTP/1.0 request without Host names no host → 421', async () => {
    const res = await rawLines(origin, 'GET /.well-known/openid-configuration', ['Accept: application/json'], 'HTTP/1.0');
    expect([res.status, JSON.parse(res.body).error]).toEqual([421, 'invalid_request']);
  });

  test('unchanged: the issuer\'s Host is served', async () => {
    const res = await rawLines(origin, 'GET /.well-known/openid-configuration', [`Host: ${new URL(origin).host}`]);
    expect(res.status).toBe(200);
  });

  if (host) {
    test('unchanged: the host app\'s own paths keep its Host policy (an empty Host reaches it)', async () => {
      const res = await rawLines(origin, 'GET /home', ['Host:']);
      expect([res.status, res.body]).toEqual([200, 'host app']);
    });
  }
});
