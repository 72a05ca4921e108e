import { generate } from 'otplib';
import { TestBrowser, type Page } from '../helpers/browser.js';
import { signIn, startAuthorization, type RelyingParty } from '../helpers/flow.js';
import { Mailbox } from '../helpers/mailbox.js';
import type { RunningServer } from '../helpers/server.js';
import { accountPage, accountPost, ALICE, NEW_PASSWORD, startWithMfaApp } from '../helpers/credential-change.js';

/**
 * A sign-in parked between its password and its second step (the TOTP enrolment a `require_mfa` client asks for,
 * or the recovery codes shown after it) over real HTTP. The owner's password reset or change ends the account's
 * sessions, and with them such a sign-in: whoever passed the old password cannot enrol their own TOTP and be
 * signed in after it. And the enrolment never replaces a second factor the account got meanwhile (the password
 * alone would own it): that factor is asked for instead.
 */
const NO_STEP = 'There is no second sign-in step pending here. Go back to the application and start again.';

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

const totp = (page: Page) => generate({ secret: page.dom.querySelector('#totp-secret')!.text });

/** Signs in to the require_mfa client with alice's password in `browser`: the TOTP enrolment page. */
async function enrolPage(browser: TestBrowser): Promise<Page> {
  const login = await browser.go(String((await startAuthorization(mfaApp)).url));
  const page = await browser.submit(login, ALICE);
  expect(page.dom.querySelector('#totp-secret')).not.toBeNull();
  return page;
}

/** The link of the reset mail (a sign-in parked after its enrolment mailed alice a notice before it). */
async function resetLink(): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const mail = (await mailbox.all()).find((m) => m.to.includes(ALICE.email) && m.subject === 'Reset your password');
    if (mail) return mail.link!;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('no reset mail');
}

/** The owner's ways of replacing the password. */
const CHANGES: Array<[string, () => Promise<void>]> = [
  [
    'a password reset by mail link',
    async () => {
      const browser = new TestBrowser(srv.issuer);
      await browser.submit(await browser.go(`${srv.issuer}/account/reset`), { email: ALICE.email });
      const done = await browser.submit(await browser.go(await resetLink()), { password: NEW_PASSWORD });
      expect(done.dom.querySelector('h1')!.text).toBe('Password changed');
    },
  ],
  [
    'a password change on /account',
    async () => {
      const { browser, home } = await accountPage(srv.issuer, web);
      const done = await accountPost(browser, home, '/account/password', {
        current_password: ALICE.password,
        new_password: NEW_PASSWORD,
      });
      expect(done.status).toBe(200);
    },
  ],
];

/** Parks the sign-in at the enrolment's recovery codes (the enrolment confirmed with a code of its key). */
async function atRecoveryCodes(browser: TestBrowser, page: Page): Promise<Page> {
  const codes = await browser.submit(page, { code: await totp(page) });
  expect(codes.dom.querySelectorAll('#recovery-codes li')).toHaveLength(10);
  return codes;
}

/**
 * The owner's change, and where the sign-in with the old password was parked. (Parked at the recovery codes, the
 * attacker's TOTP is the account's: the owner's way out is the reset, which removes nothing but ends the sign-in.)
 */
const ROWS: Array<[string, string, () => Promise<void>, boolean]> = [
  [CHANGES[0]![0], 'at the TOTP enrolment', CHANGES[0]![1], false],
  [CHANGES[0]![0], 'at the recovery codes after it', CHANGES[0]![1], true],
  [CHANGES[1]![0], 'at the TOTP enrolment', CHANGES[1]![1], false],
];

describe('a sign-in parked at its second step after the old password', () => {
  test.each(ROWS)(
    'ends with %s (parked %s): 400, the login page again, no sign-in',
    async (_change, _where, act, codesShown) => {
      const attacker = new TestBrowser(srv.issuer);
      const enrol = await enrolPage(attacker);
      const parked = codesShown ? await atRecoveryCodes(attacker, enrol) : enrol;
      const stored = await srv.server.accounts.getSecondFactor!('alice');
      await act();
      // the next step: confirming the enrolment (with a code of its key) or continuing past the recovery codes
      const next = await attacker.submit(parked, parked === enrol ? { code: await totp(enrol) } : {});
      expect(next.redirectedTo).toBeUndefined();
      expect(next.status).toBe(400);
      expect(next.dom.querySelector('#error')!.text).toBe('invalid_request');
      expect(next.dom.querySelector('#error_description')!.text).toBe(NO_STEP);
      // nothing was enrolled by the refused step, and the sign-in asks for the (new) password again
      expect(await srv.server.accounts.getSecondFactor!('alice')).toEqual(stored);
      const again = await attacker.go(parked.url.replace(/\/(login|enrol)$/, ''));
      expect(again.status).toBe(200);
      expect(again.dom.querySelector('input[name=password]')).not.toBeNull();
    },
  );

  test('a password checked after the change goes on to the enrolment as before', async () => {
    await CHANGES[0]![1]();
    const browser = new TestBrowser(srv.issuer);
    const page = await browser.submit(await browser.go(String((await startAuthorization(mfaApp)).url)), {
      ...ALICE,
      password: NEW_PASSWORD,
    });
    const codes = await browser.submit(page, { code: await totp(page) });
    expect(codes.status).toBe(200);
    expect(codes.dom.querySelectorAll('#recovery-codes li')).toHaveLength(10);
  });
});

describe('the enrolment at sign-in and a second factor added meanwhile', () => {
  test("409 with the code page: the new factor is kept and asked for, the enrolment's key is refused", async () => {
    const attacker = new TestBrowser(srv.issuer);
    const parked = await enrolPage(attacker);
    // the owner enrols an authenticator app of their own meanwhile
    const owner = new TestBrowser(srv.issuer);
    const ownEnrol = await enrolPage(owner);
    const ownSecret = ownEnrol.dom.querySelector('#totp-secret')!.text;
    expect((await owner.submit(ownEnrol, { code: await totp(ownEnrol) })).status).toBe(200);
    const stored = await srv.server.accounts.getSecondFactor!('alice');

    const refused = await attacker.submit(parked, { code: await totp(parked) });
    expect(refused.status).toBe(409);
    expect(refused.dom.querySelector('.error')!.text).toBe(
      'This account got a second factor while you were setting one up. Confirm with it to sign in.',
    );
    expect(refused.dom.querySelector('#totp-secret')).toBeNull();
    expect(refused.dom.querySelector('input[name=code]')).not.toBeNull();
    expect(await srv.server.accounts.getSecondFactor!('alice')).toEqual(stored);
    // the enrolment's key is no second factor of the account; the owner's is (its next step: a replay is refused)
    expect((await attacker.submit(refused, { code: await totp(parked) })).status).toBe(401);
    const signedIn = await attacker.submit(refused, {
      code: await generate({ secret: ownSecret, epoch: Math.floor(Date.now() / 1000) + 30 }),
    });
    expect(signedIn.status).toBe(200);
    expect(signedIn.dom.querySelector('button[name=decision]')).not.toBeNull();
  });
});
