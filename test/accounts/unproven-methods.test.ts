import { parse } from 'node-html-parser';
import { generate } from 'otplib';
import { TestBrowser, type Page } from '../helpers/browser.js';
import { relyingParty, signIn } from '../helpers/flow.js';
import { Mailbox } from '../helpers/mailbox.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * Pre-account hijacking through sign-in methods (docs/guides/accounts.md): with `selfService.requireVerifiedEmail: false`
 * whoever signs up first with an address signs in unconfirmed and can set up TOTP or a passkey on `/account`. When
 * the address's owner then takes the account over with a reset link (their own "forgot password", or the "set your
 * password" link a second sign-up mails), those methods must go with the first sign-up's password: a passkey signs
 * in without it, and a TOTP kept the owner out. Over real HTTP; the passkey is stored as the registration would.
 */
let srv: RunningServer;
let mailbox: Mailbox;
afterEach(async () => {
  await srv.close();
  await mailbox.remove();
});

const VICTIM = 'victim@example.org';
const ATTACKER_PASSWORD = 'attacker-chose-this';
const OWNER_PASSWORD = 'the owners own passphrase';
const h1 = (p: Page) => p.dom.querySelector('h1')?.text;
const PASSKEY = {
  credentialId: 'Y3JlZC0x',
  publicKey: 'AQID',
  counter: 0,
  name: 'attacker key',
  createdAt: Date.now(),
};

async function start() {
  mailbox = await Mailbox.create();
  // localhost (a domain name) so that passkeys are on.
  srv = await startServer((issuer) => ({
    issuer: issuer.replace('127.0.0.1', 'localhost'),
    mail: { mailbox: mailbox.dir },
    selfService: { requireVerifiedEmail: false },
  }));
}

/** Signs `VICTIM` up with the attacker's password and enrols the attacker's TOTP on /account; returns the TOTP secret. */
async function attackerSetsUpTotp(): Promise<string> {
  const browser = new TestBrowser(srv.server.config.issuer);
  const signup = await browser.go(`${srv.server.config.issuer}/account/signup`);
  expect(
    h1(
      await browser.submit(signup, { given_name: 'Eve', family_name: 'X', email: VICTIM, password: ATTACKER_PASSWORD }),
    ),
  ).toBe('Check your e-mail');
  let home = await browser.go(`${srv.server.config.issuer}/account`);
  home = await browser.submit(home, { email: VICTIM, password: ATTACKER_PASSWORD });
  expect(home.dom.querySelector('#totp-status')!.text).toContain('off');
  const form = home.dom.querySelector('#totp-add')!.parentNode;
  const enrol = await browser.submit({ ...home, dom: parse(`<div>${form!.toString()}</div>`) }, {});
  const secret = enrol.dom.querySelector('#totp-secret')!.text;
  const codes = await browser.submit(enrol, { code: await generate({ secret }) });
  expect(codes.dom.querySelectorAll('#recovery-codes li')).toHaveLength(10);
  // The notice of the TOTP set-up is mailed in the background: wait for it, so that the owner's reset mail comes after.
  const before = await mailbox.waitFor(VICTIM, 2);
  expect(before.map((m) => m.subject)).toEqual([
    'Confirm your e-mail address',
    'A sign-in method was added to your account',
  ]);
  return secret;
}

/** The owner's way to a reset link: "forgot password", or signing up again (the "set your password" mail). */
const takeovers: Array<[string, (b: TestBrowser) => Promise<Page>]> = [
  [
    'forgot password',
    async (b) => b.submit(await b.go(`${srv.server.config.issuer}/account/reset`), { email: VICTIM }),
  ],
  [
    'second sign-up',
    async (b) =>
      b.submit(await b.go(`${srv.server.config.issuer}/account/signup`), {
        given_name: 'Vic',
        family_name: 'Tim',
        email: VICTIM,
        password: OWNER_PASSWORD,
      }),
  ],
];

async function ownerResets(how: (b: TestBrowser) => Promise<Page>): Promise<void> {
  const browser = new TestBrowser(srv.server.config.issuer);
  expect(h1(await how(browser))).toBe('Check your e-mail');
  // Before it (waited for in attackerSetsUpTotp): the first sign-up's confirmation link and the notice of the TOTP set-up.
  const mails = await mailbox.waitFor(VICTIM, 3);
  const link = mails[2]!.link!;
  expect(link).toContain('/account/reset/confirm?token=');
  const done = await browser.submit(await browser.go(link), { password: OWNER_PASSWORD });
  expect(h1(done)).toBe('Password changed');
}

describe('a reset that confirms an unconfirmed address removes the sign-in methods set up before', () => {
  beforeEach(start);

  test.each(takeovers)(
    'TOTP set up by the first sign-up, owner takes over by %s: the password alone signs in',
    async (_how, how) => {
      await attackerSetsUpTotp();
      await ownerResets(how);
      const account = await srv.server.accounts.findByEmail(VICTIM);
      expect(account).toMatchObject({ emailVerified: true });
      expect(await srv.server.accounts.getSecondFactor!(account!.id)).toBeUndefined();
      // No second-factor page: the owner's password ends the sign-in at the client.
      const rp = await relyingParty(srv.server.config.issuer);
      const { tokens } = await signIn(srv.server.config.issuer, rp, {
        email: VICTIM,
        password: OWNER_PASSWORD,
        params: { scope: 'openid email' },
      });
      expect(tokens.claims()).toMatchObject({ email: VICTIM, email_verified: true, amr: ['pwd'] });
    },
  );

  test.each(takeovers)('a passkey of the first sign-up, owner takes over by %s: it is deleted', async (_how, how) => {
    await attackerSetsUpTotp();
    const account = await srv.server.accounts.findByEmail(VICTIM);
    await srv.server.accounts.savePasskey!(account!.id, PASSKEY);
    await ownerResets(how);
    expect(await srv.server.accounts.listPasskeys!(account!.id)).toEqual([]);
    expect(await srv.server.accounts.findAccountByPasskey!(PASSKEY.credentialId)).toBeUndefined();
  });

  test('a confirmed account keeps its TOTP and passkeys through a reset', async () => {
    const alice = (await srv.server.accounts.findByEmail('alice@example.com'))!;
    const browser = new TestBrowser(srv.server.config.issuer);
    // alice enrols TOTP on /account
    let home = await browser.go(`${srv.server.config.issuer}/account`);
    home = await browser.submit(home, { email: 'alice@example.com', password: 'alice-demo-password' });
    const form = home.dom.querySelector('#totp-add')!.parentNode;
    const enrol = await browser.submit({ ...home, dom: parse(`<div>${form!.toString()}</div>`) }, {});
    await browser.submit(enrol, { code: await generate({ secret: enrol.dom.querySelector('#totp-secret')!.text }) });
    await srv.server.accounts.savePasskey!(alice.id, PASSKEY);
    const reset = await browser.submit(await browser.go(`${srv.server.config.issuer}/account/reset`), {
      email: 'alice@example.com',
    });
    expect(h1(reset)).toBe('Check your e-mail');
    const link = (await mailbox.waitFor('alice@example.com', 2))
      .map((m) => m.link)
      .filter((l) => l?.includes('/account/reset/confirm'))
      .at(-1)!;
    expect(h1(await browser.submit(await browser.go(link), { password: OWNER_PASSWORD }))).toBe('Password changed');
    expect((await srv.server.accounts.getSecondFactor!(alice.id))?.totp).toBeDefined();
    expect(await srv.server.accounts.listPasskeys!(alice.id)).toHaveLength(1);
  });
});
