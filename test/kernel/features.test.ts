import { createServer, defaultFeatures, type Feature, type PortcullisServer } from '../../lib/index.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';
import { rawRequest } from '../helpers/raw-http.js';
import { freePort } from '../helpers/server.js';
import { motd } from './example-feature.js';

/** A host's own feature (docs/architecture.md's example) registered with createServer and called over HTTP. */

async function serve(issuerPath: string, features: readonly Feature[]) {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const server: PortcullisServer = await createServer(
    { issuer: `${origin}${issuerPath}`, ...demoFixtures() },
    features,
  );
  await server.listen(port, '127.0.0.1');
  return { origin, server };
}

describe.each(['', '/auth'])('the example feature under the issuer path %j', (issuerPath) => {
  let origin: string;
  let server: PortcullisServer;
  beforeAll(async () => ({ origin, server } = await serve(issuerPath, [...defaultFeatures, motd])));
  afterAll(() => server.close());

  test('its route answers behind the guards (request id, issuer Host check)', async () => {
    const res = await rawRequest(origin, `${issuerPath}/motd`);
    expect([res.status, JSON.parse(res.text)]).toEqual([
      200,
      { message: `Welcome to ${new URL(origin).host}`, signIns: 0 },
    ]);
    expect(res.headers['x-request-id']).toMatch(/./);
    const misdirected = await rawRequest(origin, `${issuerPath}/motd`, { headers: { host: 'elsewhere.example' } });
    expect(misdirected.status).toBe(421);
  });

  test('another method is left to the standalone app: 404', async () => {
    const res = await rawRequest(origin, `${issuerPath}/motd`, { method: 'DELETE' });
    expect(res.status).toBe(404);
  });

  test('the default features still serve (discovery, health)', async () => {
    expect((await rawRequest(origin, `${issuerPath}/healthz`)).status).toBe(200);
    expect((await rawRequest(origin, `${issuerPath}/.well-known/openid-configuration`)).status).toBe(200);
  });
});

test('without the feature, /motd is not served', async () => {
  const { origin, server } = await serve('', defaultFeatures);
  try {
    expect((await rawRequest(origin, '/motd')).status).toBe(404);
  } finally {
    await server.close();
  }
});

// Mistakes in a feature list are refused before anything opens, at `features`.
test.each([
  ['a repeated id', [...defaultFeatures, motd, motd], /feature "motd" is listed twice/],
  [
    'a route on an endpoint of oidc-provider',
    [
      ...defaultFeatures,
      {
        ...motd,
        id: 'token-thief',
        setup: () => ({ routes: () => [{ name: 'thief', where: { paths: ['/token'] }, bodyLimit: 1, chain: [] }] }),
      },
    ],
    /route thief claims \/token/,
  ],
  [
    'features requiring each other',
    [
      { ...motd, id: 'a', requires: ['b'] },
      { ...motd, id: 'b', requires: ['a'] },
    ],
    /features require each other: a → b → a/,
  ],
] as Array<[string, Feature[], RegExp]>)('%s', async (_name, features, message) => {
  const port = await freePort();
  await expect(createServer({ issuer: `http://127.0.0.1:${port}`, ...demoFixtures() }, features)).rejects.toMatchObject(
    { code: 'ERR_CONFIG_INVALID', message: expect.stringMatching(message) },
  );
});
