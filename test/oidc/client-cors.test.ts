import { TestBrowser } from '../helpers/browser.js';
import { browse } from '../helpers/flow.js';
import { CHALLENGE, query, VERIFIER } from '../helpers/authorization.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * The CORS policy of the endpoints that act for a client (oidc-provider's `clientBasedCORS`,
 * lib/oidc/client-cors.ts): a browser may read their answers only from the origin of one of the client's http(s)
 * redirect URIs. An opaque origin (`Origin: null`: sandboxed iframes, data: and file: documents) is never allowed,
 * not even for a native app whose private-use-scheme redirect URI also has the origin "null".
 */

const NATIVE = { id: 'cors-native', uri: 'com.example.app:/cb' };
const LOOPBACK = { id: 'cors-loopback', uri: 'http://127.0.0.1/cb' };
const WEB = { id: 'cors-web', secret: 'cors-web-secret-0123', uri: 'https://app.example.com/cb' };

let srv: RunningServer;
beforeAll(async () => {
  srv = await startServer({
    clients: [
      {
        client_id: NATIVE.id,
        redirect_uris: [NATIVE.uri],
        application_type: 'native',
        token_endpoint_auth_method: 'none',
      },
      {
        client_id: LOOPBACK.id,
        redirect_uris: [LOOPBACK.uri],
        application_type: 'native',
        token_endpoint_auth_method: 'none',
      },
      {
        client_id: WEB.id,
        client_secret: WEB.secret,
        redirect_uris: [WEB.uri],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
  });
});
afterAll(() => srv.close());

/** A code exchange with an unknown code, sent by a browser page of `origin`. */
async function exchange(origin: string, client: { id: string; uri: string; secret?: string }) {
  const res = await fetch(`${srv.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: 'not-a-code',
      redirect_uri: client.uri,
      code_verifier: VERIFIER,
      client_id: client.id,
      ...(client.secret ? { client_secret: client.secret } : {}),
    }),
  });
  return {
    status: res.status,
    allowOrigin: res.headers.get('access-control-allow-origin'),
    body: (await res.json()) as { error?: string; error_description?: string },
  };
}

type Row = [
  name: string,
  origin: string,
  client: { id: string; uri: string; secret?: string },
  allowOrigin: string | null,
  error: string,
];
const ROWS: Row[] = [
  ['opaque origin, native client with a private-use scheme', 'null', NATIVE, null, 'invalid_request'],
  ['opaque origin, native client on loopback', 'null', LOOPBACK, null, 'invalid_request'],
  ['opaque origin, web client', 'null', WEB, null, 'invalid_request'],
  ['another site, web client', 'https://attacker.example', WEB, null, 'invalid_request'],
  ['the private-use scheme spelled as an origin', 'com.example.app://', NATIVE, null, 'invalid_request'],
  // Allowed: the client's own origin reads the protocol's answer (here the unknown code's invalid_grant).
  ["the web client's redirect URI origin", 'https://app.example.com', WEB, 'https://app.example.com', 'invalid_grant'],
  ['the loopback redirect URI origin', 'http://127.0.0.1', LOOPBACK, 'http://127.0.0.1', 'invalid_grant'],
];

describe('POST /token from a browser page', () => {
  test.each(ROWS)('%s', async (_name, origin, client, allowOrigin, error) => {
    const res = await exchange(origin, client);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(error);
    expect(res.allowOrigin).toBe(allowOrigin);
    if (error === 'invalid_request')
      expect(res.body.error_description).toBe(`origin ${origin} not allowed for client: ${client.id}`);
  });
});

describe("userinfo with a native client's access token", () => {
  let accessToken: string;
  beforeAll(async () => {
    const params = {
      client_id: NATIVE.id,
      response_type: 'code',
      scope: 'openid email',
      redirect_uri: NATIVE.uri,
      state: 'cors',
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
    };
    const { callback } = await browse(new TestBrowser(srv.issuer), `${srv.issuer}/authorization?${query(params)}`);
    const res = await fetch(`${srv.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: NATIVE.uri,
        code_verifier: VERIFIER,
        client_id: NATIVE.id,
      }),
    });
    accessToken = ((await res.json()) as { access_token: string }).access_token;
  });

  test('is refused to an opaque origin (no Access-Control-Allow-Origin: null)', async () => {
    const res = await fetch(`${srv.issuer}/userinfo`, {
      headers: { authorization: `Bearer ${accessToken}`, origin: 'null' },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(await res.json()).toEqual({
      error: 'invalid_request',
      error_description: `origin null not allowed for client: ${NATIVE.id}`,
    });
  });

  test('is answered without an Origin (the app itself, not a browser page)', async () => {
    const res = await fetch(`${srv.issuer}/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ sub: 'alice', email: 'alice@example.com' });
  });
});
