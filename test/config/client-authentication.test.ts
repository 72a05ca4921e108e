import { exportJWK, generateKeyPair } from 'jose';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { errorOf } from '../helpers/errors.js';
import { ConfigError, loadConfig, type PortcullisConfig } from '../../lib/index.js';

// How a configured client authenticates (token_endpoint_auth_method and the members it needs): every mistake is a
// ConfigError naming clients[i].<member>, with the same rules registration applies to inline keys and jwks_uri.
const ec = await generateKeyPair('ES256', { extractable: true });
const ecPublic = { ...(await exportJWK(ec.publicKey)), kty: 'EC', kid: 'sig' };
const ecPrivate = { ...(await exportJWK(ec.privateKey)), kty: 'EC', kid: 'sig' };
const rsaPrivate = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }) as {
  kty: string;
};
const encOnly = { ...ecPublic, use: 'enc' };
const p384 = { ...(await exportJWK((await generateKeyPair('ES384')).publicKey)), kty: 'EC' };
const SECRET_32 = 'abcdefghijklmnopqrstuvwxyz012345';
const base = { client_id: 'rp', redirect_uris: ['https://rp.example/cb'] };
const pkjwt = { ...base, token_endpoint_auth_method: 'private_key_jwt' };
const csjwt = { ...base, token_endpoint_auth_method: 'client_secret_jwt' };
const load = (client: Record<string, unknown>) =>
  loadConfig({ issuer: 'http://localhost:3000', clients: [client] } as unknown as PortcullisConfig, {});

const KEYS_ONLY_PUBLIC = "a client's jwks holds public keys only; keep the private key with the client";
const USE_KEYS = 'has no public key that verifies';

describe("a configured client's authentication method and keys are checked at start-up", () => {
  test.each<[string, Record<string, unknown>, string, string]>([
    [
      'private_key_jwt without jwks or jwks_uri',
      pkjwt,
      'clients[0].jwks',
      'token_endpoint_auth_method "private_key_jwt" needs the client\'s public keys: set jwks (a JWK Set of public keys) or jwks_uri',
    ],
    [
      'private_key_jwt with a client_secret',
      { ...pkjwt, jwks: { keys: [ecPublic] }, client_secret: SECRET_32 },
      'clients[0].client_secret',
      'a private_key_jwt client authenticates with its key pair, not a secret: remove client_secret',
    ],
    [
      'both jwks and jwks_uri',
      { ...pkjwt, jwks: { keys: [ecPublic] }, jwks_uri: 'https://rp.example/jwks.json' },
      'clients[0].jwks_uri',
      "give the client's public keys either inline (jwks) or by URL (jwks_uri), not both",
    ],
    [
      'an EC private key (d) in jwks',
      { ...pkjwt, jwks: { keys: [ecPrivate] } },
      'clients[0].jwks',
      `client "rp": jwks.keys[0] (EC) has the private key member "d": ${KEYS_ONLY_PUBLIC}`,
    ],
    [
      'an RSA private key in jwks, second key',
      { ...pkjwt, jwks: { keys: [ecPublic, rsaPrivate] } },
      'clients[0].jwks',
      `client "rp": jwks.keys[1] (RSA) has the private key member "d": ${KEYS_ONLY_PUBLIC}`,
    ],
    [
      'a symmetric (oct) key in jwks',
      { ...pkjwt, jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } },
      'clients[0].jwks',
      'client "rp": jwks.keys[0] (oct) is a symmetric key: a client\'s jwks holds public keys only (a shared secret is the client_secret)',
    ],
    [
      'an EC point off its curve (the registration key check)',
      { ...pkjwt, jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'AAAA' }] } },
      'clients[0].jwks',
      'client "rp": jwks.keys[0] (EC) is not a usable public key (ERR_CRYPTO_INVALID_JWK)',
    ],
    [
      'jwks with an encryption key only',
      { ...pkjwt, jwks: { keys: [encOnly] } },
      'clients[0].jwks',
      `${USE_KEYS} RS256, PS256, ES256, Ed25519, EdDSA assertions (RSA for RS256 and PS256, EC P-256 for ES256, OKP Ed25519 for Ed25519 and EdDSA; without "use": "enc" and with no other "alg")`,
    ],
    [
      'jwks with a P-384 key only (ES384 is not accepted)',
      { ...pkjwt, jwks: { keys: [p384] } },
      'clients[0].jwks',
      `${USE_KEYS} RS256, PS256, ES256, Ed25519, EdDSA assertions (RSA for RS256 and PS256, EC P-256 for ES256, OKP Ed25519 for Ed25519 and EdDSA; without "use": "enc" and with no other "alg")`,
    ],
    [
      'RS256 with only an EC key',
      { ...pkjwt, token_endpoint_auth_signing_alg: 'RS256', jwks: { keys: [ecPublic] } },
      'clients[0].jwks',
      `${USE_KEYS} RS256 assertions (RSA for RS256 and PS256, EC P-256 for ES256, OKP Ed25519 for Ed25519 and EdDSA; without "use": "enc" and with no other "alg")`,
    ],
    [
      'jwks_uri over plain http',
      { ...pkjwt, jwks_uri: 'http://rp.example/jwks.json' },
      'clients[0].jwks_uri',
      'client "rp": jwks_uri must use https (got http); the server only fetches public https URLs',
    ],
    [
      'jwks_uri at a private address',
      { ...pkjwt, jwks_uri: 'https://10.0.0.7/jwks.json' },
      'clients[0].jwks_uri',
      'client "rp": jwks_uri points to a non-public address (10.0.0.7); the server only fetches public https URLs',
    ],
    [
      'client_secret_jwt without a secret',
      csjwt,
      'clients[0].client_secret',
      'is required for a confidential client (or set token_endpoint_auth_method to "none")',
    ],
    [
      'client_secret_jwt with a 31-byte secret',
      { ...csjwt, client_secret: SECRET_32.slice(1) },
      'clients[0].client_secret',
      'client_secret_jwt uses the secret as an HS256 key, which must be at least 32 bytes (256 bits, RFC 7518 §3.2): configure a longer random secret',
    ],
    [
      'private_key_jwt with HS256',
      { ...pkjwt, token_endpoint_auth_signing_alg: 'HS256', jwks: { keys: [ecPublic] } },
      'clients[0].token_endpoint_auth_signing_alg',
      'HS256 cannot be used with private_key_jwt: use RS256, PS256, ES256, Ed25519, EdDSA',
    ],
    [
      'client_secret_jwt with ES256',
      { ...csjwt, client_secret: SECRET_32, token_endpoint_auth_signing_alg: 'ES256' },
      'clients[0].token_endpoint_auth_signing_alg',
      'ES256 cannot be used with client_secret_jwt: use HS256',
    ],
    [
      'a signing alg with client_secret_basic',
      { ...base, client_secret: SECRET_32, token_endpoint_auth_signing_alg: 'HS256' },
      'clients[0].token_endpoint_auth_signing_alg',
      'is only read with token_endpoint_auth_method "private_key_jwt" or "client_secret_jwt" (this client uses "client_secret_basic"): remove it',
    ],
    [
      'an unknown signing alg',
      { ...pkjwt, jwks: { keys: [ecPublic] }, token_endpoint_auth_signing_alg: 'ES512' },
      'clients[0].token_endpoint_auth_signing_alg',
      'must be one of "RS256", "PS256", "ES256", "Ed25519", "EdDSA", "HS256"',
    ],
    [
      'an auth method the server does not offer',
      { ...base, client_secret: SECRET_32, token_endpoint_auth_method: 'tls_client_auth' },
      'clients[0].token_endpoint_auth_method',
      'must be one of "client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt", "none"',
    ],
    ['jwks without keys', { ...pkjwt, jwks: { keys: [] } }, 'clients[0].jwks.keys', 'must NOT have fewer than 1 items'],
    [
      'dpop_bound_access_tokens not a boolean',
      { ...base, client_secret: SECRET_32, dpop_bound_access_tokens: 'yes' },
      'clients[0].dpop_bound_access_tokens',
      'must be boolean',
    ],
  ])('%s', (_name, client, path, message) => {
    const err = errorOf(() => load(client));
    expect(err).toBeInstanceOf(ConfigError);
    expect([err.code, err.path, err.message]).toEqual([
      'ERR_CONFIG_INVALID',
      path,
      `Invalid configuration at "${path}": ${message}`,
    ]);
  });

  test.each<[string, Record<string, unknown>]>([
    ['private_key_jwt with inline public keys', { ...pkjwt, jwks: { keys: [encOnly, ecPublic] } }],
    [
      'private_key_jwt with an https jwks_uri and ES256',
      { ...pkjwt, jwks_uri: 'https://rp.example/jwks.json', token_endpoint_auth_signing_alg: 'ES256' },
    ],
    [
      'client_secret_jwt with a 32-byte secret and HS256',
      { ...csjwt, client_secret: SECRET_32, token_endpoint_auth_signing_alg: 'HS256' },
    ],
    ['a DPoP-bound public client', { ...base, token_endpoint_auth_method: 'none', dpop_bound_access_tokens: true }],
  ])('accepted: %s (the rows above fail for their reason)', (_name, client) => {
    expect(load(client).clients[0]).toEqual(client);
  });
});

test('the docs example of configured clients with private_key_jwt, client_secret_jwt and DPoP loads as written', () => {
  const readme = readFileSync(new URL('../../docs/guides/client-registration.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Configured clients: private_key_jwt'));
  const example = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(section)![1]!) as {
    clients: Array<Record<string, unknown>>;
  };
  const config = loadConfig(
    { issuer: 'https://id.example.com', clients: example.clients } as unknown as PortcullisConfig,
    {},
  );
  expect(config.clients.map((c) => [c.client_id, c.token_endpoint_auth_method])).toEqual([
    ['bank-portal', 'private_key_jwt'],
    ['partner', 'private_key_jwt'],
    ['backend', 'client_secret_jwt'],
  ]);
  expect(config.clients[0]!.dpop_bound_access_tokens).toBe(true);
});
