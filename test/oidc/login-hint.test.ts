import { TestBrowser } from '../helpers/browser.js';
import { oidc, relyingParty, signIn, startAuthorization, type RelyingParty } from '../helpers/flow.js';
import { Mailbox } from '../helpers/mailbox.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * `login_hint` (OIDC Core §3.1.2.1) against a browser already signed in as alice: a hint naming another login
 * identifier is not answered with alice's code. With `prompt=none` the client gets `login_required` (as
 * oidc-provider answers an `id_token_hint` naming another subject); without it, the login page, its e-mail field
 * filled with the hint. Before, both silently returned a code for alice.
 */

let srv: RunningServer;
let rp: RelyingParty;
let alice: TestBrowser;

beforeAll(async () => {
  srv = await startServer();
  rp = await relyingParty(srv.issuer);
  alice = (await signIn(srv.issuer, rp, { params: { scope: 'openid email' } })).browser;
});
afterAll(() => srv.close());

/** A silent authorization request in `browser`: where it was sent back to, as parameters. */
async function silent(browser: TestBrowser, extra: Record<string, string>) {
  const start = await startAuthorization(rp, {
    scope: 'openid email',
    prompt: 'none',
    state: 'silent-state',
    ...extra,
  });
  const page = await browser.go(String(start.url));
  expect(page.redirectedTo).toMatch(/^http:\/\/localhost:8080\/callback\?/);
  return {
    start,
    callback: new URL(page.redirectedTo!),
    params: Object.fromEntries(new URL(page.redirectedTo!).searchParams),
  };
}

async function subjectOf(start: Awaited<ReturnType<typeof startAuthorization>>, callback: URL) {
  const tokens = await oidc.authorizationCodeGrant(rp.config, callback, {
    pkceCodeVerifier: start.codeVerifier,
    expectedState: start.state,
    expectedNonce: start.nonce,
  });
  return tokens.claims()!.sub;
}

describe('prompt=none with a session for alice', () => {
  test.each([
    ['no login_hint', undefined],
    ['her own address', 'alice@example.com'],
    ['her address in another case', 'Alice@EXAMPLE.com'],
    ['her address between spaces', ' alice@example.com '],
    [
      'her address with the trailing dot of a fully qualified domain (one mailbox, as at the login form)',
      'alice@example.com.',
    ],
    [
      'her address with a fullwidth domain (one mailbox, as at the login form)',
      'alice@\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45.com',
    ],
    ['her subject (`sub`) instead of her address, as relying parties written for other OPs send it', 'alice'],
  ])('%s: a code for alice', async (_name, hint) => {
    const { start, callback, params } = await silent(alice, hint === undefined ? {} : { login_hint: hint });
    expect(params.code).toEqual(expect.any(String));
    expect(await subjectOf(start, callback)).toBe('alice');
  });

  test.each([
    ["another account's address", 'admin@example.com'],
    ['an address no account has (the same answer)', 'nobody@example.com'],
    ['her subject in another case (subjects are compared exactly)', 'Alice'],
    ["another account's subject", 'admin'],
    ['her address with a suffix', 'alice@example.com.evil.test'],
  ])('login_hint naming %s: login_required at the redirect_uri, no code', async (_name, hint) => {
    const { params } = await silent(alice, { login_hint: hint });
    expect(params).toEqual({
      error: 'login_required',
      error_description: 'login_hint does not name the signed-in account',
      state: 'silent-state',
      iss: srv.issuer,
    });
  });

  test('with acr_values asking for two factors as well: login_required, the hint comes first', async () => {
    const { params } = await silent(alice, { login_hint: 'admin@example.com', acr_values: 'urn:portcullis:mfa' });
    expect(params).toMatchObject({
      error: 'login_required',
      error_description: 'login_hint does not name the signed-in account',
    });
  });

  test('without a session, any login_hint: login_required as before', async () => {
    const { params } = await silent(new TestBrowser(srv.issuer), { login_hint: 'alice@example.com' });
    expect(params).toMatchObject({ error: 'login_required', state: 'silent-state' });
    expect(params.code).toBeUndefined();
  });
});

describe('an interactive request with a session for alice', () => {
  test('login_hint of another account: the login page with that address, then a code for that account', async () => {
    const browser = (await signIn(srv.issuer, rp, { params: { scope: 'openid' } })).browser;
    const start = await startAuthorization(rp, { scope: 'openid', login_hint: 'admin@example.com' });
    let page = await browser.go(String(start.url));
    expect(page.status).toBe(200);
    expect(page.dom.querySelector('input[name=email]')?.getAttribute('value')).toBe('admin@example.com');
    page = await browser.submit(page, { email: 'admin@example.com', password: 'admin-demo-password' });
    // oidc-provider ends alice's session first (its auto-submitting logout form), then resumes: admin's consent.
    expect(page.dom.querySelector('form')?.getAttribute('action')).toBe(`${srv.issuer}/session/end/confirm`);
    page = await browser.submit(page, {});
    const done = await browser.submit(page, {}, { name: 'decision', value: 'allow' });
    expect(await subjectOf(start, new URL(done.redirectedTo!))).toBe('admin');
  });

  test('login_hint of another account, and alice signs in as herself anyway: her code, no second login page', async () => {
    const browser = (await signIn(srv.issuer, rp, { params: { scope: 'openid' } })).browser;
    const start = await startAuthorization(rp, { scope: 'openid', login_hint: 'admin@example.com' });
    const page = await browser.go(String(start.url));
    expect(page.dom.querySelector('input[name=password]')).not.toBeNull();
    const done = await browser.submit(page, { email: 'alice@example.com', password: 'alice-demo-password' });
    expect(done.redirectedTo).toMatch(/^http:\/\/localhost:8080\/callback\?code=/);
    expect(await subjectOf(start, new URL(done.redirectedTo!))).toBe('alice');
  });

  test('login_hint of alice herself: no login page, a code for alice', async () => {
    const browser = (await signIn(srv.issuer, rp, { params: { scope: 'openid' } })).browser;
    const start = await startAuthorization(rp, { scope: 'openid', login_hint: 'alice@example.com' });
    const page = await browser.go(String(start.url));
    expect(page.redirectedTo).toMatch(/^http:\/\/localhost:8080\/callback\?code=/);
    expect(await subjectOf(start, new URL(page.redirectedTo!))).toBe('alice');
  });

  test.each([
    ["another account's address", 'admin@example.com', 'admin@example.com'],
    ['markup (escaped, shown as typed)', '"><script>alert(1)</script>', '"><script>alert(1)</script>'],
    ['more than an address can hold (left out)', `${'x'.repeat(310)}@example.com`, ''],
  ])("without a session, login_hint of %s: the login page's address field", async (_name, hint, shown) => {
    const start = await startAuthorization(rp, { scope: 'openid', login_hint: hint });
    const page = await new TestBrowser(srv.issuer).go(String(start.url));
    expect(page.status).toBe(200);
    expect(page.dom.querySelector('input[name=email]')?.getAttribute('value')).toBe(shown);
    expect(page.body).not.toContain('<script>alert(1)');
  });
});

test('an account with an IDN domain: its address in punycode or decomposed as login_hint is its own, another is not', async () => {
  const mailbox = await Mailbox.create();
  const idn = await startServer({ mail: { mailbox: mailbox.dir } });
  try {
    const idnRp = await relyingParty(idn.issuer);
    const signup = new TestBrowser(idn.issuer);
    await signup.submit(await signup.go(`${idn.issuer}/account/signup`), {
      given_name: 'Bob',
      family_name: 'B',
      email: 'Bob@B\u00fccher.example',
      password: 'correct horse battery',
    });
    const [confirm] = await mailbox.waitFor('Bob@xn--bcher-kva.example');
    await signup.submit(await signup.go(confirm!.link!), {});
    const { browser } = await signIn(idn.issuer, idnRp, {
      email: 'Bob@B\u00fccher.example',
      password: 'correct horse battery',
      params: { scope: 'openid' },
    });
    const answer = async (hint: string) => {
      const start = await startAuthorization(idnRp, { scope: 'openid', prompt: 'none', state: 's', login_hint: hint });
      return Object.fromEntries(new URL((await browser.go(String(start.url))).redirectedTo!).searchParams);
    };
    expect(await answer('Bob@B\u00fccher.example')).toMatchObject({ code: expect.any(String) });
    expect(await answer('bob@xn--bcher-kva.example')).toMatchObject({ code: expect.any(String) });
    expect(await answer('bob@bu\u0308cher.example')).toMatchObject({ code: expect.any(String) });
    expect(await answer('bob@xn--bcher-kva.example.evil.test')).toMatchObject({ error: 'login_required' });
  } finally {
    await idn.close();
    await mailbox.remove();
  }
});

test("with mfa off (oidc-provider's policy without the step-up check), the same login_required", async () => {
  const plain = await startServer({ mfa: { enabled: false } });
  try {
    const plainRp = await relyingParty(plain.issuer);
    const { browser } = await signIn(plain.issuer, plainRp, { params: { scope: 'openid' } });
    const start = await startAuthorization(plainRp, {
      scope: 'openid',
      prompt: 'none',
      login_hint: 'admin@example.com',
      state: 's',
    });
    const page = await browser.go(String(start.url));
    expect(Object.fromEntries(new URL(page.redirectedTo!).searchParams)).toEqual({
      error: 'login_required',
      error_description: 'login_hint does not name the signed-in account',
      state: 's',
      iss: plain.issuer,
    });
  } finally {
    await plain.close();
  }
});
