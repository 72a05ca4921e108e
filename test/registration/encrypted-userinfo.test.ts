import { compactDecrypt, createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify, decodeProtectedHeader } from 'jose';
import { oidc, signIn } from '../helpers/flow.js';
import { register } from '../helpers/registration.js';
import { startHttp } from '../helpers/canary.js';
import { startServer, type RunningServer } from '../helpers/server.js';

// The relying party publishes its encryption key at a jwks_uri on 127.0.0.1, reachable only because the server
// allow-lists that origin: the keys reach oidc-provider through the guarded fetcher.
let srv: RunningServer;
let jwksServer: Awaited<ReturnType<typeof startHttp>>;
const published: Array<Record<string, unknown>> = [];
beforeAll(async () => {
  jwksServer = await startHttp((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: published.filter((k) => req.url === `/jwks/${k.kid as string}`) }));
  });
  srv = await startServer({ outboundFetch: { allowedOrigins: [jwksServer.origin] } });
});
afterAll(async () => {
  await srv.close();
  await jwksServer.close();
});

/** Registers a client whose userinfo responses are signed then encrypted to its RSA key; signs alice in. */
async function encryptedUserinfo(
  alg: string,
  enc: string,
  served?: (jwk: Record<string, unknown>) => Record<string, unknown>,
) {
  const { publicKey, privateKey } = await generateKeyPair('RSA-OAEP-256', { extractable: true });
  const kid = `rp-enc-${published.length}`;
  const jwk = { ...(await exportJWK(publicKey)), use: 'enc', kid };
  published.push(served ? served(jwk) : jwk);
  const reg = await register(srv.issuer, {
    redirect_uris: ['http://localhost:8080/callback'],
    jwks_uri: `${jwksServer.origin}/jwks/${kid}`,
    userinfo_encrypted_response_alg: alg,
    userinfo_encrypted_response_enc: enc,
  });
  expect(reg.status).toBe(201);
  const clientId = reg.body.client_id as string;
  const config = await oidc.discovery(
    new URL(srv.issuer),
    clientId,
    undefined,
    oidc.ClientSecretBasic(reg.body.client_secret as string),
    { execute: [oidc.allowInsecureRequests] },
  );
  const { tokens } = await signIn(
    srv.issuer,
    { config, clientId, redirectUri: 'http://localhost:8080/callback' },
    { params: { scope: 'openid email' } },
  );
  const res = await fetch(`${srv.issuer}/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
  return { res, privateKey, clientId, kid };
}

describe('encrypted userinfo responses (OIDC Core §5.3.2, Registration §2)', () => {
  test.each(['A128CBC-HS256', 'A192CBC-HS384', 'A256CBC-HS512', 'A128GCM', 'A192GCM', 'A256GCM'])(
    'RSA-OAEP-256 + %s decrypts to a signed userinfo JWT',
    async (enc) => {
      const { res, privateKey, clientId, kid } = await encryptedUserinfo('RSA-OAEP-256', enc);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('application/jwt');
      const jwe = await res.text();
      const { plaintext, protectedHeader } = await compactDecrypt(jwe, privateKey);
      expect(protectedHeader).toMatchObject({ alg: 'RSA-OAEP-256', enc, kid });
      const jws = new TextDecoder().decode(plaintext);
      expect(decodeProtectedHeader(jws).alg).toBe('RS256');
      const { payload } = await jwtVerify(jws, createRemoteJWKSet(new URL(`${srv.issuer}/.well-known/jwks.json`)), {
        issuer: srv.issuer,
        audience: clientId,
      });
      expect(payload).toMatchObject({ sub: 'alice', email: 'alice@example.com' });
      expect(jwksServer.requests).toBeGreaterThan(0);
    },
  );
});

describe('a jwks_uri serving keys Node cannot use (inline jwks are refused at registration; these arrive later)', () => {
  // Each row: the published key, spoiled after registration-time shape checks would pass. Before the fix each
  // answered 500 server_error at /userinfo (oidc-provider checks only the members' shape).
  test.each([
    ['an RSA modulus of one byte', (k: Record<string, unknown>) => ({ ...k, n: 'AQ' })],
    ['an RSA key without a modulus that Node can read', (k: Record<string, unknown>) => ({ ...k, n: 'x' })],
    ['a 1024-bit RSA key', (k: Record<string, unknown>) => ({ ...k, n: (k.n as string).slice(0, 171) })],
  ])('%s: /userinfo answers 400 invalid_client_metadata, not a 500', async (_name, spoil) => {
    const { res } = await encryptedUserinfo('RSA-OAEP-256', 'A128GCM', spoil);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; error_description: string };
    expect(body.error).toBe('invalid_client_metadata');
    expect(body.error_description).toMatch(/no suitable encryption key found|encryption key/);
  });
});
