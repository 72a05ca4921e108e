import { createServer, defaultFeatures, type PortcullisServer } from '../../lib/index.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';
import { rawRequest } from '../helpers/raw-http.js';
import { freePort } from '../helpers/server.js';

/**
 * The `pages` the server's own features declare (the route reference, docs/reference/routes.md, lists them) are
 * paths their routes serve: a method none of them answers there gets 405 with `Allow` (the path is routed), where a
 * path no route serves gets 404.
 */
let origin: string;
let host: string;
let server: PortcullisServer;
beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  host = `localhost:${port}`;
  // A domain-name issuer and mail, so that every feature with pages is on (passkeys, mfa, the self-service flows).
  server = await createServer({
    issuer: `http://${host}`,
    ...demoFixtures(),
    mfa: { enabled: true },
    mail: { from: 'noreply@example.com', smtp: { host: '127.0.0.1', port: 9 } },
  });
  await server.listen(port, '127.0.0.1');
});
afterAll(() => server.close());

const pages = defaultFeatures.flatMap((feature) =>
  Object.entries(feature.pages ?? {}).map(([name, path]) => [feature.id, name, path] as const),
);

test('the features declare pages (passkeys, mfa, self-service, account)', () => {
  expect([...new Set(pages.map(([id]) => id))].sort()).toEqual(['account', 'mfa', 'passkeys', 'self-service']);
});

test.each(pages)('%s: %s (%s) is served', async (_id, _name, path) => {
  const res = await rawRequest(origin, path, { method: 'PUT', headers: { host } });
  expect([res.status, res.headers.allow]).toEqual([405, expect.stringMatching(/GET|POST/)]);
});

test('a path under the same segment that no feature declares is not served', async () => {
  const res = await rawRequest(origin, '/account/not-a-page', { method: 'PUT', headers: { host } });
  expect(res.status).toBe(404);
});
