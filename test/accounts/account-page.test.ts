import { parse } from 'node-html-parser';
import { TestBrowser, type Page } from '../helpers/browser.js';
import { advanceClock, useTestClock } from '../helpers/clock.js';
import { browse, oidc, relyingParty, signIn, startAuthorization } from '../helpers/flow.js';
import { Mailbox } from '../helpers/mailbox.js';
import { deletePrefix, REDIS_URL, redisAvailable, uniquePrefix } from '../helpers/redis.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * The account page's connected applications, active sessions and password change, over real HTTP against a real
 * server, on memory and on Redis storage: what each list shows, and that each change really takes effect (a
 * revoked application's token fails at /userinfo and its next authorization asks for consent; a signed-out
 * session's cookie no longer signs in; a changed password replaces the old one and ends the other sessions).
 */
const redis = await redisAvailable();
const prefixes: string[] = [];
const storages: Array<[string, () => Record<string, unknown>]> = [['memory', () => ({})]];
if (redis) {
  storages.push([
    'redis',
    () => {
      const keyPrefix = uniquePrefix('account-page');
      prefixes.push(keyPrefix);
      return { storage: { type: 'redis' as const, url: REDIS_URL, keyPrefix } };
    },
  ]);
}
afterAll(async () => {
  for (const p of prefixes) await deletePrefix(p);
});

const CHROME_LINUX =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';

/** A test browser that sends one User-Agent (and `extra` headers) on every request, redirect hops included. */
class DeviceBrowser extends TestBrowser {
  constructor(
    origin: string,
    private readonly userAgent: string,
    private readonly extra: Record<string, string> = {},
  ) {
    super(origin);
  }
  override request(url: string, init: RequestInit = {}): Promise<Page> {
    const headers = new Headers(init.headers);
    headers.set('user-agent', this.userAgent);
    for (const [k, v] of Object.entries(this.extra)) headers.set(k, v);
    return super.request(url, { ...init, headers });
  }
}

/** Opens /account, signing in with `password` when asked; returns the account page. */
async function openAccount(srv: RunningServer, browser: TestBrowser, password = 'alice-demo-password') {
  let page = await browser.go(`${srv.issuer}/account`);
  if (page.dom.querySelector('input[name=password]'))
    page = await browser.submit(page, { email: 'alice@example.com', password });
  return page;
}

/** Submits the form holding the element `selector` with `fields`. */
function press(browser: TestBrowser, page: Page, selector: string, fields: Record<string, string> = {}) {
  const form = page.dom.querySelector(selector)?.closest('form');
  if (!form) throw new Error(`no form around ${selector} on ${page.url}: ${page.body.slice(0, 300)}`);
  return browser.submit({ ...page, dom: parse(`<div>${form.toString()}</div>`) }, fields);
}

/** GET /userinfo with a bearer token: the status. */
async function userinfoStatus(issuer: string, accessToken: string): Promise<number> {
  const res = await fetch(`${issuer}/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
  await res.arrayBuffer();
  return res.status;
}

describe.each(storages)('account page (%s storage)', (_name, storage) => {
  let srv: RunningServer;
  let mailbox: Mailbox;
  beforeEach(async () => {
    mailbox = await Mailbox.create();
    srv = await startServer({ mail: { mailbox: mailbox.dir }, ...storage() });
  });
  afterEach(async () => {
    await srv.close();
    await mailbox.remove();
  });

  test('lists connected applications with name, domain and scopes in words; Revoke ends their tokens and consent', async () => {
    const rp = await relyingParty(srv.issuer);
    const app = new TestBrowser(srv.issuer);
    const granted = await signIn(srv.issuer, rp, { browser: app, params: { scope: 'openid email offline_access' } });
    expect(await userinfoStatus(srv.issuer, granted.tokens.access_token)).toBe(200);

    const browser = new TestBrowser(srv.issuer);
    const home = await openAccount(srv, browser);
    const items = home.dom.querySelectorAll('#apps li.app');
    // the first-party account client this browser just signed in through is not listed
    expect(items.map((li) => li.getAttribute('data-client-id'))).toEqual(['demo-web']);
    expect(items[0]!.querySelector('.app-name')!.text).toBe('Demo web app');
    expect(items[0]!.querySelector('.app-domain')!.text).toContain('localhost:8080');
    expect(
      items[0]!
        .querySelectorAll('.app-scopes li')
        .map((li) => li.getAttribute('data-scope'))
        .sort(),
    ).toEqual(['email', 'offline_access', 'openid']);
    expect(items[0]!.querySelector('[data-scope=email]')!.text).toBe(
      'Read your e-mail address and whether it is verified',
    );

    const done = await press(browser, home, '#revoke-0');
    expect(done.status).toBe(200);
    expect(done.dom.querySelector('#message')!.text).toContain('Demo web app can no longer use your account');
    expect(await userinfoStatus(srv.issuer, granted.tokens.access_token)).toBe(401);
    await expect(oidc.refreshTokenGrant(rp.config, granted.tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    // the app's browser is still signed in, but the next authorization asks for consent again
    const again = await browse(app, (await startAuthorization(rp)).url);
    expect(again.loginPage).toBeUndefined();
    expect(again.consentPage).toBeDefined();
    // and the list no longer has it (after the new consent it is back)
    expect(
      (await openAccount(srv, browser)).dom
        .querySelectorAll('#apps li.app')
        .map((li) => li.getAttribute('data-client-id')),
    ).toEqual(['demo-web']);
  });

  test('an application with a remembered consent but no live grant is listed with the consented scopes, and Revoke forgets the consent', async () => {
    const rp = await relyingParty(srv.issuer);
    const app = new TestBrowser(srv.issuer);
    await signIn(srv.issuer, rp, { browser: app, params: { scope: 'openid email' } });
    // every session and grant of the account ends (as after a password reset); the remembered consent stays
    await srv.server.revokeSessions('alice');
    const browser = new TestBrowser(srv.issuer);
    const home = await openAccount(srv, browser);
    const items = home.dom.querySelectorAll('#apps li.app');
    expect(items.map((li) => li.getAttribute('data-client-id'))).toEqual(['demo-web']);
    expect(
      items[0]!
        .querySelectorAll('.app-scopes li')
        .map((li) => li.getAttribute('data-scope'))
        .sort(),
    ).toEqual(['email', 'openid']);
    // the consent is remembered: a new sign-in skips the consent page
    const remembered = await browse(new TestBrowser(srv.issuer), (await startAuthorization(rp)).url, {
      email: 'alice@example.com',
      password: 'alice-demo-password',
    });
    expect(remembered.consentPage).toBeUndefined();
    const done = await press(browser, await openAccount(srv, browser), '#revoke-0');
    expect(done.status).toBe(200);
    const asked = await browse(new TestBrowser(srv.issuer), (await startAuthorization(rp)).url, {
      email: 'alice@example.com',
      password: 'alice-demo-password',
    });
    expect(asked.consentPage).toBeDefined();
  });

  test('a revoke of an application without access, or of the account client, answers 404 and changes nothing', async () => {
    const browser = new TestBrowser(srv.issuer);
    const home = await openAccount(srv, browser);
    expect(home.dom.querySelector('#apps-none')).not.toBeNull();
    const csrf = home.dom.querySelector('#password-form input[name=csrf]')!.getAttribute('value')!;
    for (const app of ['portcullis-account', 'nonsense']) {
      const res = await browser.go(`${srv.issuer}/account/apps/revoke`, {
        method: 'POST',
        body: new URLSearchParams({ csrf, app }),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(res.status).toBe(404);
    }
    expect((await openAccount(srv, browser)).dom.querySelector('#email')!.text).toBe('alice@example.com');
  });

  test('lists active sessions with device, time and IP, marks this device, and signs one other session out', async () => {
    const rp = await relyingParty(srv.issuer);
    const laptop = new DeviceBrowser(srv.issuer, CHROME_LINUX);
    const laptopTokens = (await signIn(srv.issuer, rp, { browser: laptop })).tokens;
    const desktop = new DeviceBrowser(srv.issuer, FIREFOX_WINDOWS);
    const home = await openAccount(srv, desktop);
    const rows = home.dom.querySelectorAll('#session-list li.session');
    expect(rows).toHaveLength(2);
    const [mine, other] = rows;
    expect(mine!.querySelector('.session-device')!.text).toBe('Firefox on Windows');
    expect(mine!.querySelector('.this-device')).not.toBeNull();
    expect(mine!.querySelector('button')).toBeNull();
    expect(other!.querySelector('.session-device')!.text).toBe('Chrome on Linux');
    expect(other!.querySelector('.this-device')).toBeNull();
    expect(other!.querySelector('.session-ip')!.text).toContain('127.0.0.1');
    expect(other!.querySelector('.session-time')!.text).toMatch(/Signed in .*\d{4}.* UTC/);
    // the session ids (cookie values) are not in the page, only handles
    expect(other!.querySelector('input[name=session]')!.getAttribute('value')).toMatch(/^[\w-]{22}$/);

    const done = await press(desktop, home, '#end-session-1');
    expect(done.status).toBe(200);
    expect(done.dom.querySelector('#message')!.text).toContain('Chrome on Linux');
    // the laptop's cookie no longer signs in, and the tokens of its grants are revoked; the desktop stays signed in, now alone
    expect(await userinfoStatus(srv.issuer, laptopTokens.access_token)).toBe(401);
    const laptopAgain = await laptop.go(String((await startAuthorization(rp)).url));
    expect(laptopAgain.dom.querySelector('input[name=password]')).not.toBeNull();
    const after = await openAccount(srv, desktop);
    expect(after.dom.querySelectorAll('#session-list li.session')).toHaveLength(1);
  });

  test('changes the password: wrong current password refused with focus on it, then old fails, new works, others end, mail sent', async () => {
    const rp = await relyingParty(srv.issuer);
    const elsewhere = await signIn(srv.issuer, rp, { params: { scope: 'openid offline_access' } });
    const browser = new TestBrowser(srv.issuer);
    const home = await openAccount(srv, browser);
    const form = home.dom.querySelector('#password-form')!;
    expect(form.querySelector('#current-password')!.getAttribute('autocomplete')).toBe('current-password');
    expect(form.querySelector('#new-password')!.getAttribute('autocomplete')).toBe('new-password');
    expect(form.querySelector('#new-password-hint')!.text).toContain('At least 12 characters');

    const wrong = await press(browser, home, '#password-form button', {
      current_password: 'not-my-password',
      new_password: 'a brand new passphrase',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.dom.querySelector('#password-error')!.text).toContain('current password is not correct');
    expect(wrong.dom.querySelector('#current-password')!.hasAttribute('autofocus')).toBe(true);
    expect(wrong.dom.querySelector('#current-password')!.getAttribute('aria-invalid')).toBe('true');
    const short = await press(browser, wrong, '#password-form button', {
      current_password: 'alice-demo-password',
      new_password: 'short',
    });
    expect(short.status).toBe(400);
    expect(short.dom.querySelector('#new-password')!.hasAttribute('autofocus')).toBe(true);

    const done = await press(browser, short, '#password-form button', {
      current_password: 'alice-demo-password',
      new_password: 'a brand new passphrase',
    });
    expect(done.status).toBe(200);
    expect(done.dom.querySelector('#message')!.text).toContain('other sessions were signed out');
    await expect(oidc.refreshTokenGrant(rp.config, elsewhere.tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    expect((await mailbox.waitFor('alice@example.com')).map((m) => m.subject)).toContain('Your password was changed');
    // this browser stays signed in; a fresh one signs in with the new password only
    expect((await openAccount(srv, browser)).dom.querySelector('#email')).not.toBeNull();
    const oldTry = await openAccount(srv, new TestBrowser(srv.issuer));
    expect(oldTry.status).toBe(401);
    expect(oldTry.dom.querySelector('input[name=password]')).not.toBeNull();
    expect(
      (await openAccount(srv, new TestBrowser(srv.issuer), 'a brand new passphrase')).dom.querySelector('#email')!.text,
    ).toBe('alice@example.com');
  });

  test.each([
    ['/account/apps/revoke', { app: 'x' }],
    ['/account/sessions/end', { session: 'x' }],
    ['/account/password', { current_password: 'alice-demo-password', new_password: 'a brand new passphrase' }],
  ])('POST %s without the CSRF token is refused with 403', async (path, fields) => {
    const browser = new TestBrowser(srv.issuer);
    await openAccount(srv, browser);
    const res = await browser.go(`${srv.issuer}${path}`, {
      method: 'POST',
      body: new URLSearchParams(fields),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(403);
    // nothing changed: the old password still signs in
    expect((await openAccount(srv, new TestBrowser(srv.issuer))).dom.querySelector('#email')!.text).toBe(
      'alice@example.com',
    );
  });
});

describe.each(storages)('account page limits and language (%s storage)', (_name, storage) => {
  let srv: RunningServer;
  beforeEach(async () => {
    srv = await startServer({ accountLimits: { loginPerAccount: { points: 3, durationSeconds: 60 } }, ...storage() });
  });
  afterEach(() => srv.close());

  test('wrong current passwords count as login attempts: over the limit 429 with Retry-After, and the right one is refused too', async () => {
    const browser = new TestBrowser(srv.issuer);
    let page: Page = await openAccount(srv, browser);
    for (let i = 0; i < 3; i++) {
      page = await press(browser, page, '#password-form button', {
        current_password: `wrong-${i}`,
        new_password: 'a brand new passphrase',
      });
      expect(page.status).toBe(401);
    }
    const refused = await press(browser, page, '#password-form button', {
      current_password: 'alice-demo-password',
      new_password: 'a brand new passphrase',
    });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await srv.server.accounts.verifyPassword('alice@example.com', 'alice-demo-password')).toBeDefined();
  });

  test('the new sections are in German for Accept-Language: de', async () => {
    const browser = new DeviceBrowser(srv.issuer, FIREFOX_WINDOWS, { 'accept-language': 'de' });
    const home = await openAccount(srv, browser);
    expect(home.dom.querySelector('#sessions-section h2')!.text).toBe('Aktive Sitzungen');
    expect(home.dom.querySelector('#session-list .session-device')!.text).toBe('Firefox unter Windows');
    expect(home.dom.querySelector('#apps h2')!.text).toBe('Verbundene Anwendungen');
    expect(home.dom.querySelector('label[for=current-password]')!.text).toBe('Aktuelles Passwort');
    expect(home.dom.querySelector('#new-password-hint')!.text).toContain('Mindestens');
  });
});

describe.each(storages)('account page re-authentication window (%s storage)', (_name, storage) => {
  useTestClock();
  let srv: RunningServer;
  beforeEach(async () => {
    srv = await startServer({ mfa: { reauthenticateAfterSeconds: 1 }, ...storage() });
  });
  afterEach(() => srv.close());

  test('revoke, sign out one session and password change with an older sign-in ask for the password first and change nothing', async () => {
    const rp = await relyingParty(srv.issuer);
    const elsewhere = await signIn(srv.issuer, rp, { params: { scope: 'openid email' } });
    const browser = new TestBrowser(srv.issuer);
    const home = await openAccount(srv, browser);
    // loginTs has a resolution of one second: until the sign-in is older than the 1-second window
    advanceClock(2100);
    for (const [selector, fields] of [
      ['#revoke-0', {}],
      ['#end-session-1', {}],
      ['#password-form button', { current_password: 'alice-demo-password', new_password: 'a brand new passphrase' }],
    ] as const) {
      const res = await press(browser, home, selector, fields);
      expect(res.dom.querySelector('input[name=password]')).not.toBeNull();
      expect(res.dom.querySelector('#message')).toBeNull();
    }
    expect(await userinfoStatus(srv.issuer, elsewhere.tokens.access_token)).toBe(200);
    expect(await srv.server.accounts.verifyPassword('alice@example.com', 'alice-demo-password')).toBeDefined();
  });
});
