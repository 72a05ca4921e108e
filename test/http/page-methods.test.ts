import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalogResolvers, typeDefs } from '../../examples/catalog/schema.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';
import { rawRequest } from '../helpers/raw-http.js';
import { startDeployment } from '../helpers/server.js';

/**
 * A method our pages (`/interaction/…`, `/account/…`, `/ui/logo`) or health endpoints do not answer gets
 * `405 invalid_request` with `Allow` and our error body (JSON, or the error page for a browser), as the provider
 * endpoints' refusals do (RFC 9110 §15.5.6); a page sub-path nothing serves gets the standalone server's JSON 404.
 * Before, the pages answered Koa's plain-text `404 Not Found` (and a host app's next middleware ran), the logo and
 * health endpoints a bodiless 405.
 */

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

const REFUSED: Array<[string, string, string]> = [
  ['TRACE', '/interaction/x', 'GET, HEAD'],
  ['DELETE', '/interaction/x', 'GET, HEAD'],
  ['POST', '/interaction/x', 'GET, HEAD'],
  ['GET', '/interaction/x/login', 'POST'],
  ['PUT', '/interaction/x/confirm', 'POST'],
  ['DELETE', '/account', 'GET, HEAD'],
  ['POST', '/account', 'GET, HEAD'],
  ['OPTIONS', '/account', 'GET, HEAD'],
  ['PATCH', '/account/signup', 'GET, HEAD, POST'],
  ['PROPFIND', '/account/reset', 'GET, HEAD, POST'],
  ['POST', '/ui/logo', 'GET, HEAD'],
  ['DELETE', '/ui/logo', 'GET, HEAD'],
  ['POST', '/healthz', 'GET, HEAD'],
  ['DELETE', '/readyz', 'GET, HEAD'],
];

describe.each([
  { name: 'standalone server', host: false },
  { name: 'host app (server.middleware())', host: true },
])('$name', ({ host }) => {
  let origin: string;
  let dir: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portcullis-methods-'));
    await writeFile(join(dir, 'logo.png'), PNG);
    ({ origin, close } = await startDeployment(
      (o) => ({
        issuer: o,
        graphql: { path: '/graphql', typeDefs, resolvers: catalogResolvers() },
        ...demoFixtures(),
        ui: { logo: join(dir, 'logo.png') },
      }),
      host
        ? (app, portcullis) => {
            app.use(portcullis);
            app.use((ctx) => {
              ctx.status = 404;
              ctx.body = 'host app';
            });
          }
        : undefined,
    ));
  });
  afterAll(async () => {
    await close();
    await rm(dir, { recursive: true, force: true });
  });

  test.each(REFUSED)('%s %s → 405 invalid_request, Allow: %s, JSON', async (method, path, allow) => {
    const res = await rawRequest(origin, path, { method, headers: { accept: 'application/json' } });
    expect([res.status, res.headers.allow, res.headers['content-type'], res.json()]).toEqual([
      405,
      allow,
      'application/json; charset=utf-8',
      { error: 'invalid_request', error_description: `${method} is not allowed at this path: use ${allow}.` },
    ]);
  });

  test.each([
    ['DELETE', '/account'],
    ['TRACE', '/interaction/x'],
  ])('%s %s from a browser → 405 with Allow and our error page', async (method, path) => {
    const res = await rawRequest(origin, path, { method, headers: { accept: 'text/html' } });
    expect([res.status, res.headers.allow, res.headers['content-type']]).toEqual([
      405,
      'GET, HEAD',
      'text/html; charset=utf-8',
    ]);
    expect(res.text).toContain(`${method} is not allowed at this path: use GET, HEAD.`);
  });

  test.each([
    ['GET', '/interaction/x/nope'],
    ['DELETE', '/account/nope'],
    ['GET', '/ui/other'],
  ])('%s %s (no page there)', async (method, path) => {
    const res = await rawRequest(origin, path, { method, headers: { accept: 'application/json' } });
    if (host) expect([res.status, res.text]).toEqual([404, 'host app']);
    else
      expect([res.status, res.json()]).toEqual([
        404,
        { error: 'invalid_request', error_description: 'Not found: this server has no endpoint at this path.' },
      ]);
  });

  test.each([
    ['GET', '/account/signup', 200],
    ['GET', '/ui/logo', 200],
    ['HEAD', '/healthz', 200],
    ['GET', '/account', 303],
  ])('unchanged: %s %s → %i', async (method, path, status) => {
    expect((await rawRequest(origin, path, { method })).status).toBe(status);
  });
});
