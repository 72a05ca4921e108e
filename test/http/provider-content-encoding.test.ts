import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { bodyParser } from '@koa/bodyparser';
import { demoFixtures } from '../../examples/demo-fixtures.js';
import { startDeployment } from '../helpers/server.js';

/**
 * oidc-provider's body reader ignores Content-Encoding (RFC 9110 §8.4). Before: a gzip, deflate or br body at
 * /token, introspection, revocation, PAR, registration or userinfo was parsed as form text and answered as if it
 * were empty ("no client authentication mechanism provided"), and a plain body labelled `gzip` or `x-bogus` was
 * read as plain and answered 200. Now `415 invalid_request` with `Accept-Encoding: identity` (RFC 9110 §15.5.16),
 * unless a host app's parser in front has already decoded the body, which then works as before.
 */

type Deployment = { name: string; host?: 'before' | 'after' };
const DEPLOYMENTS: Deployment[] = [
  { name: 'standalone' },
  { name: 'host app, its parser after Portcullis', host: 'after' },
];

const FORM = 'application/x-www-form-urlencoded';
const INTROSPECT = 'token=x&client_id=demo-web&client_secret=demo-web-secret';
const ENDPOINTS: Array<[string, string, string]> = [
  ['/token', FORM, 'grant_type=refresh_token&refresh_token=x&client_id=demo-web&client_secret=demo-web-secret'],
  ['/token/introspection', FORM, INTROSPECT],
  ['/token/revocation', FORM, INTROSPECT],
  ['/request', FORM, 'client_id=demo-web&client_secret=demo-web-secret&response_type=code'],
  ['/registration', 'application/json', JSON.stringify({ redirect_uris: ['https://rp.example/cb'] })],
  ['/userinfo', FORM, 'access_token=x'],
];
const CODINGS: Array<[string, string, (text: string) => Buffer]> = [
  ['gzip', 'gzip', (t) => gzipSync(t)],
  ['deflate', 'deflate', (t) => deflateSync(t)],
  ['br', 'br', (t) => brotliCompressSync(t)],
  ['gzip on a body that is not gzip', 'gzip', (t) => Buffer.from(t)],
  ['an unknown coding', 'x-bogus', (t) => Buffer.from(t)],
  ['identity then gzip', 'identity, gzip', (t) => gzipSync(t)],
];

async function send(origin: string, path: string, type: string, coding: string | undefined, body: Buffer) {
  const res = await fetch(origin + path, {
    method: 'POST',
    headers: {
      'content-type': type,
      accept: 'application/json',
      authorization: path === '/registration' ? 'Bearer demo-initial-access-token' : '',
      ...(coding ? { 'content-encoding': coding } : {}),
    },
    body: new Uint8Array(body),
  });
  return {
    status: res.status,
    acceptEncoding: res.headers.get('accept-encoding'),
    body: (await res.json()) as Record<string, unknown>,
  };
}

const ENCODED = (coding: string) => ({
  error: 'invalid_request',
  error_description: `This endpoint does not accept a Content-Encoding (the request has ${JSON.stringify(coding)}): send the body uncompressed.`,
});

describe.each(DEPLOYMENTS)('$name', (deployment) => {
  let origin: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ origin, close } = await startDeployment(
      (o) => ({ issuer: o, ...demoFixtures() }),
      deployment.host
        ? (app, portcullis) => {
            app.use(portcullis);
            app.use(bodyParser());
          }
        : undefined,
    ));
  });
  afterAll(() => close());

  const ROWS = ENDPOINTS.flatMap(([path, type, text]) =>
    CODINGS.map(([name, coding, encode]) => [path, name, type, coding, encode(text)] as const),
  );
  test.each(ROWS)(
    'POST %s with %s → 415 invalid_request, Accept-Encoding: identity',
    async (path, _name, type, coding, body) => {
      const res = await send(origin, path, type, coding, body);
      expect([path, coding, res.status, res.acceptEncoding, res.body]).toEqual([
        path,
        coding,
        415,
        'identity',
        ENCODED(coding),
      ]);
    },
  );

  test.each([
    ['identity', 'identity'],
    ['no Content-Encoding', undefined],
  ])('introspection with %s is answered by the endpoint', async (_name, coding) => {
    const res = await send(origin, '/token/introspection', FORM, coding, Buffer.from(INTROSPECT));
    expect([res.status, res.body]).toEqual([200, { active: false }]);
  });
});

describe('host app whose parser in front of Portcullis decodes the body', () => {
  let origin: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ origin, close } = await startDeployment(
      (o) => ({ issuer: o, ...demoFixtures() }),
      (app, portcullis) => {
        app.use(bodyParser());
        app.use(portcullis);
      },
    ));
  });
  afterAll(() => close());

  test.each(CODINGS.slice(0, 3))(
    'introspection with a %s body is answered by the endpoint (the host decoded it)',
    async (_name, coding, encode) => {
      const res = await send(origin, '/token/introspection', FORM, coding, encode(INTROSPECT));
      expect([res.status, res.body]).toEqual([200, { active: false }]);
    },
  );
});
