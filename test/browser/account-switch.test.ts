import type { Browser, Page } from 'playwright-core';
import { browserSuite, launchChromium } from '../helpers/chromium.js';
import { relyingParty, startAuthorization, oidc, type RelyingParty } from '../helpers/flow.js';
import { deletePrefix, REDIS_URL, redisAvailable, uniquePrefix } from '../helpers/redis.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * Switching accounts in one browser: signed in as alice, the client asks again with `prompt=login` and the user
 * signs in as admin. oidc-provider then ends alice's session (revoking her grants) and resumes the same
 * interaction, so the storage must not drop that interaction with alice's tokens. Run on memory and on Redis.
 */
const redis = await redisAvailable();
const storages: Array<[string, () => Record<string, unknown>]> = [['memory', () => ({})]];
const prefixes: string[] = [];
if (redis) {
  storages.push([
    'redis',
    () => {
      const keyPrefix = uniquePrefix('switch');
      prefixes.push(keyPrefix);
      return { storage: { type: 'redis' as const, url: REDIS_URL, keyPrefix } };
    },
  ]);
}

browserSuite.each(storages)('account switching in headless Chromium (%s storage)', (_name, storage) => {
  let browser: Browser;
  let srv: RunningServer;

  beforeAll(async () => {
    browser = await launchChromium();
    srv = await startServer(storage());
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.close();
    for (const p of prefixes) await deletePrefix(p);
  });

  /** Runs one authorization in `page` as `email`, returning the ID token's `sub` after the code exchange. */
  async function authorize(
    page: Page,
    rp: RelyingParty,
    email: string,
    password: string,
    params: Record<string, string> = {},
  ) {
    const start = await startAuthorization(rp, { scope: 'openid profile', ...params });
    let callback: string | undefined;
    await page.route('http://localhost:8080/**', async (route) => {
      callback = route.request().url();
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'client callback' });
    });
    // A document answered >= 400 (e.g. 400 "interaction session not found") ends the wait at once, with its text.
    let failed: (reason: Error) => void = () => {};
    const failure = new Promise<never>((_, reject) => {
      failed = reject;
    });
    failure.catch(() => {});
    const onResponse = async (r: import('playwright-core').Response) => {
      if (r.request().resourceType() === 'document' && r.status() >= 400)
        failed(
          new Error(
            `${r.status()} at ${r.url()}: ${(await r.text().catch(() => ''))
              .replace(/<style[\s\S]*?<\/style>/g, '')
              .replace(/<[^>]+>/g, ' ')
              .replace(/\s+/g, ' ')
              .slice(0, 300)}`,
          ),
        );
    };
    page.on('response', onResponse);
    await page.goto(String(start.url));
    await page.fill('input[name=email]', email);
    await page.fill('input[name=password]', password);
    await page.click('button[type=submit]');
    const next = await Promise.race([
      page.waitForSelector('button[value=allow]').then(() => 'consent'),
      page.waitForURL(/localhost:8080\/callback/).then(() => 'callback'),
      failure,
    ]);
    if (next === 'consent') {
      await page.click('button[value=allow]');
      await Promise.race([page.waitForURL(/localhost:8080\/callback/), failure]);
    }
    page.off('response', onResponse);
    await page.unroute('http://localhost:8080/**');
    const tokens = await oidc.authorizationCodeGrant(rp.config, new URL(callback!), {
      pkceCodeVerifier: start.codeVerifier,
      expectedState: start.state,
      expectedNonce: start.nonce,
    });
    return tokens.claims()!.sub;
  }

  test('signed in as alice, prompt=login and signing in as admin gives the client a code for admin', async () => {
    const rp = await relyingParty(srv.issuer);
    const context = await browser.newContext();
    const page = await context.newPage();
    expect(await authorize(page, rp, 'alice@example.com', 'alice-demo-password')).toBe('alice');
    expect(await authorize(page, rp, 'admin@example.com', 'admin-demo-password', { prompt: 'login' })).toBe('admin');
    await context.close();
  });
});
