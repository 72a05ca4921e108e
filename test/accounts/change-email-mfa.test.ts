import { parse } from 'node-html-parser';
import { generate } from 'otplib';
import { TestBrowser, type Page } from '../helpers/browser.js';
import { Mailbox } from '../helpers/mailbox.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * The e-mail change form `/account/email` for accounts with two-step verification, over real HTTP. The password
 * alone used to move the verified address of any account (and with it password resets and what clients trust)
 * to an attacker's mailbox; now an account that signs in with two factors gives its TOTP or recovery code too,
 * and one whose only second factor is a passkey is refused. A wrong password gets the same answer as for any
 * account; what follows a right password is what the login page's second step says too.
 */
let srv: RunningServer;
let mailbox: Mailbox;
afterEach(async () => {
  await srv.close();
  await mailbox.remove();
});

const ALICE = { email: 'alice@example.com', password: 'alice-demo-password' };
const MALLORY = 'mallory@evil.test';
const h1 = (p: Page) => p.dom.querySelector('h1')?.text;
const error = (p: Page) => p.dom.querySelector('.error')?.text.trim();
const code = (secret: string, steps = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });

async function start(localhost = false) {
  mailbox = await Mailbox.create();
  srv = await startServer((address) => ({
    mail: { mailbox: mailbox.dir },
    ...(localhost ? { issuer: address.replace('127.0.0.1', 'localhost') } : {}),
  }));
}
const issuer = () => srv.server.config.issuer;

/** alice turns TOTP on from the account page; returns the key and her recovery codes. */
async function aliceWithTotp() {
  const browser = new TestBrowser(issuer());
  const home = await browser.submit(await browser.go(`${issuer()}/account`), ALICE);
  const form = home.dom.querySelector('#totp-add')!.parentNode;
  const enrol = await browser.submit({ ...home, dom: parse(`<div>${form!.toString()}</div>`) }, {});
  const secret = enrol.dom.querySelector('#totp-secret')!.text;
  const codes = await browser.submit(enrol, { code: await code(secret) });
  const recovery = codes.dom.querySelectorAll('#recovery-codes li').map((li) => li.text.trim());
  expect(recovery).toHaveLength(10);
  await mailbox.waitFor(ALICE.email);
  return { secret, recovery };
}

/** Fills the e-mail change form in a new browser. */
async function changeTo(fields: Record<string, string>) {
  const browser = new TestBrowser(issuer());
  return browser.submit(await browser.go(`${issuer()}/account/email`), { new_email: MALLORY, ...fields });
}

/** Whether a confirmation link went to mallory (after the mails of the request had time to go out). */
async function mailedToMallory(): Promise<boolean> {
  await new Promise((r) => setTimeout(r, 300));
  return (await mailbox.all()).some((m) => m.to.includes(MALLORY));
}

describe('e-mail change of an account with TOTP', () => {
  beforeEach(() => start());

  test.each([
    [
      'the password alone',
      (_: Awaited<ReturnType<typeof aliceWithTotp>>) => ({ ...ALICE }),
      401,
      'This account uses two-step verification',
    ],
    ['the password and a wrong code', () => ({ ...ALICE, code: '000000' }), 401, 'That code is not right'],
    [
      'a wrong password and the right code',
      async (f: Awaited<ReturnType<typeof aliceWithTotp>>) => ({
        ...ALICE,
        password: 'not-her-password',
        code: await code(f.secret, 1),
      }),
      401,
      'The e-mail address or password is incorrect.',
    ],
  ])('%s: refused, no link to the new address, nothing changes', async (_name, fields, status, text) => {
    const factors = await aliceWithTotp();
    const page = await changeTo(await fields(factors));
    expect(page.status).toBe(status);
    expect(error(page)).toContain(text);
    expect(page.dom.querySelector('input[name=code]')).not.toBeNull();
    expect(await mailedToMallory()).toBe(false);
    expect((await srv.server.accounts.findById('alice'))!.email).toBe(ALICE.email);
  });

  test.each([
    ['a TOTP code', async (f: Awaited<ReturnType<typeof aliceWithTotp>>) => code(f.secret, 1)],
    ['a recovery code', (f: Awaited<ReturnType<typeof aliceWithTotp>>) => f.recovery[0]!],
  ])('the password and %s: the link goes out, and only following it changes the address', async (_name, factor) => {
    const factors = await aliceWithTotp();
    const sent = await changeTo({ ...ALICE, code: await factor(factors) });
    expect(sent.status).toBe(200);
    expect(h1(sent)).toBe('Check your e-mail');
    const [mail] = await mailbox.waitFor(MALLORY);
    const browser = new TestBrowser(issuer());
    const done = await browser.submit(await browser.go(mail!.link!), {});
    expect(done.status).toBe(200);
    expect((await srv.server.accounts.findById('alice'))!.email).toBe(MALLORY);
  });
});

describe('e-mail change of an account without a second factor', () => {
  beforeEach(() => start());

  test('the password alone starts it, as before; a wrong password gets the same answer as with TOTP', async () => {
    const wrong = await changeTo({ ...ALICE, password: 'not-her-password' });
    expect(wrong.status).toBe(401);
    expect(error(wrong)).toBe('The e-mail address or password is incorrect.');
    const sent = await changeTo({ ...ALICE });
    expect(h1(sent)).toBe('Check your e-mail');
    expect((await mailbox.waitFor(MALLORY))[0]!.link).toContain(issuer());
  });
});

describe('e-mail change of an account whose second factor is a passkey', () => {
  beforeEach(() => start(true));

  test('refused (403) with the way to do it, even with a code typed in; no link goes out', async () => {
    expect(srv.server.config.passkeys).toMatchObject({ enabled: true, secondFactor: true });
    await srv.server.accounts.savePasskey!('alice', {
      credentialId: 'AAAA',
      publicKey: 'AAAA',
      counter: 0,
      name: 'key',
      createdAt: Date.now(),
    } as never);
    const page = await changeTo({ ...ALICE, code: '123456' });
    expect(page.status).toBe(403);
    expect(error(page)).toContain('passkey');
    expect(await mailedToMallory()).toBe(false);
    // a wrong password: the same answer as for any account
    const wrong = await changeTo({ ...ALICE, password: 'not-her-password' });
    expect(wrong.status).toBe(401);
    expect(error(wrong)).toBe('The e-mail address or password is incorrect.');
  });
});
