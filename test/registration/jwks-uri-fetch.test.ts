import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { randomUUID } from 'node:crypto';
import { startCanary, startHttp, type Canary } from '../helpers/canary.js';
import { register } from '../helpers/registration.js';
import { startServer, type RunningServer } from '../helpers/server.js';

// A client authenticating with private_key_jwt makes the server fetch its jwks_uri (through oidc-provider's
// `fetch` hook = the guarded fetcher). The key host is allow-listed; what it answers decides the outcome.
let canary: Canary;
let keyHost: Awaited<ReturnType<typeof startHttp>>;
let srv: RunningServer;
const { publicKey, privateKey } = await generateKeyPair('ES256');
const jwk = { ...(await exportJWK(publicKey)), kid: 'rp-sig', alg: 'ES256', use: 'sig' };

beforeAll(async () => {
  canary = await startCanary();
  keyHost = await startHttp((req, res) => {
    if (req.url === '/jwks') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [jwk] }));
      return;
    }
    if (req.url === '/redirect') {
      res.statusCode = 302;
      res.setHeader('location', `http://127.0.0.1:${canary.port}/jwks`);
      res.end();
      return;
    }
    if (req.url === '/huge') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [jwk], pad: 'x'.repeat(600 * 1024) }));
      return;
    }
    res.statusCode = 404;
    res.end();
  });
  srv = await startServer({ outboundFetch: { allowedOrigins: [keyHost.origin] } });
});
afterAll(async () => {
  await srv.close();
  await keyHost.close();
  await canary.close();
});

async function introspectWithPrivateKeyJwt(jwksPath: string) {
  const reg = await register(srv.issuer, {
    redirect_uris: ['https://rp.example/cb'],
    token_endpoint_auth_method: 'private_key_jwt',
    token_endpoint_auth_signing_alg: 'ES256',
    jwks_uri: `${keyHost.origin}${jwksPath}`,
  });
  expect(reg.status).toBe(201);
  const clientId = reg.body.client_id as string;
  const assertion = await new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: 'rp-sig' })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(srv.issuer)
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime('1m')
    .sign(privateKey);
  const res = await fetch(`${srv.issuer}/token/introspection`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      token: 'x',
      client_id: clientId,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
    }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('jwks_uri is fetched through the guarded fetcher', () => {
  test('keys from an allow-listed jwks_uri authenticate the client', async () => {
    const before = keyHost.requests;
    const res = await introspectWithPrivateKeyJwt('/jwks');
    expect(res).toEqual({ status: 200, body: { active: false } });
    expect(keyHost.requests).toBeGreaterThan(before);
  });

  test.each([
    ['a redirect to a loopback address is not followed', '/redirect'],
    ['a response over the size cap is refused', '/huge'],
  ])('%s: the client gets invalid_client and the canary no connection', async (_name, path) => {
    const before = canary.connections;
    const res = await introspectWithPrivateKeyJwt(path);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
    expect(res.body.error_description).toEqual(expect.any(String));
    expect(canary.connections).toBe(before);
  });
});
