import { catalogResolvers, typeDefs } from '../../examples/catalog/schema.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';
import { rawLines } from '../helpers/raw-http.js';
import { startDeployment } from '../helpers/server.js';

/**
 * An empty `Host` is an invalid Host (an http(s) authority is never empty, RFC 9110 §4.2.1): `400 invalid_request`
 * (RFC 9112 §3.2), as a malformed Host is. Before, it got the `421` of a Host naming another server ("the request
 * named another host"), on the standalone server and in a host app alike. Sent over raw sockets: Node's client
 * cannot send an empty Host.
 */

const PATHS: Array<[string, string, string[], string]> = [
  ['GET', '/.well-known/openid-configuration', [], ''],
  ['POST', '/token', ['Content-Type: application/x-www-form-urlencoded'], 'grant_type=authorization_code&code=x'],
  ['GET', '/userinfo', ['Authorization: Bearer x'], ''],
  ['GET', '/interaction/abc', [], ''],
  ['GET', '/account/signup', [], ''],
  ['POST', '/graphql', ['Content-Type: application/json'], '{"query":"{__typename}"}'],
];
const EMPTY = { error: 'invalid_request', error_description: 'The Host header is empty: it must name this server.' };

describe.each([
  { name: 'standalone server', host: false },
  { name: 'host app (server.middleware())', host: true },
])('$name', ({ host }) => {
  let origin: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ origin, close } = await startDeployment(
      (o) => ({ issuer: o, graphql: { path: '/graphql', typeDefs, resolvers: catalogResolvers() }, ...demoFixtures() }),
      host
        ? (app, portcullis) => {
            app.use(portcullis);
            app.use((ctx) => {
              ctx.body = 'host app';
            });
          }
        : undefined,
    ));
  });
  afterAll(() => close());

  describe.each([
    ['Host:', 'an empty Host'],
    ['Host:    ', 'a Host of spaces only'],
  ])('%s (%s)', (line) => {
    test.each(PATHS)('%s %s → 400 invalid_request', async (method, path, fields, body) => {
      const res = await rawLines(origin, `${method} ${path}`, [line, 'Accept: application/json', ...fields], body);
      expect([res.status, JSON.parse(res.body)]).toEqual([400, EMPTY]);
      expect(res.head).toMatch(/^Content-Type: application\/json/m);
    });
  });

  test('unchanged: an HTTP/1.0 request without Host names no host → 421', async () => {
    const res = await rawLines(
      origin,
      'GET /.well-known/openid-configuration',
      ['Accept: application/json'],
      '',
      'HTTP/1.0',
    );
    expect([res.status, JSON.parse(res.body).error]).toEqual([421, 'invalid_request']);
  });

  test("unchanged: the issuer's Host is served", async () => {
    const res = await rawLines(origin, 'GET /.well-known/openid-configuration', [`Host: ${new URL(origin).host}`]);
    expect(res.status).toBe(200);
  });

  if (host) {
    test("unchanged: the host app's own paths keep its Host policy (an empty Host reaches it)", async () => {
      const res = await rawLines(origin, 'GET /home', ['Host:']);
      expect([res.status, res.body]).toEqual([200, 'host app']);
    });
  }
});
