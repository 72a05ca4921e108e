import { parse } from 'node-html-parser';
import { TestBrowser, type Page } from '../helpers/browser.js';
import { browse, oidc, relyingParty, signIn, startAuthorization, type RelyingParty } from '../helpers/flow.js';
import { Mailbox } from '../helpers/mailbox.js';
import { startServer, type RunningServer } from '../helpers/server.js';

let srv: RunningServer;
let rp: RelyingParty;
let mailbox: Mailbox;

beforeEach(async () => {
  mailbox = await Mailbox.create();
  srv = await startServer({ mail: { mailbox: mailbox.dir } });
  rp = await relyingParty(srv.issuer);
});
afterEach(async () => {
  await srv.close();
  await mailbox.remove();
});

const ALICE = { email: 'alice@example.com', password: 'alice-demo-password' };
const NEW_PASSWORD = 'a brand new passphrase';
const h1 = (p: Page) => p.dom.querySelector('h1')?.text;

async function requestReset(browser: TestBrowser, email: string) {
  const form = await browser.go(`${srv.issuer}/account/reset`);
  return browser.submit(form, { email });
}

/** Signs alice in with offline_access: a session cookie in `browser`, an access token and a refresh token. */
async function aliceWithTokens(browser: TestBrowser) {
  const { tokens } = await signIn(srv.issuer, rp, {
    browser,
    params: { scope: 'openid email offline_access', prompt: 'consent' },
  });
  expect(tokens.refresh_token).toBeDefined();
  return tokens;
}

describe('password reset by e-mail link', () => {
  test('the reset ends every session, revokes grants and refresh tokens, and only the new password works', async () => {
    const victimBrowser = new TestBrowser(srv.issuer);
    const tokens = await aliceWithTokens(victimBrowser);
    await expect(oidc.fetchUserInfo(rp.config, tokens.access_token, 'alice')).resolves.toMatchObject({ sub: 'alice' });

    const browser = new TestBrowser(srv.issuer);
    const login = await browser.go(String((await startAuthorization(rp)).url));
    const resetHref = login.dom.querySelector('a#reset')?.getAttribute('href');
    expect(resetHref).toMatch(/^\/account\/reset\?interaction=[\w-]+$/);
    const sent = await browser.submit(await browser.go(new URL(resetHref!, srv.issuer).href), { email: ALICE.email });
    expect(h1(sent)).toBe('Check your e-mail');

    const [mail] = await mailbox.waitFor(ALICE.email);
    expect(mail!.subject).toBe('Reset your password');
    expect(mail!.link).toMatch(new RegExp(`^${srv.issuer}/account/reset/confirm\\?token=[\\w-]{43}$`));
    const form = await browser.go(mail!.link!);
    expect(form.status).toBe(200);
    const done = await browser.submit(form, { password: NEW_PASSWORD });
    expect(done.status).toBe(200);
    expect(h1(done)).toBe('Password changed');
    expect(done.dom.querySelector('a#continue')?.getAttribute('href')).toBe(new URL(login.url).pathname);

    // Tokens and the grant are gone.
    await expect(oidc.refreshTokenGrant(rp.config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    await expect(oidc.fetchUserInfo(rp.config, tokens.access_token, 'alice')).rejects.toThrow();
    // The victim browser's session is gone: a new authorization asks for the password again.
    const again = await victimBrowser.go(String((await startAuthorization(rp)).url));
    expect(again.dom.querySelector('input[name=password]')).not.toBeNull();

    // Only the new password works.
    const wrong = await browser.submit(login, ALICE);
    expect(wrong.status).toBe(401);
    await signIn(srv.issuer, rp, { password: NEW_PASSWORD });

    // The owner is told by mail that the password changed.
    const mails = await mailbox.waitFor(ALICE.email, 2);
    expect(mails.map((m) => m.subject)).toContain('Your password was changed');
  });

  test('an unknown address gets the same answer and no mail is sent', async () => {
    const browser = new TestBrowser(srv.issuer);
    const known = await requestReset(browser, ALICE.email);
    const unknown = await requestReset(browser, 'nobody@example.com');
    expect(unknown.status).toBe(known.status);
    expect(unknown.dom.querySelector('main')!.innerHTML).toBe(known.dom.querySelector('main')!.innerHTML);
    expect(await mailbox.settledFor('nobody@example.com')).toHaveLength(0);
    expect(await mailbox.waitFor(ALICE.email)).toHaveLength(1);
  });

  test('a used reset link gets a clear page, and a too-short new password keeps the link usable', async () => {
    const browser = new TestBrowser(srv.issuer);
    await requestReset(browser, ALICE.email);
    const [mail] = await mailbox.waitFor(ALICE.email);
    const form = await browser.go(mail!.link!);
    const short = await browser.submit(form, { password: 'too-short' });
    expect(short.status).toBe(400);
    expect(short.dom.querySelector('[role=alert]')?.text).toBe('Choose a password of at least 12 characters.');
    expect((await browser.submit(short, { password: NEW_PASSWORD })).status).toBe(200);

    const reused = await browser.go(mail!.link!);
    expect(reused.status).toBe(400);
    expect(h1(reused)).toBe('Link not valid');
    const replayed = await browser.submit(form, { password: 'yet another passphrase' });
    expect(replayed.status).toBe(400);
    expect(h1(replayed)).toBe('Link not valid');
    expect(await srv.server.accounts.verifyPassword(ALICE.email, NEW_PASSWORD)).toBeDefined();
  });

  test('two concurrent uses of one reset link: exactly one sets its password', async () => {
    const browser = new TestBrowser(srv.issuer);
    await requestReset(browser, ALICE.email);
    const [mail] = await mailbox.waitFor(ALICE.email);
    const form = await browser.go(mail!.link!);
    const passwords = ['first racing passphrase', 'second racing passphrase'];
    const results = await Promise.all(passwords.map((password) => browser.submit(form, { password })));
    expect(results.map((p) => p.status).sort()).toEqual([200, 400]);
    const winner = passwords[results.findIndex((p) => p.status === 200)]!;
    const loser = passwords.find((p) => p !== winner)!;
    expect(await srv.server.accounts.verifyPassword(ALICE.email, winner)).toBeDefined();
    expect(await srv.server.accounts.verifyPassword(ALICE.email, loser)).toBeUndefined();
  });

  test('a verification link is not a reset link (tokens are bound to their purpose)', async () => {
    const browser = new TestBrowser(srv.issuer);
    const signup = await browser.go(`${srv.issuer}/account/signup`);
    await browser.submit(signup, {
      given_name: 'Eve',
      family_name: 'E',
      email: 'eve@example.org',
      password: 'eve-long-password',
    });
    const [mail] = await mailbox.waitFor('eve@example.org');
    const token = new URL(mail!.link!).searchParams.get('token');
    const page = await browser.go(`${srv.issuer}/account/reset/confirm?token=${token}`);
    expect(page.status).toBe(400);
    expect(h1(page)).toBe('Link not valid');
  });
});

describe('changing the e-mail address', () => {
  test('the new address must be confirmed; then the old one stops working and sessions end', async () => {
    const victimBrowser = new TestBrowser(srv.issuer);
    const tokens = await aliceWithTokens(victimBrowser);
    const browser = new TestBrowser(srv.issuer);
    const form = await browser.go(`${srv.issuer}/account/email`);
    const wrong = await browser.submit(form, {
      email: ALICE.email,
      password: 'not-her-password',
      new_email: 'alice@new.example',
    });
    expect(wrong.status).toBe(401);
    const sent = await browser.submit(wrong, { ...ALICE, new_email: 'alice@new.example' });
    expect(h1(sent)).toBe('Check your e-mail');
    expect((await mailbox.waitFor(ALICE.email))[0]!.subject).toBe('Your e-mail address is being changed');
    // Nothing changes before the link is followed.
    expect((await srv.server.accounts.findById('alice'))!.email).toBe(ALICE.email);

    const [mail] = await mailbox.waitFor('alice@new.example');
    const done = await browser.submit(await browser.go(mail!.link!), {});
    expect(h1(done)).toBe('E-mail address changed');
    expect(await srv.server.accounts.findById('alice')).toMatchObject({
      email: 'alice@new.example',
      emailVerified: true,
    });
    await expect(oidc.refreshTokenGrant(rp.config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    const { tokens: fresh } = await signIn(srv.issuer, rp, {
      email: 'alice@new.example',
      params: { scope: 'openid email' },
    });
    expect(fresh.claims()).toMatchObject({ sub: 'alice', email: 'alice@new.example', email_verified: true });
    expect(
      await browse(new TestBrowser(srv.issuer), (await startAuthorization(rp)).url, { email: ALICE.email }).catch(
        (e: Error) => e,
      ),
    ).toBeInstanceOf(Error);
  });
});

// OWASP Forgot Password Cheat Sheet: a reset, a password change or an address change ends the account's other
// reset links and any pending e-mail change (asked for with a stolen password, say), whatever order they came in.
describe('links issued before a password or address change stop working', () => {
  /** Asks a reset link for `email`; returns it (the newest reset mail: notices go to the same address). */
  async function resetLink(email = ALICE.email) {
    const isReset = (m: { link?: string }) => m.link?.includes('/account/reset/confirm?token=') === true;
    const before = (await mailbox.all()).filter(isReset).length;
    await requestReset(new TestBrowser(srv.issuer), email);
    for (let i = 0; i < 100; i++) {
      const links = (await mailbox.all()).filter((m) => isReset(m) && m.to.includes(email));
      if (links.length > before) return links[links.length - 1]!.link!;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no new reset mail to ${email}`);
  }
  /** Asks for alice's address to move to `to` (with her password); returns the confirmation link. */
  async function changeLink(to: string) {
    const browser = new TestBrowser(srv.issuer);
    const sent = await browser.submit(await browser.go(`${srv.issuer}/account/email`), { ...ALICE, new_email: to });
    expect(h1(sent)).toBe('Check your e-mail');
    return (await mailbox.waitFor(to))[0]!.link!;
  }
  async function useReset(link: string, password: string) {
    const browser = new TestBrowser(srv.issuer);
    const form = await browser.go(link);
    return form.status === 200 ? browser.submit(form, { password }) : form;
  }
  async function useChange(link: string) {
    const browser = new TestBrowser(srv.issuer);
    const page = await browser.go(link);
    return page.status === 200 ? browser.submit(page, {}) : page;
  }
  /** alice signs in on the account page and changes her password there. */
  async function changePasswordOnAccountPage(next: string) {
    const browser = new TestBrowser(srv.issuer);
    let page = await browser.go(`${srv.issuer}/account`);
    page = await browser.submit(page, { email: ALICE.email, password: ALICE.password });
    const form = page.dom.querySelector('#password-form button')!.closest('form')!;
    const done = await browser.submit(
      { ...page, dom: parse(`<div>${form.toString()}</div>`) },
      { current_password: ALICE.password, new_password: next },
    );
    expect(done.status).toBe(200);
  }

  test('two reset links: once one is used, the other is not valid', async () => {
    const first = await resetLink();
    const second = await resetLink();
    expect((await useReset(first, NEW_PASSWORD)).status).toBe(200);
    const stale = await useReset(second, 'the attacker passphrase');
    expect({ status: stale.status, title: h1(stale) }).toEqual({ status: 400, title: 'Link not valid' });
    expect(await srv.server.accounts.verifyPassword(ALICE.email, NEW_PASSWORD)).toBeDefined();
  });

  test("a pending e-mail change does not survive the owner's password reset (account takeover)", async () => {
    const change = await changeLink('attacker@evil.test');
    expect((await useReset(await resetLink(), NEW_PASSWORD)).status).toBe(200);
    const stale = await useChange(change);
    expect({ status: stale.status, title: h1(stale) }).toEqual({ status: 400, title: 'Link not valid' });
    expect((await srv.server.accounts.findById('alice'))!.email).toBe(ALICE.email);
  });

  test('a reset link does not survive a password change on the account page', async () => {
    const link = await resetLink();
    await changePasswordOnAccountPage(NEW_PASSWORD);
    const stale = await useReset(link, 'the attacker passphrase');
    expect({ status: stale.status, title: h1(stale) }).toEqual({ status: 400, title: 'Link not valid' });
    expect(await srv.server.accounts.verifyPassword(ALICE.email, NEW_PASSWORD)).toBeDefined();
  });

  test('a reset link mailed to the old address does not survive an address change', async () => {
    const link = await resetLink();
    expect(h1(await useChange(await changeLink('alice@new.example')))).toBe('E-mail address changed');
    const stale = await useReset(link, 'the attacker passphrase');
    expect({ status: stale.status, title: h1(stale) }).toEqual({ status: 400, title: 'Link not valid' });
    expect(await srv.server.accounts.verifyPassword('alice@new.example', ALICE.password)).toBeDefined();
  });

  test('links asked for after the change work', async () => {
    expect((await useReset(await resetLink(), NEW_PASSWORD)).status).toBe(200);
    const after = await resetLink();
    expect((await useReset(after, 'a second new passphrase')).status).toBe(200);
  });
});
