import { randomBytes } from 'node:crypto';
import { parse } from 'node-html-parser';
import { generate } from 'otplib';
import { TestBrowser, type Page } from '../helpers/browser.js';
import { relyingParty, startAuthorization, type RelyingParty } from '../helpers/flow.js';
import { Mailbox } from '../helpers/mailbox.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';
import type { SafeHtml } from '../../lib/ui/html.js';
import { CATALOG_TEXTS, Translator, type MessageKey } from '../../lib/ui/i18n.js';
import { secondFactorAddedMail, secondFactorRemovedMail, type FactorName } from '../../lib/accounts/mail-templates.js';
import type { PortcullisConfig } from '../../lib/index.js';

/**
 * The second-factor, passkey and account pages in German over real HTTP (by `Accept-Language` and by
 * `ui_locales`), with no English message of their keys left; the factor-change mail in the language of the
 * request that made the change; and `ui.templates` replacing these pages with escaping on.
 * The issuer is http://localhost:PORT so that passkeys are on (an IP address is no relying-party ID).
 */
const MFA_APP = {
  client_id: 'mfa-app',
  client_secret: 'mfa-app-secret-123',
  redirect_uris: ['http://localhost:8080/mfa-callback'],
  response_types: ['code' as const],
  grant_types: ['authorization_code' as const],
  require_mfa: true,
};
const PASSKEY_USER = {
  id: 'pk',
  email: 'pk@example.com',
  password: 'pk-user-password-123',
  email_verified: true,
  claims: { name: 'Pat Key' },
};

/** A browser whose every request says `Accept-Language: <lang>`. */
class LangBrowser extends TestBrowser {
  constructor(
    origin: string,
    private readonly lang: string,
  ) {
    super(origin);
  }
  override request(url: string, init: RequestInit = {}): Promise<Page> {
    const headers = new Headers(init.headers);
    if (!headers.has('accept-language')) headers.set('accept-language', this.lang);
    return super.request(url, { ...init, headers });
  }
}

let mailbox: Mailbox;
async function start(extra: Partial<PortcullisConfig> = {}): Promise<{ srv: RunningServer; mfaApp: RelyingParty }> {
  mailbox = await Mailbox.create();
  const demo = demoFixtures();
  const srv = await startServer((address) => ({
    issuer: address.replace('127.0.0.1', 'localhost'),
    mail: { mailbox: mailbox.dir },
    clients: [...demo.clients!, MFA_APP],
    accounts: [...demo.accounts!, PASSKEY_USER],
    ...extra,
  }));
  const mfaApp = await relyingParty(srv.server.config.issuer, {
    clientId: MFA_APP.client_id,
    secret: MFA_APP.client_secret,
    redirectUri: MFA_APP.redirect_uris[0],
  });
  return { srv, mfaApp };
}

const text = (p: Page, selector: string) => p.dom.querySelector(selector)?.text.trim();
const code = (secret: string) => generate({ secret });

/**
 * The English messages of the keys under `prefixes` (those that differ from the German one) still on the page:
 * a text node that is exactly one, a longer one anywhere in the text, or one of the passkey script's messages.
 */
function englishLeftovers(page: Page, prefixes: string[]): string[] {
  const { en, de } = CATALOG_TEXTS;
  const texts = new Set(
    page.dom
      .querySelectorAll('*')
      .flatMap((e) => e.childNodes.filter((n) => n.nodeType === 3).map((n) => n.text.trim())),
  );
  for (const el of page.dom.querySelectorAll('[data-messages]'))
    Object.values(JSON.parse(el.getAttribute('data-messages')!) as Record<string, string>).forEach((m) => texts.add(m));
  const whole = page.dom.text;
  return (Object.entries(en) as Array<[MessageKey, string]>)
    .filter(
      ([key, message]) => prefixes.some((p) => key.startsWith(p)) && message !== de[key] && !message.includes('{'),
    )
    .filter(([, message]) => texts.has(message) || (message.length >= 15 && whole.includes(message)))
    .map(([key]) => key);
}

/** Submits the form holding the element `#id` (a button or a link's form) with its hidden fields. */
async function press(browser: TestBrowser, page: Page, id: string, fields: Record<string, string> = {}) {
  let form = page.dom.querySelector(`#${id}`)!;
  while (form.tagName !== 'FORM') form = form.parentNode!;
  return browser.submit({ ...page, dom: parse(`<div>${form.toString()}</div>`) }, fields);
}

const MODES: Array<[string, (origin: string) => TestBrowser, Record<string, string>, string]> = [
  ['Accept-Language: de', (origin) => new LangBrowser(origin, 'de'), {}, ''],
  [
    'ui_locales=de (the browser asks for no language)',
    (origin) => new TestBrowser(origin),
    { ui_locales: 'de' },
    '?ui_locales=de',
  ],
];

describe.each(MODES)('German second-factor, passkey and account pages by %s', (_mode, newBrowser, params, query) => {
  let srv: RunningServer;
  let mfaApp: RelyingParty;
  let issuer: string;
  beforeAll(async () => {
    ({ srv, mfaApp } = await start());
    issuer = srv.server.config.issuer;
  });
  afterAll(async () => {
    await srv.close();
    await mailbox.remove();
  });

  test('TOTP enrolment, recovery codes and the code prompt; the notice mail in German', async () => {
    const browser = newBrowser(issuer);
    const login = await browser.go(String((await startAuthorization(mfaApp, params)).url));
    expect(text(login, 'h1')).toBe('Anmelden');
    expect(text(login, '#passkey-button')).toBe('Mit einem Passkey anmelden');
    expect(englishLeftovers(login, ['login.', 'passkey.login.', 'passkey.script.'])).toEqual([]);

    const enrol = await browser.submit(login, { email: 'alice@example.com', password: 'alice-demo-password' });
    expect([enrol.status, enrol.dom.querySelector('html')?.getAttribute('lang'), text(enrol, 'h1')]).toEqual([
      200,
      'de',
      'Bestätigung in zwei Schritten einrichten',
    ]);
    expect(enrol.body).toContain('Diese Anwendung verlangt für Ihr Konto eine Bestätigung in zwei Schritten.');
    expect(englishLeftovers(enrol, ['mfa.'])).toEqual([]);
    const secret = text(enrol, '#totp-secret')!;
    const wrong = await browser.submit(enrol, { code: '000000' });
    expect([wrong.status, text(wrong, '[role=alert]')]).toEqual([401, CATALOG_TEXTS.de['mfa.wrongCode']]);
    expect(englishLeftovers(wrong, ['mfa.'])).toEqual([]);

    const codes = await browser.submit(wrong, { code: await code(secret) });
    expect([text(codes, 'h1'), text(codes, 'button')]).toEqual([
      'Ihre Wiederherstellungscodes',
      'Ich habe sie gespeichert – weiter',
    ]);
    expect(englishLeftovers(codes, ['mfa.'])).toEqual([]);
    const recovery = codes.dom.querySelectorAll('#recovery-codes li').map((li) => li.text.trim());
    const consent = await browser.submit(codes, {});
    expect(text(consent, 'h1')).toBe('Zugriff erlauben?');

    const [notice] = await mailbox.waitFor('alice@example.com');
    expect(notice!.text).toMatch(/^Guten Tag,/);
    expect(notice!.text).toContain('Eine Authenticator-App (TOTP) wurde soeben');
    expect(notice!.text).not.toContain('was just added');

    // A second sign-in: the code prompt, a wrong code, then a recovery code.
    const other = newBrowser(issuer);
    const login2 = await other.go(String((await startAuthorization(mfaApp, params)).url));
    const prompt = await other.submit(login2, { email: 'alice@example.com', password: 'alice-demo-password' });
    expect([prompt.status, text(prompt, 'h1'), text(prompt, 'label[for=code]'), text(prompt, 'button')]).toEqual([
      200,
      'Bestätigung in zwei Schritten',
      'Code',
      'Bestätigen',
    ]);
    expect(prompt.body).toContain('um mit <strong>');
    expect(englishLeftovers(prompt, ['mfa.', 'login.'])).toEqual([]);
    const refused = await other.submit(prompt, { code: '123456' });
    expect([refused.status, text(refused, '[role=alert]')]).toEqual([
      401,
      'Dieser Code ist falsch oder wurde schon verwendet. Versuchen Sie den nächsten Code aus Ihrer App.',
    ]);
    const passed = await other.submit(refused, { code: recovery[0]! });
    expect(text(passed, 'h1')).toBe('Zugriff erlauben?');
  });

  test('the account page, its TOTP enrolment and recovery codes; the notices in German', async () => {
    const browser = newBrowser(issuer);
    // Sign in (the sign-in page is the account client's; its language comes from the browser or is English).
    let page = await browser.go(`${issuer}/account`);
    page = await browser.submit(page, { email: 'admin@example.com', password: 'admin-demo-password' });
    const home = await browser.go(`${issuer}/account${query}`);
    expect([home.status, home.dom.querySelector('html')?.getAttribute('lang'), text(home, 'h1')]).toEqual([
      200,
      'de',
      'Ihr Konto',
    ]);
    expect([
      text(home, '#totp-status'),
      text(home, '#totp-add'),
      text(home, '#passkeys'),
      text(home, '#sign-out'),
    ]).toEqual(['Authenticator-App: ausgeschaltet', 'Authenticator-App einrichten', 'Passkeys verwalten', 'Abmelden']);
    expect([text(home, '#sessions-section h2'), text(home, '#sign-out-others')]).toEqual([
      'Aktive Sitzungen',
      'Alle anderen Sitzungen abmelden',
    ]);
    expect(englishLeftovers(home, ['home.'])).toEqual([]);

    const enrol = await press(browser, home, 'totp-add');
    expect([enrol.status, text(enrol, 'h1'), text(enrol, 'button')]).toEqual([
      200,
      'Bestätigung in zwei Schritten einrichten',
      'Einschalten',
    ]);
    expect(enrol.body).not.toContain('Diese Anwendung verlangt');
    expect(englishLeftovers(enrol, ['mfa.'])).toEqual([]);
    const codes = await browser.submit(enrol, { code: await code(text(enrol, '#totp-secret')!) });
    expect([text(codes, 'h1'), text(codes, '#continue')]).toEqual([
      'Ihre Wiederherstellungscodes',
      'Zurück zu Ihrem Konto',
    ]);
    expect(englishLeftovers(codes, ['mfa.', 'home.'])).toEqual([]);

    const after = await browser.go(new URL(codes.dom.querySelector('#continue')!.getAttribute('href')!, issuer).href);
    expect([text(after, '#totp-status'), text(after, '#recovery-left')]).toEqual([
      'Authenticator-App: eingeschaltet',
      'Noch 10 unbenutzte Wiederherstellungscodes.',
    ]);
    const off = await press(browser, after, 'totp-remove');
    expect([text(off, 'h1'), text(off, '#message'), text(off, '#back')]).toEqual([
      'Erledigt',
      CATALOG_TEXTS.de['home.totpRemoved'],
      'Zurück zu Ihrem Konto',
    ]);

    const mails = await mailbox.waitFor('admin@example.com', 2);
    expect(mails.map((m) => /wurde soeben/.test(m.text) && !/was just/.test(m.text))).toEqual([true, true]);
    expect(mails.map((m) => m.text).join('\n')).toContain('wurde soeben von Ihrem Konto entfernt');
  });

  test('the passkey step of an account whose second factor is a passkey', async () => {
    await srv.server.accounts.savePasskey!('pk', {
      credentialId: randomBytes(16).toString('base64url'),
      publicKey: randomBytes(77).toString('base64url'),
      counter: 0,
      name: 'Laptop',
      createdAt: Date.now(),
    });
    const browser = newBrowser(issuer);
    const login = await browser.go(String((await startAuthorization(mfaApp, params)).url));
    const step = await browser.submit(login, { email: PASSKEY_USER.email, password: PASSKEY_USER.password });
    expect([step.status, text(step, 'h1'), text(step, '#passkey-button')]).toEqual([
      200,
      'Mit Ihrem Passkey bestätigen',
      'Meinen Passkey verwenden',
    ]);
    expect(step.body).toContain('Ihr Konto ist mit einem Passkey geschützt.');
    const messages = JSON.parse(step.dom.querySelector('#passkey-second-factor')!.getAttribute('data-messages')!);
    expect(messages).toEqual({
      cancelled: CATALOG_TEXTS.de['passkey.script.cancelled'],
      failed: CATALOG_TEXTS.de['passkey.script.failed'],
    });
    expect(englishLeftovers(step, ['passkey.'])).toEqual([]);
    // A credential that is no passkey of this account: refused, in German, on the same step.
    const refused = await press(browser, step, 'passkey-button', { credential: '{}' });
    expect([refused.status, text(refused, 'h1')]).toEqual([401, 'Mit Ihrem Passkey bestätigen']);
    expect(refused.body).toContain(CATALOG_TEXTS.de['passkey.login.refused']);
  });
});

test('the factor-change notice follows the language of the request that made the change, not ui.defaultLocale', async () => {
  const { srv } = await start({ ui: { defaultLocale: 'de' } });
  try {
    const issuer = srv.server.config.issuer;
    const browser = new LangBrowser(issuer, 'en-GB,en;q=0.9');
    let page = await browser.go(`${issuer}/account`);
    page = await browser.submit(page, { email: 'alice@example.com', password: 'alice-demo-password' });
    expect(text(page, 'h1')).toBe('Your account');
    const enrol = await press(browser, page, 'totp-add');
    await browser.submit(enrol, { code: await code(text(enrol, '#totp-secret')!) });
    const [english] = await mailbox.waitFor('alice@example.com');
    expect(english!.subject).toBe('A sign-in method was added to your account');
    expect(english!.text).toMatch(/^Hello,/);
    expect(english!.text).toContain('An authenticator app (TOTP) was just added');

    // The same account, a request in German (ui_locales on the account page): the next notice is German.
    const home = await browser.go(`${issuer}/account?ui_locales=de`);
    await press(browser, home, 'recovery-new');
    const mails = await mailbox.waitFor('alice@example.com', 2);
    const german = mails.find((m) => m.file !== english!.file)!;
    expect(german.text).toMatch(/^Guten Tag,/);
    expect(german.text).toContain('Ein neuer Satz Wiederherstellungscodes wurde soeben');
  } finally {
    await srv.close();
    await mailbox.remove();
  }
});

const FACTOR_ROWS: Array<[FactorName, 'en' | 'de', string]> = [
  ['a passkey', 'en', 'A passkey was just removed'],
  ['a passkey', 'de', 'Ein Passkey wurde soeben von Ihrem Konto entfernt'],
  ['an authenticator app (TOTP)', 'de', 'Eine Authenticator-App (TOTP) wurde soeben von Ihrem Konto entfernt'],
  ['new recovery codes', 'en', 'A new set of recovery codes was just removed'],
];
test.each(FACTOR_ROWS)('the notice names the factor: %s in %s', (factor, locale, words) => {
  const mail = secondFactorRemovedMail({ t: new Translator(locale), product: 'P' }, { factor });
  expect(mail.text).toContain(words);
  expect(secondFactorAddedMail({ t: new Translator(locale), product: 'P' }, { factor }).subject).toBe(
    CATALOG_TEXTS[locale]['mail.factorAdded.subject'],
  );
});

describe('ui.templates replaces the second-factor, passkey and account pages, escaping on', () => {
  const EVIL = '<script>alert(1)</script>';
  let srv: RunningServer;
  let mfaApp: RelyingParty;
  let issuer: string;
  const evidence = (p: Page) => [p.body.includes(EVIL), p.body.includes('&#60;script&#62;alert(1)&#60;/script&#62;')];
  beforeAll(async () => {
    ({ srv, mfaApp } = await start({
      clients: [...demoFixtures().clients!, { ...MFA_APP, client_name: EVIL }],
      ui: {
        messages: { en: { 'home.title': EVIL, 'passkey.secondFactor.title': EVIL } },
        templates: {
          totpEnrol: (v, { html, raw }) =>
            html`<h1 id="custom">Scan it</h1>${raw(v.svg)}<p id="key">${v.secret}</p><form method="post" action="${v.action}"><input type="hidden" name="csrf" value="${v.csrfToken}"><input type="hidden" name="enrolment" value="${v.sealed}"><input name="code"></form>`,
          recoveryCodes: (v, { html }) =>
            html`<h1 id="custom">Keep ${v.codes.length} codes</h1><ol>${v.codes.map((c) => html`<li>${c}</li>`)}</ol>${'action' in v.next ? html`<form method="post" action="${v.next.action}"><input type="hidden" name="csrf" value="${v.next.csrfToken}"><button>go</button></form>` : ''}`,
          secondFactor: (v, { html }) =>
            html`<h1 id="custom">Code for ${v.clientName}</h1><form method="post" action="${v.action}"><input type="hidden" name="csrf" value="${v.csrfToken}"><input name="code"></form>`,
          passkey: (v, { html, t }) => html`<h1 id="custom">${t.t('passkey.secondFactor.title')}</h1>${v.form}`,
          accountHome: (v, { html, t }): SafeHtml =>
            html`<h1 id="custom">${t.t('home.title')}</h1><p id="who">${v.email}</p>${v.sections.sessions}`,
        },
      },
    }));
    issuer = srv.server.config.issuer;
  });
  afterAll(async () => {
    await srv.close();
    await mailbox.remove();
  });

  test('TOTP enrolment, recovery codes and the code prompt: the host templates render and work; a client name with <script> stays escaped', async () => {
    const browser = new TestBrowser(issuer);
    const login = await browser.go(String((await startAuthorization(mfaApp)).url));
    const enrol = await browser.submit(login, { email: 'alice@example.com', password: 'alice-demo-password' });
    expect([enrol.status, text(enrol, '#custom'), enrol.dom.querySelector('svg') !== null]).toEqual([
      200,
      'Scan it',
      true,
    ]);
    const codes = await browser.submit(enrol, { code: await code(text(enrol, '#key')!) });
    expect(text(codes, '#custom')).toBe('Keep 10 codes');
    const recovery = codes.dom.querySelector('li')!.text;
    await browser.submit(codes, {});

    const other = new TestBrowser(issuer);
    const login2 = await other.go(String((await startAuthorization(mfaApp)).url));
    const prompt = await other.submit(login2, { email: 'alice@example.com', password: 'alice-demo-password' });
    expect([prompt.status, text(prompt, '#custom')]).toEqual([200, `Code for ${EVIL}`]);
    expect(evidence(prompt)).toEqual([false, true]);
    const done = await other.submit(prompt, { code: recovery });
    expect(done.status).not.toBe(401);
    expect(done.dom.querySelector('#custom')).toBeNull(); // on to consent
  });

  test('the passkey step and the account page: replaced, the translated <script> message escaped', async () => {
    await srv.server.accounts.savePasskey!('pk', {
      credentialId: randomBytes(16).toString('base64url'),
      publicKey: randomBytes(77).toString('base64url'),
      counter: 0,
      name: 'Key',
      createdAt: Date.now(),
    });
    const browser = new TestBrowser(issuer);
    const login = await browser.go(String((await startAuthorization(mfaApp)).url));
    const step = await browser.submit(login, { email: PASSKEY_USER.email, password: PASSKEY_USER.password });
    expect([step.status, text(step, '#custom'), step.dom.querySelector('form#passkey-second-factor') !== null]).toEqual(
      [200, EVIL, true],
    );
    expect(evidence(step)).toEqual([false, true]);

    const admin = new TestBrowser(issuer);
    await admin.submit(await admin.go(`${issuer}/account`), {
      email: 'admin@example.com',
      password: 'admin-demo-password',
    });
    const home = await admin.go(`${issuer}/account`);
    expect([
      home.status,
      text(home, '#custom'),
      text(home, '#who'),
      home.dom.querySelectorAll('#session-list li.session').length,
    ]).toEqual([200, EVIL, 'admin@example.com', 1]);
    expect(home.dom.querySelector('#totp-add')).toBeNull(); // our body is gone
    expect(evidence(home)).toEqual([false, true]);
    expect(home.headers.get('content-security-policy')).toContain("default-src 'none'");
  });
});
