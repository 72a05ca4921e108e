import { compactDecrypt, exportJWK, generateKeyPair } from 'jose';
import { oidc, signIn } from '../helpers/flow.js';
import { register, WEB_CLIENT } from '../helpers/registration.js';
import { startServer, type RunningServer } from '../helpers/server.js';

// A client asking for encrypted ID tokens or userinfo with RSA-OAEP* or ECDH-ES* encrypts to a key of its inline
// jwks. oidc-provider accepted a jwks no key of which fits the algorithm (empty, signing keys only, the wrong kty,
// another alg): 201, then every encrypted response failed with 400 "no suitable encryption key found"; and a first
// fitting key jose cannot use (key_ops ["encrypt"], an Ed25519 key for ECDH-ES) failed with 500. Refused now at
// registration and at RFC 7592 updates; keys at a jwks_uri are only fetched later and are not judged here.
let srv: RunningServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

const pair = async (alg: string, crv?: string) => generateKeyPair(alg, { extractable: true, ...(crv ? { crv } : {}) });
const rsaPair = await pair('RSA-OAEP-256');
const rsa = await exportJWK(rsaPair.publicKey);
const ecPair = await pair('ECDH-ES', 'P-256');
const ec = await exportJWK(ecPair.publicKey);
const xPair = await pair('ECDH-ES', 'X25519');
const x25519 = await exportJWK(xPair.publicKey);
const ed25519 = await exportJWK((await pair('EdDSA', 'Ed25519')).publicKey);

const RSA_NEEDS = 'an RSA key with "use" absent or "enc"';
const EC_NEEDS = 'an EC (P-256, P-384, P-521) or OKP (X25519) key with "use" absent or "enc"';
function none(member: string, alg: string, needs: string): string {
  return `${member} ${alg} needs a key in jwks to encrypt to, and none fits: ${needs}, "alg" absent or "${alg}" and "key_ops" absent or ${alg.startsWith('RSA') ? '["encrypt","wrapKey"]' : '[]'}; responses encrypted with it would all fail`;
}
const U = 'userinfo_encrypted_response_alg';
const I = 'id_token_encrypted_response_alg';

const refused: Array<[string, Record<string, unknown>, string]> = [
  ['no keys at all', { [U]: 'RSA-OAEP-256', jwks: { keys: [] } }, none(U, 'RSA-OAEP-256', RSA_NEEDS)],
  [
    'a signing key only (use "sig")',
    { [I]: 'RSA-OAEP', jwks: { keys: [{ ...rsa, use: 'sig' }] } },
    none(I, 'RSA-OAEP', RSA_NEEDS),
  ],
  ['an EC key for RSA-OAEP', { [I]: 'RSA-OAEP', jwks: { keys: [ec] } }, none(I, 'RSA-OAEP', RSA_NEEDS)],
  [
    'an RSA key naming another alg',
    { [U]: 'RSA-OAEP-256', jwks: { keys: [{ ...rsa, alg: 'RSA-OAEP' }] } },
    none(U, 'RSA-OAEP-256', RSA_NEEDS),
  ],
  [
    'an RSA key whose key_ops lack "encrypt"',
    { [U]: 'RSA-OAEP', jwks: { keys: [{ ...rsa, key_ops: ['wrapKey'] }] } },
    none(U, 'RSA-OAEP', RSA_NEEDS),
  ],
  ['an RSA key for ECDH-ES', { [U]: 'ECDH-ES', jwks: { keys: [rsa] } }, none(U, 'ECDH-ES', EC_NEEDS)],
  [
    'an EC signing key for ECDH-ES+A128KW',
    { [I]: 'ECDH-ES+A128KW', jwks: { keys: [{ ...ec, use: 'sig' }] } },
    none(I, 'ECDH-ES+A128KW', EC_NEEDS),
  ],
  [
    'the id_token alg unfit while the userinfo alg fits',
    { [U]: 'RSA-OAEP', [I]: 'ECDH-ES', jwks: { keys: [rsa] } },
    none(I, 'ECDH-ES', EC_NEEDS),
  ],
  [
    'an RSA key with key_ops ["encrypt"] (jose needs "wrapKey")',
    { [U]: 'RSA-OAEP-256', jwks: { keys: [{ ...rsa, key_ops: ['encrypt'] }] } },
    `jwks.keys[0] is the key ${U} RSA-OAEP-256 would encrypt to, but its "key_ops" ["encrypt"] do not allow it; leave "key_ops" out or send ["encrypt","wrapKey"]`,
  ],
  [
    'an RSA key with key_ops also holding "verify"',
    { [U]: 'RSA-OAEP', jwks: { keys: [{ ...rsa, key_ops: ['encrypt', 'wrapKey', 'verify'] }] } },
    `jwks.keys[0] is the key ${U} RSA-OAEP would encrypt to, but its "key_ops" ["encrypt","wrapKey","verify"] do not allow it`,
  ],
  [
    'an EC key with key_ops ["deriveBits"] (a public ECDH key has no usage)',
    { [I]: 'ECDH-ES', jwks: { keys: [{ ...ec, key_ops: ['deriveBits'] }] } },
    `jwks.keys[0] is the key ${I} ECDH-ES would encrypt to, but its "key_ops" ["deriveBits"] do not allow it; leave "key_ops" out or send []`,
  ],
  [
    'an Ed25519 key for ECDH-ES',
    { [U]: 'ECDH-ES', jwks: { keys: [ed25519] } },
    `jwks.keys[0] is the key ${U} ECDH-ES would encrypt to, but ECDH-ES cannot use a Ed25519 key (mark it "use": "sig" if it signs); the key needs crv P-256, P-384, P-521 or X25519`,
  ],
  [
    'an Ed25519 key listed before an X25519 key (the first is chosen)',
    { [U]: 'ECDH-ES', jwks: { keys: [ed25519, x25519] } },
    `jwks.keys[0] is the key ${U} ECDH-ES would encrypt to, but ECDH-ES cannot use a Ed25519 key`,
  ],
];

describe('inline jwks must hold a key for each public-key encryption algorithm (OIDC Registration §2, RFC 7518 §4.3/§4.6)', () => {
  test.each(refused)('%s: invalid_client_metadata', async (_name, metadata, description) => {
    const res = await register(srv.issuer, { ...WEB_CLIENT, ...metadata });
    expect([res.status, res.body.error]).toEqual([400, 'invalid_client_metadata']);
    expect(res.body.error_description).toContain(description);
  });

  test('an RFC 7592 update asking for encrypted userinfo with only a signing key is refused', async () => {
    const created = await register(srv.issuer, { ...WEB_CLIENT, jwks: { keys: [{ ...rsa, use: 'sig' }] } });
    expect(created.status).toBe(201);
    const {
      registration_access_token: token,
      registration_client_uri: uri,
      client_id_issued_at: _i,
      client_secret_expires_at: _e,
      ...current
    } = created.body;
    const put = await fetch(uri as string, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token as string}` },
      body: JSON.stringify({ ...current, [U]: 'RSA-OAEP-256' }),
    });
    expect(put.status).toBe(400);
    expect(await put.json()).toEqual({
      error: 'invalid_client_metadata',
      error_description: expect.stringContaining(none(U, 'RSA-OAEP-256', RSA_NEEDS)),
    });
  });

  test.each([
    [
      'a signing key beside an encryption key',
      {
        [I]: 'RSA-OAEP',
        jwks: {
          keys: [
            { ...rsa, use: 'sig', kid: 's' },
            { ...rsa, use: 'enc', kid: 'e' },
          ],
        },
      },
    ],
    [
      'an Ed25519 signing key beside an X25519 key',
      { [U]: 'ECDH-ES+A256KW', jwks: { keys: [{ ...ed25519, use: 'sig' }, x25519] } },
    ],
    [
      'an EC key naming its alg, with key_ops []',
      { [I]: 'ECDH-ES', jwks: { keys: [{ ...ec, alg: 'ECDH-ES', key_ops: [] }] } },
    ],
    ['symmetric algorithms use the client secret: no key needed', { [U]: 'A128KW', [I]: 'dir', jwks: { keys: [] } }],
    ['keys at a jwks_uri are not judged at registration', { [U]: 'RSA-OAEP', jwks_uri: 'https://rp.example/jwks' }],
  ])('accepted: %s', async (_name, metadata) => {
    const res = await register(srv.issuer, { ...WEB_CLIENT, ...metadata });
    expect(res.status).toBe(201);
  });

  // What the accepted forms lead to: userinfo encrypted to the key, which the client decrypts.
  test.each([
    [
      'RSA-OAEP-256 to an RSA key with key_ops ["encrypt","wrapKey"]',
      'RSA-OAEP-256',
      { ...rsa, key_ops: ['encrypt', 'wrapKey'] },
      rsaPair.privateKey,
    ],
    ['ECDH-ES to an X25519 key', 'ECDH-ES', x25519, xPair.privateKey],
    ['ECDH-ES+A128KW to a P-256 key', 'ECDH-ES+A128KW', { ...ec, use: 'enc' }, ecPair.privateKey],
  ])('%s: /userinfo answers a JWE the client decrypts', async (_name, alg, jwk, privateKey) => {
    const redirectUri = 'http://localhost:8080/callback';
    const reg = await register(srv.issuer, {
      redirect_uris: [redirectUri],
      [U]: alg,
      userinfo_encrypted_response_enc: 'A128GCM',
      jwks: { keys: [jwk] },
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
      { config, clientId, redirectUri },
      { params: { scope: 'openid email' } },
    );
    const res = await fetch(`${srv.issuer}/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(res.status).toBe(200);
    const { protectedHeader } = await compactDecrypt(await res.text(), privateKey);
    expect(protectedHeader).toMatchObject({ alg, enc: 'A128GCM' });
  });
});
