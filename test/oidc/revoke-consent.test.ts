import { demoFixtures } from '../../examples/demo-fixtures.js';
import { relyingParty, signIn, type RelyingParty } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { deletePrefix, REDIS_URL, redisAvailable, uniquePrefix } from '../helpers/redis.js';

/**
 * `server.revokeConsent(accountId, clientId)` revokes what the account gave the client, as the account page's
 * "Revoke access" does: the remembered consent and every grant of the account for that client, with its tokens.
 * Before, it only forgot the consent and the tokens kept working.
 */

const OTHER = {
  client_id: 'other-web',
  client_secret: 'other-web-secret-0001',
  redirect_uri: 'http://localhost:8080/other',
};
const ADMIN = { email: 'admin@example.com', password: 'admin-demo-password' };
const scope = { scope: 'openid profile offline_access' };

type StorageOption = { type: 'memory' } | { type: 'redis'; url: string; keyPrefix: string };
const available = await redisAvailable();
const storages: Array<[string, () => StorageOption, boolean]> = [
  ['memory', () => ({ type: 'memory' }), true],
  ['Redis', () => ({ type: 'redis', url: REDIS_URL, keyPrefix: uniquePrefix('revoke-consent') }), available],
];

describe.each(storages)('server.revokeConsent(accountId, clientId) on %s storage', (_name, storageOf, runs) => {
  const maybe = runs ? test : test.skip;
  let srv: RunningServer;
  let storage: StorageOption;
  let web: RelyingParty;
  let other: RelyingParty;
  beforeEach(async () => {
    if (!runs) return;
    storage = storageOf();
    srv = await startServer({
      storage,
      clients: [
        ...demoFixtures().clients!,
        {
          client_id: OTHER.client_id,
          client_secret: OTHER.client_secret,
          client_name: 'Other web app',
          redirect_uris: [OTHER.redirect_uri],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_post',
        },
      ],
    });
    web = await relyingParty(srv.issuer);
    other = await relyingParty(srv.issuer, {
      clientId: OTHER.client_id,
      secret: OTHER.client_secret,
      redirectUri: OTHER.redirect_uri,
    });
  });
  afterEach(async () => {
    if (!runs) return;
    await srv.close();
    if (storage.type === 'redis') await deletePrefix(storage.keyPrefix);
  });

  async function refresh(rp: RelyingParty, refreshToken: string) {
    const secret = rp.clientId === OTHER.client_id ? OTHER.client_secret : 'demo-web-secret';
    const res = await fetch(`${srv.issuer}/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: rp.clientId,
        client_secret: secret,
      }),
    });
    return { status: res.status, body: (await res.json()) as { error?: string } };
  }

  async function userinfo(accessToken: string): Promise<number> {
    return (await fetch(`${srv.issuer}/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } })).status;
  }

  maybe(
    "revokes the account's grants for the client in every session: refresh invalid_grant, userinfo 401, consent asked again",
    async () => {
      const first = await signIn(srv.issuer, web, { params: scope });
      const second = await signIn(srv.issuer, web, { params: scope, consent: 'none' }); // another browser, another grant
      const otherClient = await signIn(srv.issuer, other, { params: scope });
      const otherAccount = await signIn(srv.issuer, web, { params: scope, ...ADMIN });
      for (const { tokens } of [first, second, otherClient, otherAccount])
        expect(await userinfo(tokens.access_token)).toBe(200);

      await srv.server.revokeConsent('alice', 'demo-web');

      for (const { tokens } of [first, second]) {
        expect(await userinfo(tokens.access_token)).toBe(401);
        expect(await refresh(web, tokens.refresh_token!)).toEqual({
          status: 400,
          body: expect.objectContaining({ error: 'invalid_grant' }),
        });
      }
      // Alice's grant for another client and another account's grant for this client are untouched.
      expect(await userinfo(otherClient.tokens.access_token)).toBe(200);
      expect((await refresh(other, otherClient.tokens.refresh_token!)).status).toBe(200);
      expect(await userinfo(otherAccount.tokens.access_token)).toBe(200);
      expect((await refresh(web, otherAccount.tokens.refresh_token!)).status).toBe(200);

      const again = await signIn(srv.issuer, web, { params: scope });
      expect(again.seen.consentPage).toBeDefined();
      expect(await userinfo(again.tokens.access_token)).toBe(200);
    },
  );

  maybe('an account or client without consent or grant: resolves and changes nothing', async () => {
    const { tokens } = await signIn(srv.issuer, web, { params: scope });
    await expect(srv.server.revokeConsent('alice', 'no-such-client')).resolves.toBeUndefined();
    await expect(srv.server.revokeConsent('nobody', 'demo-web')).resolves.toBeUndefined();
    await expect(srv.server.revokeConsent('admin', 'demo-web')).resolves.toBeUndefined();
    expect(await userinfo(tokens.access_token)).toBe(200);
    expect((await refresh(web, tokens.refresh_token!)).status).toBe(200);
  });
});
