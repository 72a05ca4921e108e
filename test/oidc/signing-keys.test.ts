import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { ConfigError, createServer, generateSigningKeys, type PrivateJwks } from '../../lib/index.js';
import { oidc, signIn } from '../helpers/flow.js';
import { register } from '../helpers/registration.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/** Registers a client with the given ID token algorithm and returns a relying party for it. */
async function clientWithAlg(srv: RunningServer, alg?: string) {
  const reg = await register(srv.issuer, {
    redirect_uris: ['http://localhost:8080/callback'],
    ...(alg ? { id_token_signed_response_alg: alg } : {}),
  });
  expect(reg.status).toBe(201);
  const clientId = reg.body.client_id as string;
  const config = await oidc.discovery(
    new URL(srv.issuer),
    clientId,
    {
      client_secret: reg.body.client_secret as string,
      id_token_signed_response_alg: reg.body.id_token_signed_response_alg as string,
    },
    undefined,
    { execute: [oidc.allowInsecureRequests] },
  );
  return { config, clientId, redirectUri: 'http://localhost:8080/callback' };
}

async function idTokenFrom(srv: RunningServer, alg?: string) {
  const rp = await clientWithAlg(srv, alg);
  const { tokens } = await signIn(srv.issuer, rp);
  return { idToken: tokens.id_token!, clientId: rp.clientId };
}

async function verifyWithPublishedJwks(srv: RunningServer, idToken: string, clientId: string) {
  return jwtVerify(idToken, createRemoteJWKSet(new URL(`${srv.issuer}/.well-known/jwks.json`)), {
    issuer: srv.issuer,
    audience: clientId,
  });
}

describe('signing keys and ID tokens', () => {
  let keys: PrivateJwks;
  let srv: RunningServer;
  beforeAll(async () => {
    keys = await generateSigningKeys(['RS256', 'ES256', 'EdDSA']);
    srv = await startServer({ keys: { signing: keys } });
  });
  afterAll(() => srv.close());

  test('RS256 by default; ES256 and EdDSA per client; each verifies with jose against /.well-known/jwks.json', async () => {
    for (const [requested, expected] of [
      [undefined, 'RS256'],
      ['ES256', 'ES256'],
      ['EdDSA', 'EdDSA'],
      ['RS256', 'RS256'],
    ] as const) {
      const { idToken, clientId } = await idTokenFrom(srv, requested);
      const { payload, protectedHeader } = await verifyWithPublishedJwks(srv, idToken, clientId);
      expect(protectedHeader.alg).toBe(expected);
      expect(protectedHeader.kid).toBe(keys.keys.find((k) => k.alg === expected)!.kid);
      expect(payload.sub).toBe('alice');
    }
  });

  test('the JWKS publishes the public part of every configured key with kid, use and alg', async () => {
    const published = (await (await fetch(`${srv.issuer}/.well-known/jwks.json`)).json()) as {
      keys: Array<Record<string, unknown>>;
    };
    expect(published.keys.map((k) => k.kid).sort()).toEqual(keys.keys.map((k) => k.kid).sort());
    for (const key of published.keys) {
      for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) expect(key).not.toHaveProperty(secret);
      expect(key).toMatchObject({
        use: 'sig',
        alg: expect.stringMatching(/^(RS256|ES256|EdDSA)$/),
        kid: expect.any(String),
      });
    }
  });

  test('an algorithm without a configured key is refused at registration', async () => {
    const rsOnly = await startServer({ keys: { signing: await generateSigningKeys(['RS256']) } });
    try {
      const res = await register(rsOnly.issuer, {
        redirect_uris: ['https://rp.example/cb'],
        id_token_signed_response_alg: 'ES256',
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_client_metadata');
      expect(res.body.error_description).toContain('id_token_signed_response_alg');
      const none = await register(rsOnly.issuer, {
        redirect_uris: ['https://rp.example/cb'],
        id_token_signed_response_alg: 'none',
      });
      expect(none.status).toBe(400);
    } finally {
      await rsOnly.close();
    }
  });
});

describe('key rotation', () => {
  test('the newest key (first) signs; tokens signed by the older key still verify after rotation', async () => {
    const [oldKey] = (await generateSigningKeys(['RS256'])).keys;
    const [newKey] = (await generateSigningKeys(['RS256'])).keys;
    const before = await startServer({ keys: { signing: { keys: [oldKey!] } } });
    let oldToken: { idToken: string; clientId: string };
    try {
      oldToken = await idTokenFrom(before);
      expect(decodeProtectedHeader(oldToken.idToken).kid).toBe(oldKey!.kid);
    } finally {
      await before.close();
    }
    const after = await startServer({ keys: { signing: { keys: [newKey!, oldKey!] } } });
    try {
      const fresh = await idTokenFrom(after);
      expect(decodeProtectedHeader(fresh.idToken).kid).toBe(newKey!.kid);
      await verifyWithPublishedJwks(after, fresh.idToken, fresh.clientId);
      // Issuers differ per test server (port), so check the old token's signature against the new JWKS only.
      const { protectedHeader } = await jwtVerify(
        oldToken.idToken,
        createRemoteJWKSet(new URL(`${after.issuer}/.well-known/jwks.json`)),
      );
      expect(protectedHeader.kid).toBe(oldKey!.kid);
    } finally {
      await after.close();
    }
  });
});

describe('keys from a file', () => {
  test('keys.signing may be the path of a private JWKS file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portcullis-keys-'));
    const file = join(dir, 'jwks.json');
    const keys = await generateSigningKeys(['ES256', 'RS256']);
    writeFileSync(file, JSON.stringify(keys), { mode: 0o600 });
    const srv = await startServer({ keys: { signing: file } });
    try {
      const published = (await (await fetch(`${srv.issuer}/.well-known/jwks.json`)).json()) as {
        keys: Array<{ kid: string }>;
      };
      expect(published.keys.map((k) => k.kid).sort()).toEqual(keys.keys.map((k) => k.kid as string).sort());
    } finally {
      await srv.close();
    }
  });

  test.each([
    ['a missing file', () => '/nonexistent/portcullis/jwks.json', 'cannot read a JSON key set'],
    [
      'a file that is not JSON',
      () => {
        const f = join(mkdtempSync(join(tmpdir(), 'pk-')), 'x');
        writeFileSync(f, 'nope');
        return f;
      },
      'is not valid JSON',
    ],
    [
      'a public-only key set',
      () => {
        const f = join(mkdtempSync(join(tmpdir(), 'pk-')), 'x');
        writeFileSync(f, JSON.stringify({ keys: [{ kty: 'EC', crv: 'P-256', x: 'a', y: 'b' }] }));
        return f;
      },
      'is not a private JWKS',
    ],
  ])('%s is a ConfigError at keys.signing', async (_name, path, message) => {
    const attempt = createServer({ issuer: 'http://127.0.0.1:1', keys: { signing: path() } });
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    await expect(createServer({ issuer: 'http://127.0.0.1:1', keys: { signing: path() } })).rejects.toMatchObject({
      path: 'keys.signing',
      message: expect.stringContaining(message),
    });
  });
});
