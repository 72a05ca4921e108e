import { generateKeyPairSync } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import { register, WEB_CLIENT } from '../helpers/registration.js';
import { startServer, type RunningServer } from '../helpers/server.js';

// Inline client keys (RFC 7591 §2 `jwks`) that Node cannot import, or RSA keys under 2048 bits, are refused at
// registration. oidc-provider checked only their members' shape: such a client was registered (201) and the
// first userinfo response or ID token encrypted to the key failed with 500 server_error.
let srv: RunningServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' });
const good = { ...(await exportJWK((await generateKeyPair('RSA-OAEP-256')).publicKey)), use: 'enc', kid: 'enc' };
const encrypted = { userinfo_encrypted_response_alg: 'RSA-OAEP-256' };

const bad: Array<[string, Record<string, unknown>, string]> = [
  ['RSA with a one-character modulus', { kty: 'RSA', n: 'x', e: 'AQAB' }, 'jwks.keys[1] (RSA) has a 0-bit modulus'],
  ['RSA of 1024 bits', small as Record<string, unknown>, 'jwks.keys[1] (RSA) has a 1024-bit modulus'],
  [
    'EC point off its curve',
    { kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'AAAA' },
    'jwks.keys[1] (EC) is not a usable public key (ERR_CRYPTO_INVALID_JWK)',
  ],
  [
    'OKP X25519 of one byte',
    { kty: 'OKP', crv: 'X25519', x: 'AA' },
    'jwks.keys[1] (OKP) is not a usable public key (ERR_CRYPTO_INVALID_JWK)',
  ],
  [
    'OKP Ed25519 of one byte',
    { kty: 'OKP', crv: 'Ed25519', x: 'AA' },
    'jwks.keys[1] (OKP) is not a usable public key (ERR_CRYPTO_INVALID_JWK)',
  ],
];

describe('inline jwks keys must be usable (RFC 7591 §2, RFC 7518 §3.3/§4.3)', () => {
  test.each(bad)('%s: invalid_client_metadata naming the key', async (_name, key, description) => {
    const res = await register(srv.issuer, {
      ...WEB_CLIENT,
      ...encrypted,
      jwks: { keys: [good, { ...key, use: 'enc' }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client_metadata');
    expect(res.body.error_description).toContain(description);
  });

  test.each(bad)('%s: refused at an RFC 7592 update too', async (_name, key, description) => {
    const reg = await register(srv.issuer, { ...WEB_CLIENT });
    expect(reg.status).toBe(201);
    const {
      client_id: clientId,
      registration_client_uri: uri,
      registration_access_token: rat,
    } = reg.body as Record<string, string>;
    const res = await fetch(uri!, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${rat}` },
      body: JSON.stringify({ ...WEB_CLIENT, client_id: clientId, jwks: { keys: [good, key] } }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'invalid_client_metadata',
      error_description: expect.stringContaining(description),
    });
  });

  test.each([
    ['a usable RSA key', [good]],
    ['a key type oidc-provider ignores (unknown curve)', [good, { kty: 'EC', crv: 'P-999', x: 'AAAA', y: 'AAAA' }]],
  ])('%s is accepted', async (_name, keys) => {
    const res = await register(srv.issuer, { ...WEB_CLIENT, ...encrypted, jwks: { keys } });
    expect(res.status).toBe(201);
  });
});

// A key with private or secret material was refused by oidc-provider as "client JSON Web Key Set is invalid", without
// saying which key or why; the description now names the key and the member (never its value).
const ecPair = await generateKeyPair('ES256', { extractable: true });
const PUBLIC_ONLY = "a client's jwks holds public keys only; keep the private key with the client";
const secretBearing: Array<[string, Record<string, unknown>, string]> = [
  [
    'an EC private key',
    { ...(await exportJWK(ecPair.privateKey)), use: 'sig' },
    `jwks.keys[1] (EC) has the private key member "d": ${PUBLIC_ONLY}`,
  ],
  [
    'an RSA private key',
    generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }) as Record<string, unknown>,
    `jwks.keys[1] (RSA) has the private key member "d": ${PUBLIC_ONLY}`,
  ],
  [
    'a public key with a stray private member',
    { ...(await exportJWK(ecPair.publicKey)), d: 'AAAA' },
    `jwks.keys[1] (EC) has the private key member "d": ${PUBLIC_ONLY}`,
  ],
  [
    'a symmetric key',
    { kty: 'oct', k: 'c2VjcmV0LXNlY3JldC1zZWNyZXQ' },
    "jwks.keys[1] (oct) is a symmetric key: a client's jwks holds public keys only (a shared secret is the client_secret)",
  ],
];

test.each(secretBearing)(
  '%s in jwks: invalid_client_metadata naming the key and member',
  async (_name, key, description) => {
    const res = await register(srv.issuer, { ...WEB_CLIENT, jwks: { keys: [good, key] } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_client_metadata', error_description: description });
  },
);
