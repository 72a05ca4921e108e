import { generate } from 'otplib';
import { TestBrowser, type Page } from '../helpers/browser.js';
import { advanceClock, toNextSecond, useTestClock } from '../helpers/clock.js';
import { relyingParty, signIn, startAuthorization, type RelyingParty } from '../helpers/flow.js';
import { Mailbox } from '../helpers/mailbox.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { accountPage, accountPost, ALICE, NEW_PASSWORD, startWithMfaApp } from '../helpers/credential-change.js';
import { VerificationTokens } from '../../lib/accounts/verification-tokens.js';

/**
 * A finished sign-in whose browser has not yet come back to oidc-provider (the 303 after the login form, or after
 * the second step, to `/authorization/:uid`), over real HTTP. The owner's password reset, password change on
 * /account or e-mail change ends the account's sessions, and with them such a sign-in: whoever passed the old
 * password and kept the Location gets a fresh login page there, not a session, a consent page or a code.
 */
const NEW_EMAIL = 'alice.new@example.com';

let srv: RunningServer;
let mailbox: Mailbox;
let web: RelyingParty;
let mfaApp: RelyingParty;
beforeEach(async () => {
  ({ srv, mailbox, web, mfaApp } = await startWithMfaApp());
});
afterEach(async () => {
  await srv.close();
  await mailbox.remove();
});
// The server reads the test clock: links expire, and seconds roll over, by moving it, not by waiting
useTestClock();

/** Submits the page's form with `fields` without following the answer's redirect: its Location. */
async function submitParked(browser: TestBrowser, page: Page, fields: Record<string, string>): Promise<string> {
  const form = page.dom.querySelector('form')!;
  const data = new URLSearchParams();
  for (const input of form.querySelectorAll('input[type=hidden]'))
    data.set(input.getAttribute('name')!, input.getAttribute('value') ?? '');
  for (const [k, v] of Object.entries(fields)) data.set(k, v);
  const res = await browser.request(new URL(form.getAttribute('action')!, page.url).href, {
    method: 'POST',
    body: data,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(res.status).toBe(303);
  const location = new URL(res.headers.get('location')!, page.url).href;
  expect(location).toMatch(new RegExp(`^${srv.issuer}/authorization/[\\w-]+$`));
  return location;
}

/** Where the attacker, holding alice's old password, stops: the saved Location of the finished sign-in. */
const PARKED: Record<string, (browser: TestBrowser) => Promise<string>> = {
  'after the password': async (browser) =>
    submitParked(browser, await browser.go(String((await startAuthorization(web)).url)), ALICE),
  'after the password, consent remembered': async (browser) => {
    await signIn(srv.issuer, web, { consent: 'allow' }); // alice's own sign-in: her consent to demo-web is remembered
    return submitParked(browser, await browser.go(String((await startAuthorization(web)).url)), ALICE);
  },
  'after the password and the second step (require_mfa client)': async (browser) => {
    const enrol = await browser.submit(await browser.go(String((await startAuthorization(mfaApp)).url)), ALICE);
    const codes = await browser.submit(enrol, {
      code: await generate({ secret: enrol.dom.querySelector('#totp-secret')!.text }),
    });
    expect(codes.dom.querySelectorAll('#recovery-codes li')).toHaveLength(10);
    return submitParked(browser, codes, {});
  },
};

/** The latest mail to `to` with `subject` (a sign-in may have mailed alice a notice before it). */
async function linkOf(to: string, subject: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const mail = (await mailbox.all()).find((m) => m.to.includes(to) && m.subject === subject);
    if (mail) return mail.link!;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no mail "${subject}" to ${to}`);
}

/** The owner's changes that end the account's sessions, and the credentials that sign in after each. */
const CHANGES: Record<string, { act: () => Promise<void>; after: { email: string; password: string } }> = {
  'a password reset by mail link': {
    act: async () => {
      const browser = new TestBrowser(srv.issuer);
      await browser.submit(await browser.go(`${srv.issuer}/account/reset`), { email: ALICE.email });
      const done = await browser.submit(await browser.go(await linkOf(ALICE.email, 'Reset your password')), {
        password: NEW_PASSWORD,
      });
      expect(done.dom.querySelector('h1')!.text).toBe('Password changed');
    },
    after: { email: ALICE.email, password: NEW_PASSWORD },
  },
  'a password change on /account': {
    act: async () => {
      const { browser, home } = await accountPage(srv.issuer, web);
      const done = await accountPost(browser, home, '/account/password', {
        current_password: ALICE.password,
        new_password: NEW_PASSWORD,
      });
      expect(done.status).toBe(200);
    },
    after: { email: ALICE.email, password: NEW_PASSWORD },
  },
  'an e-mail change by mail link': {
    act: async () => {
      const browser = new TestBrowser(srv.issuer);
      const sent = await browser.submit(await browser.go(`${srv.issuer}/account/email`), {
        ...ALICE,
        new_email: NEW_EMAIL,
      });
      expect(sent.dom.querySelector('h1')!.text).toBe('Check your e-mail');
      const done = await browser.submit(await browser.go((await mailbox.waitFor(NEW_EMAIL))[0]!.link!), {});
      expect(done.status).toBe(200);
      expect((await srv.server.accounts.findById('alice'))!.email).toBe(NEW_EMAIL);
    },
    after: { email: NEW_EMAIL, password: ALICE.password },
  },
};

/** What a `prompt=none` request of demo-web gets in `browser`: the error at the callback, or `code`. */
async function silently(browser: TestBrowser): Promise<string | null> {
  const answer = await browser.go(String((await startAuthorization(web, { prompt: 'none' })).url));
  const callback = new URL(answer.redirectedTo!);
  return callback.searchParams.get('error') ?? (callback.searchParams.has('code') ? 'code' : null);
}

const ROWS = Object.keys(CHANGES)
  .flatMap((change) => Object.keys(PARKED).map((parked) => [change, parked] as const))
  // the second step's rows: the reset (on /account, alice would need the attacker's TOTP to sign in)
  .filter(([change, parked]) => change === 'a password reset by mail link' || !parked.includes('second step'));

describe('a finished sign-in resumed after the owner changed the password or address', () => {
  test.each(ROWS)('%s, sign-in parked %s: a fresh login page, no session, no code', async (change, parked) => {
    const attacker = new TestBrowser(srv.issuer);
    const location = await PARKED[parked]!(attacker);
    await CHANGES[change]!.act();
    const resumed = await attacker.go(location);
    expect(resumed.redirectedTo).toBeUndefined();
    expect(resumed.status).toBe(200);
    expect(resumed.url).toMatch(new RegExp(`^${srv.issuer}/interaction/[\\w-]+$`));
    expect(resumed.url).not.toContain(location.split('/').pop()!);
    expect(resumed.dom.querySelector('input[name=password]')).not.toBeNull();
    expect(resumed.dom.querySelector('button[name=decision]')).toBeNull();
    // the browser holds no session of alice's
    expect(await silently(attacker)).toBe('login_required');
    // the fresh login page is an ordinary one: the new credentials sign in there
    const signedIn = await attacker.submit(resumed, CHANGES[change]!.after);
    expect(signedIn.dom.querySelector('input[name=password]')).toBeNull();
  });

  test.each(Object.keys(CHANGES))(
    '%s, a session signed in before it: prompt=none is login_required',
    async (change) => {
      const victim = new TestBrowser(srv.issuer);
      await signIn(srv.issuer, web, { browser: victim });
      expect(await silently(victim)).toBe('code');
      await CHANGES[change]!.act();
      expect(await silently(victim)).toBe('login_required');
    },
  );

  test.each(Object.keys(CHANGES))('%s, then a sign-in with the new credentials: a code, as before', async (change) => {
    await CHANGES[change]!.act();
    const { tokens } = await signIn(srv.issuer, web, CHANGES[change]!.after);
    expect(tokens.claims()!.sub).toBe('alice');
  });

  test('the session that changed the password on /account steps up to two factors after it, as before', async () => {
    const { browser, home } = await accountPage(srv.issuer, web);
    await accountPost(browser, home, '/account/password', {
      current_password: ALICE.password,
      new_password: NEW_PASSWORD,
    });
    // the kept session's sign-in predates the change; a step-up adds a factor to it (no password asked)
    const enrol = await browser.go(String((await startAuthorization(mfaApp)).url));
    expect(enrol.dom.querySelector('input[name=password]')).toBeNull();
    const codes = await browser.submit(enrol, {
      code: await generate({ secret: enrol.dom.querySelector('#totp-secret')!.text }),
    });
    const consent = await browser.submit(codes, {});
    expect(consent.dom.querySelector('button[name=decision]')).not.toBeNull();
    const done = await browser.submit(consent, {}, { name: 'decision', value: 'allow' });
    expect(new URL(done.redirectedTo!).searchParams.has('code')).toBe(true);
  });

  test('a password reset, sign-in saved before results carried the time of its password: a fresh login page', async () => {
    const attacker = new TestBrowser(srv.issuer);
    const location = await PARKED['after the password']!(attacker);
    // as an earlier version saved it: no firstFactorAt (its interaction began before the change)
    const interactions = srv.server.storage.adapter('Interaction');
    const uid = location.split('/').pop()!;
    const stored = (await interactions.find(uid)) as { exp: number; result: { login: Record<string, unknown> } };
    expect(typeof stored.result.login.firstFactorAt).toBe('number');
    delete stored.result.login.firstFactorAt;
    await interactions.upsert(uid, stored, stored.exp - Math.floor(Date.now() / 1000));
    await CHANGES['a password reset by mail link']!.act();
    const resumed = await attacker.go(location);
    expect(resumed.redirectedTo).toBeUndefined();
    expect(resumed.dom.querySelector('input[name=password]')).not.toBeNull();
    expect(await silently(attacker)).toBe('login_required');
  });

  test('a sign-in in the same second right after the change: a code (the check is by the millisecond)', async () => {
    const marker = new VerificationTokens(srv.server.storage.adapter);
    for (let attempt = 0; ; attempt++) {
      // at the start of a second, so that the sign-in below ends within it
      toNextSecond();
      await marker.revokeFor('alice');
      const changedAt = (await marker.credentialsChangedAt('alice'))!;
      const { tokens } = await signIn(srv.issuer, web);
      const authTime = tokens.claims()!.auth_time!;
      if (authTime !== Math.floor(changedAt / 1000) && attempt < 3) continue;
      expect(authTime).toBe(Math.floor(changedAt / 1000));
      expect(tokens.claims()!.sub).toBe('alice');
      break;
    }
  });
});

describe('links shorter-lived than a sign-in in the making', () => {
  test("the change is remembered for the interaction's lifetime: resumed after the links' 1 s, a fresh login page", async () => {
    await srv.close();
    srv = await startServer({ mail: { mailbox: mailbox.dir }, selfService: { resetTtl: 1, verificationTtl: 1 } });
    web = await relyingParty(srv.issuer);
    const attacker = new TestBrowser(srv.issuer);
    const location = await PARKED['after the password']!(attacker);
    await CHANGES['a password change on /account']!.act();
    advanceClock(2100);
    const resumed = await attacker.go(location);
    expect(resumed.redirectedTo).toBeUndefined();
    expect(resumed.dom.querySelector('input[name=password]')).not.toBeNull();
    expect(await silently(attacker)).toBe('login_required');
  });
});
