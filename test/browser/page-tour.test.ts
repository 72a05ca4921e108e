import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { browserSuite, launchChromium } from '../helpers/chromium.js';
import {
  arrivedAt,
  newAccount,
  startCallbackServer,
  submitOf,
  totp,
  watchViolations,
} from '../helpers/chromium-pages.js';
import { relyingParty, startAuthorization } from '../helpers/flow.js';
import { Mailbox } from '../helpers/mailbox.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';

/**
 * Every page a user can meet, in a real Chromium, in the light and the dark colour scheme and once with
 * `Accept-Language: de`: login, wrong password, sign-up, reset request and the new-password page of the mailed
 * link, consent, the account page, TOTP enrolment and the recovery codes, the passkey list, the second-factor
 * page, logout confirmation, signed out, an error page (unknown client) and an expired interaction.
 *
 * On each: no CSP violation (nor script error), every field has an accessible label, exactly one h1, and a
 * full-page screenshot in test/artifacts/screenshots/<page>-<mode>.png. The forms are filled with the keyboard
 * only: Tab from the top of the page reaches every form control up to the primary submit button in DOM order, the
 * values are typed, and Enter on the button submits. Elements are found by id, name, role or form structure,
 * never by text (the pages are translated).
 */
const SCREENSHOTS = join(process.cwd(), 'test', 'artifacts', 'screenshots');
const TIMEOUT = 180_000;

interface Pass {
  mode: string;
  colorScheme: 'light' | 'dark';
  language?: string;
}
const PASSES: Pass[] = [
  { mode: 'light', colorScheme: 'light' },
  { mode: 'dark', colorScheme: 'dark' },
  { mode: 'de', colorScheme: 'light', language: 'de' },
];

// Scripts run in the page (strings: the test project is compiled without the DOM library).
/** The visible fields (not hidden inputs) without an accessible label (label element, aria-label or aria-labelledby). */
const UNLABELLED = `[...document.querySelectorAll('input:not([type=hidden]), select, textarea')].filter((el) => {
  const byLabel = [...(el.labels || [])].some((l) => l.textContent.trim() !== '');
  const byAria = (el.getAttribute('aria-label') || '').trim() !== '';
  const byRef = (el.getAttribute('aria-labelledby') || '').split(/\\s+/).some((id) => ((document.getElementById(id) || {}).textContent || '').trim() !== '');
  return !byLabel && !byAria && !byRef;
}).map((el) => el.outerHTML)`;
/**
 * Numbers the visible, enabled form controls in DOM order (`data-tour`), finds the one matching `primary`, and puts
 * the focus at the top of the page (on the body), so the next Tab goes to the first focusable element.
 */
const markControls = (primary: string) => `(() => {
  const all = [...document.querySelectorAll('input:not([type=hidden]), select, textarea, button')].filter((el) => !el.disabled && el.checkVisibility());
  all.forEach((el, i) => el.setAttribute('data-tour', String(i)));
  document.body.tabIndex = -1;
  document.body.focus();
  document.body.removeAttribute('tabindex');
  return { count: all.length, primary: all.findIndex((el) => el.matches(${JSON.stringify(primary)})) };
})()`;
/** Relative luminance (0 black … 1 white, WCAG 2.x) of the body's computed background colour. */
const BACKGROUND_LUMINANCE = `(() => {
  const [r, g, b] = getComputedStyle(document.body).backgroundColor.match(/[\\d.]+/g).slice(0, 3).map((v) => Number(v) / 255)
    .map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
})()`;
/** The focused element's tour number, name and value. */
const FOCUSED = `(() => { const el = document.activeElement; return { tour: el && el.getAttribute('data-tour'), name: el && el.getAttribute('name'), value: (el && el.value) || '' }; })()`;

browserSuite('page tour in headless Chromium: every page, light and dark, German', () => {
  let browser: Browser;
  let callbacks: Awaited<ReturnType<typeof startCallbackServer>>;
  beforeAll(async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    browser = await launchChromium();
    callbacks = await startCallbackServer();
  });
  afterAll(async () => {
    await browser?.close();
    await callbacks?.close();
  });

  test.each(PASSES)(
    '$mode: every page is labelled, has one h1, no CSP violation; forms work by keyboard alone',
    async (pass) => {
      const mailbox = await Mailbox.create();
      const redirectUri = `${callbacks.origin}/callback`;
      // localhost (not 127.0.0.1): a WebAuthn relying-party ID is never an IP address, so the passkey parts show.
      const srv: RunningServer = await startServer((address) => ({
        issuer: address.replace('127.0.0.1', 'localhost'),
        mail: { mailbox: mailbox.dir },
        clients: demoFixtures().clients!.map((c) =>
          c.client_id === 'demo-web' ? { ...c, redirect_uris: [redirectUri] } : c,
        ),
      }));
      const issuer = srv.server.config.issuer;
      const context = await browser.newContext({
        colorScheme: pass.colorScheme,
        ...(pass.language
          ? { locale: 'de-DE', extraHTTPHeaders: { 'accept-language': pass.language } }
          : { locale: 'en-US' }),
      });
      try {
        const page = await context.newPage();
        await page.emulateMedia({ colorScheme: pass.colorScheme });
        const violations = watchViolations(page);
        const seen: string[] = [];

        /** The checks every page gets, and its screenshot. */
        async function inspect(name: string) {
          await page.waitForLoadState();
          seen.push(name);
          expect({ page: name, h1: await page.locator('h1').count() }).toEqual({ page: name, h1: 1 });
          const unlabelled = (await page.evaluate(UNLABELLED)) as string[];
          expect({ page: name, unlabelled }).toEqual({ page: name, unlabelled: [] });
          expect({
            page: name,
            scheme: await page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'"),
          }).toEqual({ page: name, scheme: pass.colorScheme });
          // the page's own colours follow the scheme: a light background in light mode, a dark one in dark mode
          const background = (await page.evaluate(BACKGROUND_LUMINANCE)) as number;
          expect({ page: name, darkBackground: background < 0.5 }).toEqual({
            page: name,
            darkBackground: pass.colorScheme === 'dark',
          });
          if (pass.language) {
            expect({ page: name, lang: await page.getAttribute('html', 'lang') }).toEqual({
              page: name,
              lang: expect.stringMatching(/^de/),
            });
          }
          await page.screenshot({ path: join(SCREENSHOTS, `${name}-${pass.mode}.png`), fullPage: true });
          expect({ page: name, violations }).toEqual({ page: name, violations: [] });
        }

        /**
         * Keyboard only: from the top of the page, Tab through every visible form control (in DOM order) up to the
         * `primary` submit button, typing `values` into the fields they name, then Enter on the button. Resolves once
         * the page it leads to has loaded.
         */
        async function byKeyboard(name: string, primary: string, values: Record<string, string> = {}) {
          const controls = (await page.evaluate(markControls(primary))) as { count: number; primary: number };
          expect({ page: name, primaryFound: controls.primary >= 0 }).toEqual({ page: name, primaryFound: true });
          const reached: number[] = [];
          for (let presses = 0; presses < 60; presses++) {
            await page.keyboard.press('Tab');
            const focused = (await page.evaluate(FOCUSED)) as {
              tour: string | null;
              name: string | null;
              value: string;
            };
            if (focused.tour === null) continue;
            reached.push(Number(focused.tour));
            if (focused.name && focused.name in values && focused.value !== values[focused.name]) {
              await page.keyboard.press('ControlOrMeta+A');
              await page.keyboard.type(values[focused.name]!);
            }
            if (Number(focused.tour) === controls.primary) break;
          }
          expect({ page: name, reached }).toEqual({ page: name, reached: [...Array(controls.primary + 1).keys()] });
          const loaded = page.waitForEvent('load');
          await page.keyboard.press('Enter');
          await loaded;
        }

        const user = await newAccount(srv.server.accounts, `tour-${pass.mode}`);
        const newPassword = `new-${user.password}`;

        // sign-up: the form, then "check your mail"
        await page.goto(`${issuer}/account/signup`);
        await inspect('signup');
        const fresh = `signup-${pass.mode}-${Date.now()}@example.com`;
        await byKeyboard('signup', submitOf('password'), {
          given_name: 'Tess',
          family_name: 'Tour',
          email: fresh,
          password: 'a-long-enough-password-9',
        });
        await inspect('signup-sent');
        expect((await mailbox.waitFor(fresh)).length).toBe(1);

        // password reset: request, mailed link, new password
        await page.goto(`${issuer}/account/reset`);
        await inspect('reset-request');
        await byKeyboard('reset-request', submitOf('email'), { email: user.email });
        await inspect('reset-sent');
        const [resetMail] = await mailbox.waitFor(user.email);
        expect(resetMail!.link).toMatch(/\/account\/reset\/confirm\?token=/);
        await page.goto(resetMail!.link!);
        await inspect('reset-confirm');
        await byKeyboard('reset-confirm', submitOf('password'), { password: newPassword });
        await inspect('reset-done');

        // login: a wrong password first, then the right one; consent
        const rp = await relyingParty(issuer, { redirectUri });
        const start = await startAuthorization(rp, { scope: 'openid email profile' });
        await page.goto(String(start.url));
        await inspect('login');
        await byKeyboard('login', submitOf('password'), { email: user.email, password: 'wrong-password-123' });
        expect(await page.locator('[role=alert]:visible').count()).toBe(1);
        // the address kept, the focus on the password
        expect(await page.inputValue('input[name=email]')).toBe(user.email);
        expect(await page.evaluate('document.activeElement?.getAttribute("name")')).toBe('password');
        await inspect('login-wrong-password');
        await byKeyboard('login-wrong-password', submitOf('password'), { email: user.email, password: newPassword });
        await page.waitForSelector('button[name=decision][value=allow]');
        await inspect('consent');
        await byKeyboard('consent', 'button[name=decision][value=allow]');
        expect((await arrivedAt(page, redirectUri)).searchParams.get('code')).toBeTruthy();

        // the account page, the passkey list, TOTP enrolment and the recovery codes
        await page.goto(`${issuer}/account`);
        await page.waitForSelector('#totp-add');
        await inspect('account');
        await page.goto(`${issuer}/account/passkeys`);
        await inspect('passkeys');
        await page.goto(`${issuer}/account`);
        await byKeyboard('account', '#totp-add');
        await page.waitForSelector('#totp-secret');
        await inspect('totp-enrol');
        const secret = (await page.textContent('#totp-secret'))!.trim();
        await byKeyboard('totp-enrol', submitOf('code'), { code: await totp(secret) });
        expect(await page.locator('#recovery-codes li').count()).toBe(10);
        await inspect('recovery-codes');

        // logout confirmation, signed out
        await page.goto(`${issuer}/session/end`);
        await inspect('logout');
        await byKeyboard('logout', 'button[name=logout][value=yes]');
        await page.waitForURL((url) => url.pathname.endsWith('/session/end/success'));
        await inspect('signed-out');

        // the second-factor page of the next sign-in
        const again = await startAuthorization(rp, { scope: 'openid email profile' });
        await page.goto(String(again.url));
        await page.fill('input[name=email]', user.email);
        await page.fill('input[name=password]', newPassword);
        await Promise.all([page.waitForSelector('input[name=code]'), page.click(submitOf('password'))]);
        await inspect('second-factor');
        await byKeyboard('second-factor', submitOf('code'), { code: await totp(secret, 1) });
        expect((await arrivedAt(page, redirectUri)).searchParams.get('code')).toBeTruthy();

        // an error page (unknown client) and an expired interaction
        const bad = await page.goto(
          `${issuer}/authorization?client_id=no-such-client&response_type=code&scope=openid&redirect_uri=${encodeURIComponent(redirectUri)}`,
        );
        expect(bad!.status()).toBe(400);
        await inspect('error');
        const expired = await page.goto(`${issuer}/interaction/expired-one`);
        expect(expired!.status()).toBeGreaterThanOrEqual(400);
        await inspect('expired');

        expect(seen).toHaveLength(18);
      } finally {
        await context.close();
        await srv.close();
        await mailbox.remove();
      }
    },
    TIMEOUT,
  );
});
