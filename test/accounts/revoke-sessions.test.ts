import { TestBrowser } from '../helpers/browser.js';
import { oidc, relyingParty, signIn, startAuthorization } from '../helpers/flow.js';
import { deletePrefix, REDIS_URL, redisAvailable, uniquePrefix } from '../helpers/redis.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * `server.revokeSessions(accountId)` (what a password reset or an e-mail change runs) on both storages: the
 * per-account index of sessions and grants is written through the adapter on memory and by one script beside
 * each Session and Grant write on Redis; either way every session and grant of the account is found and ended.
 */
const redis = await redisAvailable();
const prefixes: string[] = [];
const storages: Array<[string, () => Record<string, unknown>]> = [['memory', () => ({})]];
if (redis) {
  storages.push([
    'redis',
    () => {
      const keyPrefix = uniquePrefix('revoke-sessions');
      prefixes.push(keyPrefix);
      return { storage: { type: 'redis' as const, url: REDIS_URL, keyPrefix } };
    },
  ]);
}
afterAll(async () => {
  for (const p of prefixes) await deletePrefix(p);
});

describe.each(storages)('revokeSessions (%s storage)', (_name, storage) => {
  let srv: RunningServer;
  beforeEach(async () => {
    srv = await startServer(storage());
  });
  afterEach(() => srv.close());

  test('ends the sessions of two browsers and revokes both grants with their tokens; other accounts keep theirs', async () => {
    const rp = await relyingParty(srv.issuer);
    const params = { scope: 'openid email offline_access', prompt: 'consent' };
    const first = new TestBrowser(srv.issuer);
    const second = new TestBrowser(srv.issuer);
    const a = await signIn(srv.issuer, rp, { browser: first, params });
    const b = await signIn(srv.issuer, rp, { browser: second, params });
    const admin = await signIn(srv.issuer, rp, { email: 'admin@example.com', password: 'admin-demo-password', params });
    await expect(oidc.fetchUserInfo(rp.config, a.tokens.access_token, 'alice')).resolves.toMatchObject({
      sub: 'alice',
    });

    const found = await srv.server.revokeSessions('alice');
    // each sign-in saves a session before and after login (a new id once signed in): both ids are indexed
    expect(found).toEqual({ sessions: 4, grants: 2 });

    for (const { tokens } of [a, b]) {
      await expect(oidc.refreshTokenGrant(rp.config, tokens.refresh_token!)).rejects.toMatchObject({
        error: 'invalid_grant',
      });
      await expect(oidc.fetchUserInfo(rp.config, tokens.access_token, 'alice')).rejects.toThrow();
    }
    for (const browser of [first, second]) {
      const again = await browser.go(String((await startAuthorization(rp)).url));
      expect(again.dom.querySelector('input[name=password]')).not.toBeNull();
    }
    // admin's tokens are untouched, and a second call finds nothing left
    await expect(oidc.fetchUserInfo(rp.config, admin.tokens.access_token, 'admin')).resolves.toMatchObject({
      sub: 'admin',
    });
    expect(await srv.server.revokeSessions('alice')).toEqual({ sessions: 0, grants: 0 });
  });
});
