import { generate } from 'otplib';
import { TestBrowser, type Page } from '../helpers/browser.js';
import { oidc, relyingParty, signIn, startAuthorization, type RelyingParty } from '../helpers/flow.js';
import { Mailbox } from '../helpers/mailbox.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';

/**
 * TOTP as a second factor over real HTTP through the real forms: enrolment at sign-in for a client with
 * `require_mfa` (the QR code's key read from the page, codes computed with otplib), sign-in with a code, wrong
 * and replayed codes, ±1 step, recovery codes, `amr`/`acr` checked with openid-client, `acr_values` step-up and
 * `prompt=none`, the attempt limit, and what a factor change does to other sessions and the mailbox.
 */
const MFA_APP = {
  client_id: 'mfa-app',
  client_secret: 'mfa-app-secret-123',
  redirect_uris: ['http://localhost:8080/mfa-callback'],
  response_types: ['code' as const],
  grant_types: ['authorization_code' as const, 'refresh_token' as const],
  require_mfa: true,
};

let srv: RunningServer;
let mailbox: Mailbox;
let web: RelyingParty;
let mfaApp: RelyingParty;

async function start(extra: Record<string, unknown> = {}) {
  mailbox = await Mailbox.create();
  srv = await startServer({ mail: { mailbox: mailbox.dir }, clients: [...demoFixtures().clients!, MFA_APP], ...extra });
  web = await relyingParty(srv.issuer);
  mfaApp = await relyingParty(srv.issuer, {
    clientId: MFA_APP.client_id,
    secret: MFA_APP.client_secret,
    redirectUri: MFA_APP.redirect_uris[0],
  });
}
afterEach(async () => {
  await srv.close();
  await mailbox.remove();
});

/** A TOTP code of `secret`, `steps` time steps away from now. */
const code = (secret: string, steps = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });

/** Goes to `url`, signs in with the password when asked, and returns the next page (or the redirect out). */
async function passwordStep(
  browser: TestBrowser,
  url: URL | string,
  email = 'alice@example.com',
  password = 'alice-demo-password',
) {
  const page = await browser.go(String(url));
  if (!page.dom.querySelector('input[name=password]')) return page;
  return browser.submit(page, { email, password });
}

/** Follows consent (allow) until the browser leaves the server; returns the callback URL. */
async function untilCallback(browser: TestBrowser, page: Page & { redirectedTo?: string }): Promise<URL> {
  for (let i = 0; i < 3 && !page.redirectedTo; i++) {
    if (!page.dom.querySelector('button[name=decision]'))
      throw new Error(`unexpected page ${page.status} ${page.url}: ${page.body.slice(0, 400)}`);
    page = await browser.submit(page, {}, { name: 'decision', value: 'allow' });
  }
  if (!page.redirectedTo) throw new Error('never sent back to the client');
  return new URL(page.redirectedTo);
}

async function exchange(rp: RelyingParty, start: Awaited<ReturnType<typeof startAuthorization>>, callback: URL) {
  return oidc.authorizationCodeGrant(rp.config, callback, {
    pkceCodeVerifier: start.codeVerifier,
    expectedState: start.state,
    expectedNonce: start.nonce,
  });
}

/** Enrols TOTP for alice through the `require_mfa` client; returns the secret, the recovery codes and the tokens. */
async function enrolAtSignIn(browser: TestBrowser, email = 'alice@example.com', password = 'alice-demo-password') {
  const start = await startAuthorization(mfaApp);
  const enrol = await passwordStep(browser, start.url, email, password);
  expect(enrol.status).toBe(200);
  expect(enrol.dom.querySelector('#qr svg')).not.toBeNull();
  const secret = enrol.dom.querySelector('#totp-secret')!.text;
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  // a wrong confirmation code keeps the same enrolment (same key) and says so
  const wrong = await browser.submit(enrol, { code: '000000' === (await code(secret)) ? '111111' : '000000' });
  expect(wrong.status).toBe(401);
  expect(wrong.dom.querySelector('.error')).not.toBeNull();
  expect(wrong.dom.querySelector('#totp-secret')!.text).toBe(secret);
  // the code of the previous step is still accepted (±1 step)
  const codes = await browser.submit(wrong, { code: await code(secret, -1) });
  expect(codes.status).toBe(200);
  const recovery = codes.dom.querySelectorAll('#recovery-codes li').map((li) => li.text.trim());
  expect(recovery).toHaveLength(10);
  expect(new Set(recovery).size).toBe(10);
  const callback = await untilCallback(browser, await browser.submit(codes, {}));
  const tokens = await exchange(mfaApp, start, callback);
  return { secret, recovery, tokens };
}

describe('TOTP second factor', () => {
  beforeEach(() => start());

  test('a require_mfa client: enrolment at sign-in, then an ID token with amr [pwd, otp, mfa] and acr urn:portcullis:mfa', async () => {
    const browser = new TestBrowser(srv.issuer);
    const { tokens } = await enrolAtSignIn(browser);
    const claims = tokens.claims()!;
    expect(claims.acr).toBe('urn:portcullis:mfa');
    expect(claims.amr).toEqual(expect.arrayContaining(['pwd', 'otp', 'mfa']));
    // the secret is stored sealed, not in clear
    const stored = await srv.server.accounts.getSecondFactor!('alice');
    expect(stored?.totp?.secret).toBeDefined();
    const mail = await mailbox.waitFor('alice@example.com');
    expect(mail.map((m) => m.subject)).toContain('A sign-in method was added to your account');
  });

  test('an enrolled account signs in with password then code; wrong and replayed codes are refused; +1 step accepted', async () => {
    const { secret } = await enrolAtSignIn(new TestBrowser(srv.issuer));
    const stored = await srv.server.accounts.getSecondFactor!('alice');
    expect(JSON.stringify(stored)).not.toContain(secret);

    // a client without require_mfa: still two factors, because the account has one
    const browser = new TestBrowser(srv.issuer);
    const start = await startAuthorization(web);
    const prompt = await passwordStep(browser, start.url);
    expect(prompt.dom.querySelector('input[name=code]')).not.toBeNull();
    const wrong = await browser.submit(prompt, { code: '12345' });
    expect(wrong.status).toBe(401);
    const current = await code(secret);
    const done = await browser.submit(wrong, { code: current });
    const tokens = await exchange(web, start, await untilCallback(browser, done));
    expect(tokens.claims()).toMatchObject({
      acr: 'urn:portcullis:mfa',
      amr: expect.arrayContaining(['pwd', 'otp', 'mfa']),
    });

    // the same code again, in another browser: refused (replay); the next step's code is accepted
    const other = new TestBrowser(srv.issuer);
    const again = await startAuthorization(web);
    const prompt2 = await passwordStep(other, again.url);
    const replayed = await other.submit(prompt2, { code: current });
    expect(replayed.status).toBe(401);
    const next = await other.submit(replayed, { code: await code(secret, 1) });
    const tokens2 = await exchange(web, again, await untilCallback(other, next));
    expect(tokens2.claims()!.acr).toBe('urn:portcullis:mfa');
  });

  test('a recovery code works once, instead of a TOTP code', async () => {
    const { recovery } = await enrolAtSignIn(new TestBrowser(srv.issuer));
    const browser = new TestBrowser(srv.issuer);
    const start = await startAuthorization(web);
    const prompt = await passwordStep(browser, start.url);
    const done = await browser.submit(prompt, { code: recovery[3]!.toUpperCase() });
    const tokens = await exchange(web, start, await untilCallback(browser, done));
    expect(tokens.claims()).toMatchObject({ acr: 'urn:portcullis:mfa', amr: expect.arrayContaining(['otp', 'mfa']) });
    expect((await srv.server.accounts.getSecondFactor!('alice'))!.recoveryCodes!.filter((c) => c.usedAt)).toHaveLength(
      1,
    );

    const other = new TestBrowser(srv.issuer);
    const prompt2 = await passwordStep(other, (await startAuthorization(web)).url);
    const reused = await other.submit(prompt2, { code: recovery[3]! });
    expect(reused.status).toBe(401);
  });

  test("enrolling signs out the account's other sessions and revokes their tokens", async () => {
    const first = await signIn(srv.issuer, web, { params: { scope: 'openid offline_access', prompt: 'consent' } });
    await enrolAtSignIn(new TestBrowser(srv.issuer));
    await expect(oidc.refreshTokenGrant(web.config, first.tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    const again = await first.browser.go(String((await startAuthorization(web)).url));
    expect(again.dom.querySelector('input[name=password]')).not.toBeNull();
  });

  test('acr_values step-up: prompt=none gets unmet_authentication_requirements; without it only the second factor is asked', async () => {
    const browser = new TestBrowser(srv.issuer);
    const first = await signIn(srv.issuer, web, {
      browser,
      email: 'admin@example.com',
      password: 'admin-demo-password',
    });
    expect(first.tokens.claims()).toMatchObject({ acr: 'urn:portcullis:pwd', amr: ['pwd'] });

    const silent = await startAuthorization(web, { prompt: 'none', acr_values: 'urn:portcullis:mfa' });
    const refused = await browser.go(String(silent.url));
    const error = new URL(refused.redirectedTo!);
    expect(error.searchParams.get('error')).toBe('unmet_authentication_requirements');
    expect(error.searchParams.get('state')).toBe(silent.state);

    // step-up: no password, straight to (here) enrolment, then back with acr mfa
    const stepUp = await startAuthorization(web, { acr_values: 'urn:portcullis:mfa' });
    const enrol = await browser.go(String(stepUp.url));
    expect(enrol.dom.querySelector('input[name=password]')).toBeNull();
    const secret = enrol.dom.querySelector('#totp-secret')!.text;
    const codes = await browser.submit(enrol, { code: await code(secret) });
    const tokens = await exchange(web, stepUp, await untilCallback(browser, await browser.submit(codes, {})));
    expect(tokens.claims()).toMatchObject({
      sub: 'admin',
      acr: 'urn:portcullis:mfa',
      amr: expect.arrayContaining(['mfa']),
    });

    // now the session meets it: prompt=none succeeds
    const silent2 = await startAuthorization(web, { prompt: 'none', acr_values: 'urn:portcullis:mfa' });
    const ok = await browser.go(String(silent2.url));
    const tokens2 = await exchange(web, silent2, new URL(ok.redirectedTo!));
    expect(tokens2.claims()!.acr).toBe('urn:portcullis:mfa');
    // discovery lists the acr values
    const discovery = (await (await fetch(`${srv.issuer}/.well-known/openid-configuration`)).json()) as {
      acr_values_supported?: string[];
    };
    expect(discovery.acr_values_supported).toEqual(['urn:portcullis:pwd', 'urn:portcullis:mfa']);
  });
});

describe('second-factor attempt limit', () => {
  beforeEach(() => start({ accountLimits: { secondFactorPerAccount: { points: 3, durationSeconds: 900 } } }));

  test('after 3 attempts per account the code page answers 429 with Retry-After, even for the right code', async () => {
    const { secret } = await (async () => {
      // enrolment itself spends attempts (one wrong, one right; success resets the counter)
      return enrolAtSignIn(new TestBrowser(srv.issuer));
    })();
    const browser = new TestBrowser(srv.issuer);
    let page = await passwordStep(browser, (await startAuthorization(web)).url);
    for (let i = 0; i < 3; i++) {
      page = await browser.submit(page, { code: '000001' });
      expect(page.status).toBe(401);
    }
    const limited = await browser.submit(page, { code: await code(secret, 1) });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
