import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestBrowser, type Page } from '../helpers/browser.js';
import { oidc, relyingParty, signIn, startAuthorization, type RelyingParty } from '../helpers/flow.js';
import { Mailbox } from '../helpers/mailbox.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { createServer } from '../../lib/index.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';
import type { SafeHtml } from '../../lib/ui/html.js';
import { CATALOG_TEXTS } from '../../lib/ui/i18n.js';

/**
 * The usability fixes, languages, branding and template hook of issue 14, each asserted on the real page over
 * HTTP (the keyboard and CSP check in Chromium is test/browser/ui.test.ts).
 */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'portcullis-ui-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const text = (p: Page, selector: string) => p.dom.querySelector(selector)?.text.trim();

/** The login page of a fresh authorization request, and the request. */
async function loginPage(rp: RelyingParty, browser: TestBrowser, params: Record<string, string> = {}) {
  const start = await startAuthorization(rp, params);
  const page = await browser.go(String(start.url));
  expect(page.status).toBe(200);
  return { start, page };
}

describe('usability fixes on the default pages', () => {
  let srv: RunningServer;
  let rp: RelyingParty;
  let mailbox: Mailbox;
  beforeAll(async () => {
    mailbox = await Mailbox.create();
    srv = await startServer({ mail: { mailbox: mailbox.dir }, ui: { homeUrl: 'https://www.example.com/' } });
    rp = await relyingParty(srv.issuer);
  });
  afterAll(async () => {
    await srv.close();
    await mailbox.remove();
  });

  test('login: autocomplete username and current-password, the client and its domain named', async () => {
    const { page } = await loginPage(rp, new TestBrowser(srv.issuer));
    expect(page.dom.querySelector('#email')?.getAttribute('autocomplete')).toBe('username');
    expect(page.dom.querySelector('#password')?.getAttribute('autocomplete')).toBe('current-password');
    expect(page.dom.querySelector('#email')?.hasAttribute('autofocus')).toBe(true);
    expect(text(page, '#client-domain-inline')).toBe('(localhost:8080)');
    expect(page.dom.querySelector('html')?.getAttribute('lang')).toBe('en');
  });

  test('a wrong password keeps the address and puts the focus on the password', async () => {
    const browser = new TestBrowser(srv.issuer);
    const { page } = await loginPage(rp, browser);
    const again = await browser.submit(page, { email: 'alice@example.com', password: 'wrong-password-123' });
    expect(again.status).toBe(401);
    expect(text(again, '[role=alert]')).toBe('The e-mail address or password is incorrect.');
    expect(again.dom.querySelector('#email')?.getAttribute('value')).toBe('alice@example.com');
    expect(again.dom.querySelector('#email')?.hasAttribute('autofocus')).toBe(false);
    expect(again.dom.querySelector('#password')?.hasAttribute('autofocus')).toBe(true);
    expect(again.dom.querySelector('#password')?.getAttribute('aria-describedby')).toBe('login-error');
  });

  test('Cancel sends the browser back to the client with access_denied and its state (openid-client)', async () => {
    const browser = new TestBrowser(srv.issuer);
    const { start, page } = await loginPage(rp, browser);
    const cancelForm = page.dom.querySelectorAll('form')[1]!;
    expect(cancelForm.getAttribute('action')).toMatch(/^\/interaction\/[\w-]+\/cancel$/);
    const csrf = cancelForm.querySelector('input[name=csrf]')!.getAttribute('value')!;
    const done = await browser.go(new URL(cancelForm.getAttribute('action')!, srv.issuer).href, {
      method: 'POST',
      body: new URLSearchParams({ csrf }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(done.redirectedTo).toMatch(/^http:\/\/localhost:8080\/callback\?/);
    const callback = new URL(done.redirectedTo!);
    expect(callback.searchParams.get('state')).toBe(start.state);
    await expect(
      oidc.authorizationCodeGrant(rp.config, callback, {
        pkceCodeVerifier: start.codeVerifier,
        expectedState: start.state,
        expectedNonce: start.nonce,
      }),
    ).rejects.toMatchObject({ error: 'access_denied' });
  });

  test("Cancel without the form's CSRF token is refused", async () => {
    const browser = new TestBrowser(srv.issuer);
    const { page } = await loginPage(rp, browser);
    const action = page.dom.querySelectorAll('form')[1]!.getAttribute('action')!;
    const refused = await browser.go(new URL(action, srv.issuer).href, {
      method: 'POST',
      body: new URLSearchParams({ csrf: 'x' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(refused.status).toBe(403);
    expect(text(refused, 'h1')).toBe('Please reload the page');
  });

  test('consent names the client\'s domain and offers "Not you? Switch account", which asks for a sign-in again', async () => {
    const browser = new TestBrowser(srv.issuer);
    const { start, page } = await loginPage(rp, browser, { scope: 'openid profile' });
    const consent = await browser.submit(page, { email: 'alice@example.com', password: 'alice-demo-password' });
    expect(consent.dom.querySelector('button[name=decision]')).not.toBeNull();
    expect(text(consent, '#client-domain')).toBe('It will send you back to localhost:8080.');
    const href = consent.dom.querySelector('a#switch-account')!.getAttribute('href')!;
    expect(consent.dom.querySelector('a#switch-account')?.parentNode?.text).toMatch(/^Not you\?/);
    const url = new URL(href, srv.issuer);
    expect(url.pathname).toBe('/authorization');
    expect(
      Object.fromEntries(['client_id', 'state', 'redirect_uri', 'prompt'].map((k) => [k, url.searchParams.get(k)])),
    ).toEqual({ client_id: rp.clientId, state: start.state, redirect_uri: rp.redirectUri, prompt: 'login' });
    const login = await browser.go(url.href);
    expect([login.status, login.dom.querySelector('input[name=password]') !== null]).toEqual([200, true]);
  });

  test('sign-up shows the password rule under the field, and the address field is the username', async () => {
    const page = await new TestBrowser(srv.issuer).go(`${srv.issuer}/account/signup`);
    expect(page.dom.querySelector('#email')?.getAttribute('autocomplete')).toBe('username');
    expect(page.dom.querySelector('#password')?.getAttribute('autocomplete')).toBe('new-password');
    expect(page.dom.querySelector('#password')?.getAttribute('aria-describedby')).toBe('password-hint');
    expect(text(page, '#password-hint')).toBe(
      'At least 12 characters. A long phrase is easy to remember and hard to guess.',
    );
  });

  test('"signed out" links onward (ui.homeUrl when the client has no client_uri)', async () => {
    const { browser } = await signIn(srv.issuer, rp);
    const confirm = await browser.go(`${srv.issuer}/session/end`);
    expect(text(confirm, 'h1')).toBe('Sign out?');
    const done = await browser.submit(confirm, {}, { name: 'logout', value: 'yes' });
    expect(text(done, 'h1')).toBe('Signed out');
    expect(done.dom.querySelector('a#onward')?.getAttribute('href')).toBe('https://www.example.com/');
    expect(text(done, 'a#onward')).toBe('Continue to Portcullis');
  });

  test('an error page says in words what happened and what to do; the code is in small print', async () => {
    const page = await new TestBrowser(srv.issuer).go(
      `${srv.issuer}/authorization?client_id=nobody&response_type=code&scope=openid`,
    );
    expect(page.status).toBe(400);
    expect(text(page, 'h1')).toBe('This request cannot be completed');
    expect(text(page, '#what')).toMatch(
      /^The application that sent you here made a request that Portcullis cannot accept/,
    );
    expect(text(page, '#todo')).toMatch(/^Go back to the application and try again/);
    expect(page.dom.querySelector('.small #error')?.text).toBe('invalid_client');
  });

  test('an expired or unknown sign-in says so and does not blame the application', async () => {
    const page = await new TestBrowser(srv.issuer).go(`${srv.issuer}/interaction/no-such-interaction`);
    expect(page.status).toBe(400);
    expect(text(page, 'h1')).toBe('This sign-in page has expired');
    expect(text(page, '#todo')).toBe('Go back to the application you came from and sign in again.');
    expect(page.dom.querySelector('main')!.text).not.toMatch(/made a request|cannot accept/);
    expect(page.dom.querySelector('.small #error')?.text).toBe('invalid_request');
  });

  test('German by ui_locales, kept on the sign-up link; German by Accept-Language', async () => {
    const browser = new TestBrowser(srv.issuer);
    const { page } = await loginPage(rp, browser, { ui_locales: 'fr de' });
    expect(page.dom.querySelector('html')?.getAttribute('lang')).toBe('de');
    expect(text(page, 'h1')).toBe('Anmelden');
    expect(text(page, 'label[for=password]')).toBe('Passwort');
    expect(text(page, '#cancel')).toBe('Abbrechen und zurück');
    const signup = page.dom.querySelector('a#signup')!.getAttribute('href')!;
    expect(signup).toMatch(/[?&]ui_locales=de$/);
    const form = await browser.go(new URL(signup, srv.issuer).href);
    expect(text(form, 'h1')).toBe('Konto erstellen');
    expect(text(form, '#password-hint')).toMatch(/^Mindestens 12 Zeichen/);

    const plain = new TestBrowser(srv.issuer);
    const { page: english } = await loginPage(rp, plain);
    const german = await plain.request(english.url, {
      headers: { 'accept-language': 'fr;q=0.9, de-AT;q=0.8, en;q=0.1' },
    });
    expect([german.dom.querySelector('html')?.getAttribute('lang'), text(german, 'h1')]).toEqual(['de', 'Anmelden']);
    const expired = await plain.request(`${srv.issuer}/interaction/gone`, { headers: { 'accept-language': 'de' } });
    expect(text(expired, 'h1')).toBe('Diese Anmeldeseite ist abgelaufen');
  });

  test('a mail in German when the request asked for German', async () => {
    const browser = new TestBrowser(srv.issuer);
    const form = await browser.request(`${srv.issuer}/account/reset`, { headers: { 'accept-language': 'de' } });
    expect(text(form, 'h1')).toBe('Passwort zurücksetzen');
    const data = new URLSearchParams({
      csrf: form.dom.querySelector('input[name=csrf]')!.getAttribute('value')!,
      email: 'alice@example.com',
    });
    const sent = await browser.request(`${srv.issuer}/account/reset`, {
      method: 'POST',
      body: data,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'de' },
    });
    expect(text(sent, 'h1')).toBe('Sehen Sie in Ihr Postfach');
    const [mail] = await mailbox.waitFor('alice@example.com');
    expect(mail!.text).toMatch(/^Guten Tag,/);
    expect(mail!.text).toContain('Passwort');
    expect(mail!.text.trim()).toMatch(/Portcullis$/); // the signature (its dash is quoted-printable in the file)
    expect(mail!.link).toMatch(new RegExp(`^${srv.issuer}/account/reset/confirm\\?token=`));
  });
});

describe('branding by configuration alone', () => {
  let srv: RunningServer;
  let rp: RelyingParty;
  beforeAll(async () => {
    const logo = join(dir, 'logo.png');
    await writeFile(logo, PNG);
    srv = await startServer({
      ui: {
        productName: 'Acme Login',
        logo,
        colors: { primary: '#ff0000' },
        darkColors: { background: '#000000' },
        supportUrl: 'mailto:help@acme.example',
        footer: 'Acme Corp <b>not bold</b>',
      },
    });
    rp = await relyingParty(srv.issuer);
  });
  afterAll(() => srv.close());

  test('name, logo, colours, support link and footer on the page; the logo served by us with its type', async () => {
    const { page } = await loginPage(rp, new TestBrowser(srv.issuer));
    expect(text(page, 'title')).toBe('Sign in – Acme Login');
    expect(page.dom.querySelector('header img')?.getAttribute('src')).toBe('/ui/logo');
    expect(page.dom.querySelector('header img')?.getAttribute('alt')).toBe('Acme Login');
    const style = page.dom.querySelector('style')!.text;
    expect(style).toContain('--pc-primary:#ff0000');
    expect(style).toMatch(/@media \(prefers-color-scheme:dark\)\{:root\{[^}]*--pc-background:#000000/);
    expect(page.dom.querySelector('a#support')?.getAttribute('href')).toBe('mailto:help@acme.example');
    expect(page.body).toContain('Acme Corp &#60;b&#62;not bold&#60;/b&#62;');
    expect(page.headers.get('content-security-policy')).toMatch(/img-src 'self'; /);

    const res = await fetch(`${srv.issuer}/ui/logo`);
    expect([res.status, res.headers.get('content-type'), res.headers.get('x-content-type-options')]).toEqual([
      200,
      'image/png',
      'nosniff',
    ]);
    expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true);
    const cached = await fetch(`${srv.issuer}/ui/logo`, { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(cached.status).toBe(304);
  });

  test('the error page uses the product name', async () => {
    const page = await new TestBrowser(srv.issuer).go(
      `${srv.issuer}/authorization?client_id=nobody&response_type=code`,
    );
    expect(text(page, '#what')).toContain('Acme Login cannot accept');
  });

  test('under an issuer path the logo is linked and served under that path', async () => {
    const logo = join(dir, 'logo-prefixed.png');
    await writeFile(logo, PNG);
    const prefixed = await startServer((root) => ({ issuer: `${root}/auth`, ui: { logo } }));
    try {
      const page = await new TestBrowser(prefixed.issuer).go(
        `${prefixed.issuer}/auth/authorization?client_id=nobody&response_type=code`,
      );
      expect(page.dom.querySelector('header img')?.getAttribute('src')).toBe('/auth/ui/logo');
      const res = await fetch(`${prefixed.issuer}/auth/ui/logo`);
      expect([res.status, res.headers.get('content-type')]).toEqual([200, 'image/png']);
      expect((await fetch(`${prefixed.issuer}/ui/logo`)).status).toBe(404);
    } finally {
      await prefixed.close();
    }
  });

  test('a logo whose bytes do not match its extension, or too large, or not an image, is refused at start-up', async () => {
    const cases: Array<[string, Buffer]> = [
      ['fake.jpg', PNG],
      ['big.png', Buffer.concat([PNG, Buffer.alloc(300 * 1024)])],
      ['script.png', Buffer.from('<script>alert(1)</script>')],
    ];
    for (const [name, bytes] of cases) {
      const path = join(dir, name);
      await writeFile(path, bytes);
      await expect(
        createServer({ issuer: 'http://127.0.0.1:1', ...demoFixtures(), ui: { logo: path } }),
      ).rejects.toMatchObject({ message: expect.stringContaining('ui.logo') });
    }
  });

  test('without a logo, /ui/logo is 404 and the header shows the name', async () => {
    const plain = await startServer();
    try {
      expect((await fetch(`${plain.issuer}/ui/logo`)).status).toBe(404);
    } finally {
      await plain.close();
    }
  });

  test('colours that are not hex are refused (nothing else can reach the style sheet)', async () => {
    await expect(
      createServer({
        issuer: 'http://127.0.0.1:1',
        ...demoFixtures(),
        ui: { colors: { primary: 'red;}body{display:none' } },
      }),
    ).rejects.toMatchObject({ message: expect.stringContaining('ui.colors.primary') });
  });
});

describe('template hook', () => {
  let srv: RunningServer;
  let rp: RelyingParty;
  beforeAll(async () => {
    srv = await startServer({
      ui: {
        messages: { en: { 'login.submit': 'Let me in' } },
        templates: {
          login: (
            v,
            { html, t },
          ): SafeHtml => html`<h1 id="custom">${t.t('login.title')} ${v.clientName} ${'<script>alert(1)</script>'}</h1>
<form method="post" action="${v.action}"><input type="hidden" name="csrf" value="${v.csrfToken}"><input name="email"><input name="password" type="password"><button>${t.t('login.submit')}</button></form>`,
          signedOut: () => '<b>plain strings are escaped</b>',
        },
      },
    });
    rp = await relyingParty(srv.issuer);
  });
  afterAll(() => srv.close());

  test('a host template replaces the page inside our frame; interpolated values are escaped', async () => {
    const browser = new TestBrowser(srv.issuer);
    const { page } = await loginPage(rp, browser);
    expect(page.dom.querySelector('h1#custom')?.text).toBe('Sign in Demo web app <script>alert(1)</script>');
    expect(page.body).not.toContain('<script>');
    expect(page.body).toContain('&#60;script&#62;');
    expect(text(page, 'button')).toBe('Let me in');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    // The replaced form still works end to end.
    const consent = await browser.submit(page, { email: 'alice@example.com', password: 'alice-demo-password' });
    expect(consent.dom.querySelector('button[name=decision]')).not.toBeNull();
  });

  test('a template returning a plain string gets it escaped', async () => {
    const { browser } = await signIn(srv.issuer, rp);
    const confirm = await browser.go(`${srv.issuer}/session/end`);
    const done = await browser.submit(confirm, {}, { name: 'logout', value: 'yes' });
    expect(done.body).toContain('&#60;b&#62;plain strings are escaped&#60;/b&#62;');
    expect(done.dom.querySelector('main b')).toBeNull();
  });

  test('an unknown template name or message key is refused at start-up', async () => {
    await expect(
      createServer({ issuer: 'http://127.0.0.1:1', ...demoFixtures(), ui: { templates: { nope: () => '' } as never } }),
    ).rejects.toMatchObject({ message: expect.stringContaining('ui.templates.nope') });
    await expect(
      createServer({
        issuer: 'http://127.0.0.1:1',
        ...demoFixtures(),
        ui: { messages: { de: { 'no.such.key': 'x' } as never } },
      }),
    ).rejects.toMatchObject({ message: expect.stringContaining('ui.messages.de.no.such.key') });
  });
});

test('every German message keeps the placeholders of the English one', () => {
  const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
  for (const [key, english] of Object.entries(CATALOG_TEXTS.en)) {
    expect([key, placeholders(CATALOG_TEXTS.de[key as keyof typeof CATALOG_TEXTS.de])]).toEqual([
      key,
      placeholders(english),
    ]);
  }
});
