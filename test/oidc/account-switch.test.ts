import { relyingParty, signIn, startAuthorization, oidc } from '../helpers/flow.js';
import { deletePrefix, REDIS_URL, redisAvailable, uniquePrefix } from '../helpers/redis.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * Account switching over plain HTTP (the Chromium version is test/browser/account-switch.test.ts): signed in as
 * alice, `prompt=login` and admin's password. oidc-provider answers the login with its auto-submitting logout
 * form (ending alice's session and revoking her grants), then resumes the same interaction. Memory and Redis.
 */
const redis = await redisAvailable();
const prefixes: string[] = [];
const storages: Array<[string, () => Record<string, unknown>]> = [['memory', () => ({})]];
if (redis) {
  storages.push(['redis', () => {
    const keyPrefix = uniquePrefix('switch-http');
    prefixes.push(keyPrefix);
    return { storage: { type: 'redis' as const, url: REDIS_URL, keyPrefix } };
  }]);
}
afterAll(async () => { for (const p of prefixes) await deletePrefix(p); });

describe.each(storages)('account switching with prompt=login (%s storage)', (_name, storage) => {
  let srv: RunningServer;
  beforeAll(async () => { srv = await startServer(storage()); });
  afterAll(() => srv.close());

  test('the client gets a code for the new account, and the old account\'s access token is revoked', async () => {
    const rp = await relyingParty(srv.issuer);
    const first = await signIn(srv.issuer, rp);
    expect(first.tokens.claims()!.sub).toBe('alice');

    const browser = first.browser;
    const start = await startAuthorization(rp, { prompt: 'login' });
    let page = await browser.go(String(start.url));
    expect(page.dom.querySelector('input[name=password]')).not.toBeNull();
    page = await browser.submit(page, { email: 'admin@example.com', password: 'admin-demo-password' });
    // oidc-provider's logout form (end_session_confirm, logout=yes), which a browser submits by script.
    expect([page.status, page.dom.querySelector('form')?.getAttribute('action')]).toEqual([200, `${srv.issuer}/session/end/confirm`]);
    page = await browser.submit(page, {});
    // Then the same interaction goes on: admin's consent page, never 400 "interaction session not found".
    expect([page.status, page.dom.querySelector('#error')?.text]).toEqual([200, undefined]);
    const done = await browser.submit(page, {}, { name: 'decision', value: 'allow' });
    expect(done.redirectedTo).toMatch(/^http:\/\/localhost:8080\/callback\?/);
    const seen = { callback: new URL(done.redirectedTo!) };
    const tokens = await oidc.authorizationCodeGrant(rp.config, seen.callback, {
      pkceCodeVerifier: start.codeVerifier, expectedState: start.state, expectedNonce: start.nonce,
    });
    expect(tokens.claims()!.sub).toBe('admin');
    // Alice's grant went with her session (no offline_access, so it does not outlive the logout): her token is dead.
    const userinfo = (token: string) => fetch(`${srv.issuer}/userinfo`, { headers: { authorization: `Bearer ${token}` } });
    expect((await userinfo(first.tokens.access_token)).status).toBe(401);
    expect((await userinfo(tokens.access_token)).status).toBe(200);
  });
});
