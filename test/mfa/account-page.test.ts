import { parse } from 'node-html-parser';
import { generate } from 'otplib';
import { TestBrowser } from '../helpers/browser.js';
import { advanceClock, useTestClock } from '../helpers/clock.js';
import { oidc, relyingParty, signIn, startAuthorization } from '../helpers/flow.js';
import { Mailbox } from '../helpers/mailbox.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * The signed-in account page over real HTTP: sign-in through the provider, TOTP enrolment and removal with
 * computed codes, sign-out of other sessions, CSRF and the re-authentication window.
 */
let srv: RunningServer;
let mailbox: Mailbox;
afterEach(async () => {
  await srv.close();
  await mailbox.remove();
});

async function start(extra: Record<string, unknown> = {}) {
  mailbox = await Mailbox.create();
  srv = await startServer({ mail: { mailbox: mailbox.dir }, ...extra });
}

/** Opens /account, signing in with alice's password when asked; returns the account page. */
async function openAccount(browser: TestBrowser, secret?: string) {
  let page = await browser.go(`${srv.issuer}/account`);
  if (page.dom.querySelector('input[name=password]'))
    page = await browser.submit(page, { email: 'alice@example.com', password: 'alice-demo-password' });
  if (secret && page.dom.querySelector('input[name=code]'))
    page = await browser.submit(page, { code: await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 }) });
  return page;
}

/** Submits the form holding the button `#id`. */
async function press(
  browser: TestBrowser,
  page: Awaited<ReturnType<TestBrowser['go']>>,
  id: string,
  fields: Record<string, string> = {},
) {
  const form = page.dom.querySelector(`#${id}`)!.parentNode;
  return browser.submit({ ...page, dom: parse(`<div>${form!.toString()}</div>`) }, fields);
}

describe('account page', () => {
  beforeEach(() => start());

  test('signs in, shows profile, two-step status and sessions, no link to the passkey page while passkeys are off; sets up and turns off TOTP', async () => {
    const other = await signIn(srv.issuer, await relyingParty(srv.issuer), {
      params: { scope: 'openid offline_access', prompt: 'consent' },
    });
    const browser = new TestBrowser(srv.issuer);
    const home = await openAccount(browser);
    expect(home.status).toBe(200);
    expect(home.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(home.dom.querySelector('#email')!.text).toBe('alice@example.com');
    expect(home.dom.querySelector('#profile')!.text).toContain('Alice Liddell');
    expect(home.dom.querySelector('#totp-status')!.text).toContain('off');
    // Passkeys are off on an IP-literal issuer: the passkeys feature adds no link, and the page it led to is not served.
    expect(home.dom.querySelector('#passkeys')).toBeNull();
    expect((await browser.go(`${srv.issuer}/account/passkeys`)).status).toBe(404);

    const enrol = await press(browser, home, 'totp-add');
    expect(enrol.dom.querySelector('#qr svg')).not.toBeNull();
    const secret = enrol.dom.querySelector('#totp-secret')!.text;
    const codes = await browser.submit(enrol, { code: await generate({ secret }) });
    expect(codes.dom.querySelectorAll('#recovery-codes li')).toHaveLength(10);
    // the other browser was signed out and its tokens revoked; a notice went out
    await expect(
      oidc.refreshTokenGrant((await relyingParty(srv.issuer)).config, other.tokens.refresh_token!),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await mailbox.waitFor('alice@example.com')).map((m) => m.subject)).toContain(
      'A sign-in method was added to your account',
    );

    // this browser stays signed in
    const after = await openAccount(browser);
    expect(after.dom.querySelector('#totp-status')!.text).toContain('on');
    const off = await press(browser, after, 'totp-remove');
    expect(off.dom.querySelector('#message')!.text).toContain('off');
    expect(await srv.server.accounts.getSecondFactor!('alice')).toBeUndefined();
    expect((await mailbox.waitFor('alice@example.com', 2)).map((m) => m.subject)).toContain(
      'A sign-in method was removed from your account',
    );
  });

  test('sign out all other sessions', async () => {
    const rp = await relyingParty(srv.issuer);
    const elsewhere = await signIn(srv.issuer, rp);
    const browser = new TestBrowser(srv.issuer);
    const home = await openAccount(browser);
    const done = await press(browser, home, 'sign-out-others');
    expect(done.dom.querySelector('#message')!.text).toMatch(/other sessions? (was|were) signed out/);
    const again = await elsewhere.browser.go(String((await startAuthorization(rp)).url));
    expect(again.dom.querySelector('input[name=password]')).not.toBeNull();
    expect((await openAccount(browser)).dom.querySelector('#email')).not.toBeNull();
  });

  test('a change without the CSRF token is refused with 403', async () => {
    const browser = new TestBrowser(srv.issuer);
    await openAccount(browser);
    const res = await browser.go(`${srv.issuer}/account/sessions/others`, {
      method: 'POST',
      body: new URLSearchParams({ csrf: 'forged' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(403);
  });

  test('a signed-out browser is sent to sign in first', async () => {
    const res = await new TestBrowser(srv.issuer).request(`${srv.issuer}/account`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toContain('client_id=portcullis-account');
    expect(new URL(res.headers.get('location')!).searchParams.get('ui_locales')).toBeNull();
  });

  test('a language chosen with ui_locales carries on to the sign-in page', async () => {
    const browser = new TestBrowser(srv.issuer);
    const res = await browser.request(`${srv.issuer}/account?ui_locales=de`);
    expect(new URL(res.headers.get('location')!).searchParams.get('ui_locales')).toBe('de');
    const login = await browser.go(res.headers.get('location')!);
    expect(login.body).toContain('<html lang="de"');
  });
});

describe('account page re-authentication window', () => {
  useTestClock();
  beforeEach(() => start({ mfa: { reauthenticateAfterSeconds: 1 } }));

  test('a change with an older sign-in asks for the password again first', async () => {
    const browser = new TestBrowser(srv.issuer);
    const home = await openAccount(browser);
    // loginTs has a resolution of one second: until the sign-in is older than the 1-second window
    advanceClock(2100);
    const res = await press(browser, home, 'sign-out-others');
    expect(res.dom.querySelector('input[name=password]')).not.toBeNull();
  });
});
