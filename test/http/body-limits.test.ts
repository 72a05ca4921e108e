import { bodyParser } from '@koa/bodyparser';
import { catalogResolvers, typeDefs } from '../../examples/catalog/schema.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';
import { rawRequest } from '../helpers/raw-http.js';
import { startDeployment } from '../helpers/server.js';

/**
 * A body over oidc-provider's 56 KiB limit (RFC 9110 §15.5.14) is `413 invalid_request` at every endpoint it
 * parses, however Portcullis is deployed. Before, the standalone server and a host app with its parser after
 * Portcullis answered `400 invalid_request` "failed to parse the request body" (no cause, no limit), and a host
 * parser in front `413` "request body too large": one request, two answers depending on the mount.
 */

type Deployment = { name: string; prefix: string; host?: 'before' | 'after' };
const DEPLOYMENTS: Deployment[] = [
  { name: 'standalone at the root', prefix: '' },
  { name: 'standalone under /auth', prefix: '/auth' },
  { name: 'host app under /auth, host parser after', prefix: '/auth', host: 'after' },
  // Its limits raised (its form default is 56 KiB too, and it would answer a larger body itself, in text/plain).
  { name: 'host app under /auth, host parser (limits 1 MiB) before', prefix: '/auth', host: 'before' },
];

const FORM = 'application/x-www-form-urlencoded';
const ENDPOINTS: Array<[string, string, (pad: string) => string]> = [
  ['/token', FORM, (pad) => `grant_type=authorization_code&code=x&pad=${pad}`],
  ['/token/introspection', FORM, (pad) => `token=x&pad=${pad}`],
  ['/token/revocation', FORM, (pad) => `token=x&pad=${pad}`],
  ['/request', FORM, (pad) => `client_id=demo-web&pad=${pad}`],
  ['/registration', 'application/json', (pad) => JSON.stringify({ redirect_uris: ['https://rp.example/cb'], pad })],
];
const TOO_LARGE = {
  error: 'invalid_request',
  error_description: 'The request body is larger than this endpoint accepts (56 KiB).',
};

describe.each(DEPLOYMENTS)('$name', (deployment) => {
  let origin: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const parser = bodyParser({ formLimit: '1mb', jsonLimit: '1mb' });
    ({ origin, close } = await startDeployment(
      (o) => ({
        issuer: o + deployment.prefix,
        graphql: { path: '/api/graphql', typeDefs, resolvers: catalogResolvers() },
        ...demoFixtures(),
      }),
      deployment.host
        ? (app, portcullis) => {
            if (deployment.host === 'before') app.use(parser);
            app.use(portcullis);
            if (deployment.host === 'after') app.use(parser);
          }
        : undefined,
    ));
  });
  afterAll(() => close());

  // Both framings of a body: `Content-Length` (what fetch and curl send) and chunked (no length known up front).
  const ROWS = ENDPOINTS.flatMap(([path, type, body]) =>
    (['content-length', 'chunked'] as const).map((framing) => [path, framing, type, body] as const),
  );
  test.each(ROWS)(
    'POST %s with a 60 KiB body (%s) → 413 invalid_request naming the limit',
    async (path, framing, type, body) => {
      const text = body('a'.repeat(60 * 1024));
      const res = await rawRequest(origin, deployment.prefix + path, {
        method: 'POST',
        headers: {
          'content-type': type,
          accept: 'application/json',
          authorization: 'Bearer demo-initial-access-token',
          ...(framing === 'content-length' ? { 'content-length': String(Buffer.byteLength(text)) } : {}),
        },
        body: text,
      });
      expect([path, framing, res.status, res.json()]).toEqual([path, framing, 413, TOO_LARGE]);
    },
  );

  test.each(ENDPOINTS)(
    'POST %s with a 50 KiB body is read and answered by the endpoint, not 413',
    async (path, type, body) => {
      const res = await rawRequest(origin, deployment.prefix + path, {
        method: 'POST',
        headers: { 'content-type': type, accept: 'application/json' },
        body: body('a'.repeat(50 * 1024)),
      });
      expect([path, res.status]).not.toEqual([path, 413]);
      expect(res.json<{ error_description?: string }>().error_description).not.toBe('failed to parse the request body');
    },
  );
});
