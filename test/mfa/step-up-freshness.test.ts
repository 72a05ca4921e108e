import { generate } from 'otplib';
import { TestBrowser, type Page } from '../helpers/browser.js';
import { advanceClock, useTestClock } from '../helpers/clock.js';
import { oidc, relyingParty, signIn, startAuthorization, type RelyingParty } from '../helpers/flow.js';
import { Mailbox } from '../helpers/mailbox.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * The `acr_values=urn:portcullis:mfa` step-up of a signed-in session, against `mfa.reauthenticateAfterSeconds`
 * over real HTTP. A step-up asks for no password, so only a session signed in within that window gets it; an
 * older one signs in with the password before the second factor or its enrolment, and the account page's
 * changes stay refused until it did. A step-up keeps the session's sign-in time (`auth_time`), so it never makes
 * an old password count as new on `/account`.
 */
let srv: RunningServer;
let mailbox: Mailbox;
let web: RelyingParty;
afterEach(async () => {
  await srv.close();
  await mailbox.remove();
});
// The server reads the test clock: the sign-in ages by moving it forward, not by waiting
useTestClock();

async function start(reauthenticateAfterSeconds: number) {
  mailbox = await Mailbox.create();
  srv = await startServer({ mail: { mailbox: mailbox.dir }, mfa: { reauthenticateAfterSeconds } });
  web = await relyingParty(srv.issuer);
}

const MFA = { acr_values: 'urn:portcullis:mfa' };

/** POSTs an `/account` change with the account page's CSRF token; returns the page it ends on. */
async function accountChange(browser: TestBrowser, home: Page, path: string) {
  const csrf = home.dom.querySelector('input[name=csrf]')!.getAttribute('value')!;
  return browser.go(`${srv.issuer}${path}`, {
    method: 'POST',
    body: new URLSearchParams({ csrf }),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

/** Confirms a TOTP enrolment page with a code of its key, continues past the recovery codes; returns the callback. */
async function enrol(browser: TestBrowser, page: Page) {
  const secret = page.dom.querySelector('#totp-secret')!.text;
  const codes = await browser.submit(page, { code: await generate({ secret }) });
  expect(codes.dom.querySelectorAll('#recovery-codes li')).toHaveLength(10);
  let next: Page & { redirectedTo?: string } = await browser.submit(codes, {});
  for (let i = 0; i < 3 && !next.redirectedTo; i++)
    next = await browser.submit(next, {}, { name: 'decision', value: 'allow' });
  return new URL(next.redirectedTo!);
}

/** Signs alice in to demo-web with her password only (acr pwd) and opens `/account` in the same browser. */
async function signedInAlice() {
  const browser = new TestBrowser(srv.issuer);
  const first = await signIn(srv.issuer, web, { browser });
  expect(first.tokens.claims()).toMatchObject({ acr: 'urn:portcullis:pwd', amr: ['pwd'] });
  const home = await browser.go(`${srv.issuer}/account`);
  expect(home.dom.querySelector('#totp-status')!.text).toContain('off');
  return { browser, home, authTime: first.tokens.claims()!.auth_time! };
}

describe('step-up of a session signed in before mfa.reauthenticateAfterSeconds', () => {
  // A 3-second window: the enrolment after the password (sign-in, TOTP, code exchange, the account page's POST)
  // must then count as fresh, which a 1-second window did not always leave time for on a loaded CI machine.
  beforeEach(() => start(3));

  test.each([['/account/recovery-codes'], ['/account/totp']])(
    'enrolment asks for the password first; %s stays refused until then, passes after',
    async (change) => {
      const { browser, home } = await signedInAlice();
      // loginTs has a resolution of one second: until the sign-in is older than the 3-second window
      advanceClock(4100);
      const login = await browser.go(String((await startAuthorization(web, MFA)).url));
      expect(login.status).toBe(200);
      expect(login.dom.querySelector('input[name=password]')).not.toBeNull();
      expect(login.dom.querySelector('#totp-secret')).toBeNull();
      // nothing was enrolled, and the account page still asks for the password before a change
      expect(await srv.server.accounts.getSecondFactor!('alice')).toBeUndefined();
      const refused = await accountChange(browser, home, change);
      expect(refused.dom.querySelector('input[name=password]')).not.toBeNull();
      expect(refused.dom.querySelector('#recovery-codes, #totp-secret')).toBeNull();

      // with the password (a new request: the account page's sign-in took this browser's interaction cookie): the
      // enrolment, then a sign-in with two factors that /account takes as fresh
      const stepUp = await startAuthorization(web, MFA);
      const enrolPage = await browser.submit(await browser.go(String(stepUp.url)), {
        email: 'alice@example.com',
        password: 'alice-demo-password',
      });
      expect(enrolPage.dom.querySelector('#totp-secret')).not.toBeNull();
      const tokens = await oidc.authorizationCodeGrant(web.config, await enrol(browser, enrolPage), {
        pkceCodeVerifier: stepUp.codeVerifier,
        expectedState: stepUp.state,
        expectedNonce: stepUp.nonce,
      });
      expect(tokens.claims()).toMatchObject({
        acr: 'urn:portcullis:mfa',
        amr: expect.arrayContaining(['pwd', 'otp', 'mfa']),
      });
      const home2 = await browser.go(`${srv.issuer}/account`);
      const allowed = await accountChange(browser, home2, '/account/recovery-codes');
      expect(allowed.status).toBe(200);
      expect(allowed.dom.querySelectorAll('#recovery-codes li')).toHaveLength(10);
      await mailbox.waitFor('alice@example.com', 2);
    },
  );
});

describe('a step-up left open until the sign-in is older than mfa.reauthenticateAfterSeconds', () => {
  beforeEach(() => start(3));

  test('the enrolment page opened while fresh no longer finishes; the password comes first', async () => {
    const { browser } = await signedInAlice();
    const stepUp = await startAuthorization(web, MFA);
    const enrolPage = await browser.go(String(stepUp.url));
    expect(enrolPage.dom.querySelector('input[name=password]')).toBeNull();
    advanceClock(4100);
    const late = await browser.submit(enrolPage, {
      code: await generate({ secret: enrolPage.dom.querySelector('#totp-secret')!.text }),
    });
    expect(late.status).toBe(400);
    expect(await srv.server.accounts.getSecondFactor!('alice')).toBeUndefined();
    const again = await browser.go(String(stepUp.url));
    expect(again.dom.querySelector('input[name=password]')).not.toBeNull();
  });
});

describe('step-up of a session signed in within mfa.reauthenticateAfterSeconds', () => {
  beforeEach(() => start(600));

  test('enrols without a second password prompt and keeps the sign-in time (auth_time)', async () => {
    const { browser, authTime } = await signedInAlice();
    // a second later, so that a new sign-in time would show
    advanceClock(1100);
    const stepUp = await startAuthorization(web, MFA);
    const enrolPage = await browser.go(String(stepUp.url));
    expect(enrolPage.dom.querySelector('input[name=password]')).toBeNull();
    const tokens = await oidc.authorizationCodeGrant(web.config, await enrol(browser, enrolPage), {
      pkceCodeVerifier: stepUp.codeVerifier,
      expectedState: stepUp.state,
      expectedNonce: stepUp.nonce,
    });
    expect(tokens.claims()).toMatchObject({
      acr: 'urn:portcullis:mfa',
      amr: expect.arrayContaining(['pwd', 'otp', 'mfa']),
      auth_time: authTime,
    });
    const home = await browser.go(`${srv.issuer}/account`);
    const allowed = await accountChange(browser, home, '/account/recovery-codes');
    expect(allowed.dom.querySelectorAll('#recovery-codes li')).toHaveLength(10);
    await mailbox.waitFor('alice@example.com', 2);
  });
});

describe('a step-up does not renew the window of the password', () => {
  beforeEach(() => start(5));

  test('/account asks for the password once the first sign-in is older than the window, step-up or not', async () => {
    const t0 = Date.now();
    const { browser } = await signedInAlice();
    // step up half-way through the window; check after the window of the first sign-in, within that of the step-up
    advanceClock(Math.max(0, t0 + 2600 - Date.now()));
    const stepUp = await startAuthorization(web, MFA);
    const enrolPage = await browser.go(String(stepUp.url));
    expect(enrolPage.dom.querySelector('input[name=password]')).toBeNull();
    await enrol(browser, enrolPage);
    advanceClock(Math.max(0, t0 + 6200 - Date.now()));
    const home = await browser.go(`${srv.issuer}/account`);
    const refused = await accountChange(browser, home, '/account/recovery-codes');
    expect(refused.dom.querySelector('input[name=password]')).not.toBeNull();
    expect(refused.dom.querySelector('#recovery-codes')).toBeNull();
    await mailbox.waitFor('alice@example.com');
  });
});
