import { demoFixtures } from '../../examples/demo-fixtures.js';
import { relyingParty, signIn, startAuthorization, oidc, type RelyingParty } from '../helpers/flow.js';
import type { TestBrowser } from '../helpers/browser.js';
import { deletePrefix, REDIS_URL, redisAvailable, uniquePrefix } from '../helpers/redis.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * Account switching over plain HTTP (the Chromium version is test/browser/account-switch.test.ts): signed in as
 * alice, `prompt=login` and admin's password. oidc-provider answers the login with its auto-submitting logout
 * form (ending alice's session as a logout does: the grants of that session are revoked, except the ones with
 * `offline_access`, which belong to their client rather than to the browser), then resumes the same interaction.
 * Memory and Redis.
 */
const OFFLINE_SECRET = 'offline-app-secret-0123456789';
const redis = await redisAvailable();
const prefixes: string[] = [];
const storages: Array<[string, () => Record<string, unknown>]> = [['memory', () => ({})]];
if (redis) {
  storages.push([
    'redis',
    () => {
      const keyPrefix = uniquePrefix('switch-http');
      prefixes.push(keyPrefix);
      return { storage: { type: 'redis' as const, url: REDIS_URL, keyPrefix } };
    },
  ]);
}
afterAll(async () => {
  for (const p of prefixes) await deletePrefix(p);
});

describe.each(storages)('account switching with prompt=login (%s storage)', (_name, storage) => {
  let srv: RunningServer;
  beforeAll(async () => {
    // A second client with refresh tokens, so that one browser session can hold both kinds of grant.
    const offlineApp = {
      client_id: 'offline-app',
      client_secret: OFFLINE_SECRET,
      client_name: 'Offline app',
      redirect_uris: ['http://localhost:8080/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    };
    srv = await startServer({ ...storage(), clients: [...demoFixtures().clients!, offlineApp] as never });
  });
  afterAll(() => srv.close());

  test("the client gets a code for the new account, and the old account's access token is revoked", async () => {
    const rp = await relyingParty(srv.issuer);
    const first = await signIn(srv.issuer, rp);
    expect(first.tokens.claims()!.sub).toBe('alice');

    const browser = first.browser;
    const start = await startAuthorization(rp, { prompt: 'login' });
    let page = await browser.go(String(start.url));
    expect(page.dom.querySelector('input[name=password]')).not.toBeNull();
    page = await browser.submit(page, { email: 'admin@example.com', password: 'admin-demo-password' });
    // oidc-provider's logout form (end_session_confirm, logout=yes), which a browser submits by script.
    expect([page.status, page.dom.querySelector('form')?.getAttribute('action')]).toEqual([
      200,
      `${srv.issuer}/session/end/confirm`,
    ]);
    page = await browser.submit(page, {});
    // Then the same interaction goes on: admin's consent page, never 400 "interaction session not found".
    expect([page.status, page.dom.querySelector('#error')?.text]).toEqual([200, undefined]);
    const done = await browser.submit(page, {}, { name: 'decision', value: 'allow' });
    expect(done.redirectedTo).toMatch(/^http:\/\/localhost:8080\/callback\?/);
    const seen = { callback: new URL(done.redirectedTo!) };
    const tokens = await oidc.authorizationCodeGrant(rp.config, seen.callback, {
      pkceCodeVerifier: start.codeVerifier,
      expectedState: start.state,
      expectedNonce: start.nonce,
    });
    expect(tokens.claims()!.sub).toBe('admin');
    // Alice's grant went with her session (no offline_access, so it does not outlive the logout): her token is dead.
    const userinfo = (token: string) =>
      fetch(`${srv.issuer}/userinfo`, { headers: { authorization: `Bearer ${token}` } });
    expect((await userinfo(first.tokens.access_token)).status).toBe(401);
    expect((await userinfo(tokens.access_token)).status).toBe(200);
  });

  /** Switches `browser`, signed in as alice, to admin through `rp` with `prompt=login`; returns admin's `sub`. */
  async function switchToAdmin(browser: TestBrowser, rp: RelyingParty): Promise<string | undefined> {
    const start = await startAuthorization(rp, { prompt: 'login' });
    let page = await browser.go(String(start.url));
    page = await browser.submit(page, { email: 'admin@example.com', password: 'admin-demo-password' });
    expect(page.dom.querySelector('form')?.getAttribute('action')).toBe(`${srv.issuer}/session/end/confirm`);
    page = await browser.submit(page, {});
    if (!page.redirectedTo) page = await browser.submit(page, {}, { name: 'decision', value: 'allow' });
    const tokens = await oidc.authorizationCodeGrant(rp.config, new URL(page.redirectedTo!), {
      pkceCodeVerifier: start.codeVerifier,
      expectedState: start.state,
      expectedNonce: start.nonce,
    });
    return tokens.claims()?.sub;
  }

  test('a switch is a logout for alice: her session-bound grant dies, her offline one lives', async () => {
    const web = await relyingParty(srv.issuer);
    const offline = await relyingParty(srv.issuer, { clientId: 'offline-app', secret: OFFLINE_SECRET });
    // In one browser session alice signs in to demo-web (a session-bound grant: openid profile) and to offline-app
    // (an offline grant: offline_access, with a refresh token).
    const bound = await signIn(srv.issuer, web, { params: { scope: 'openid profile' } });
    const kept = await signIn(srv.issuer, offline, {
      browser: bound.browser,
      params: { scope: 'openid offline_access' },
    });
    expect([bound.tokens.refresh_token, typeof kept.tokens.refresh_token]).toEqual([undefined, 'string']);

    expect(await switchToAdmin(bound.browser, web)).toBe('admin');

    const userinfo = async (token: string) => {
      const res = await fetch(`${srv.issuer}/userinfo`, { headers: { authorization: `Bearer ${token}` } });
      return [res.status, res.ok ? ((await res.json()) as { sub: string }).sub : undefined];
    };
    // The session-bound grant went with alice's session: its access token is refused.
    expect(await userinfo(bound.tokens.access_token)).toEqual([401, undefined]);
    // The offline grant is the client's and outlives the browser session: its access token still works, and its
    // refresh token still refreshes (for alice, not for admin).
    expect(await userinfo(kept.tokens.access_token)).toEqual([200, 'alice']);
    const refreshed = await oidc.refreshTokenGrant(offline.config, kept.tokens.refresh_token!);
    expect(await userinfo(refreshed.access_token)).toEqual([200, 'alice']);
    // Revoking offline-app on alice's account page (or server.revokeConsent) is what ends it.
    await srv.server.revokeConsent('alice', 'offline-app');
    const after = oidc.refreshTokenGrant(offline.config, refreshed.refresh_token!);
    await expect(after).rejects.toMatchObject({ error: 'invalid_grant' });
  });
});
