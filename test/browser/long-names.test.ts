import type { Browser } from 'playwright-core';
import { browserSuite, launchChromium } from '../helpers/chromium.js';
import { CHALLENGE, query } from '../helpers/authorization.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * Long names on a phone-sized screen, in a real Chromium: a client name or an account address without a place to
 * break the line must wrap inside the page's card. Before, it ran off the card and the screen, so a registered
 * name such as "Google" followed by 150 no-break spaces and "evil" read as "Google" on the login and consent pages,
 * the rest hidden beyond the right edge (such a run of blanks is now also refused at registration).
 */
const NAMES: Array<[string, string]> = [
  ['a 200-character name without a space', `Acme${'x'.repeat(196)}`],
  // A run of blanks (`Google` + 150 no-break spaces + `evil`) is refused at registration and in the configuration
  // (test/registration/client-name-characters.test.ts); single no-break spaces are allowed, and do not break either.
  ['a name of words joined by single no-break spaces', Array.from({ length: 20 }, () => 'Longword').join('\u00a0')],
  [
    'a name of long words joined by hyphens (U+2011, non-breaking)',
    Array.from({ length: 8 }, () => 'Verylongword').join('\u2011'),
  ],
  // Every row signs in with the long address, which the consent page shows: this row has it alone.
  ['a short name (only the account address is long)', 'Short app'],
];
const LONG_EMAIL = `${'a'.repeat(64)}@${'b'.repeat(60)}.example.com`;

browserSuite('long client names and addresses wrap inside the page on a narrow screen', () => {
  let browser: Browser;
  let srv: RunningServer;
  beforeAll(async () => {
    srv = await startServer({
      clients: NAMES.map(([, name], i) => ({
        client_id: `long-${i}`,
        client_name: name,
        redirect_uris: ['http://localhost:8080/callback'],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        response_types: ['code'],
      })),
      accounts: [{ id: 'long', email: LONG_EMAIL, password: 'long-address-password', email_verified: true }],
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

  /** How far the page and the card reach past their width (0: nothing sticks out), and whether the tail shows. */
  const overflow = `(() => {
    const main = document.querySelector('main');
    const name = document.querySelector('main strong');
    return {
      page: document.documentElement.scrollWidth - window.innerWidth,
      card: main.scrollWidth - main.clientWidth,
      nameInsideCard: name.getBoundingClientRect().right <= main.getBoundingClientRect().right,
    };
  })()`;

  test.each(NAMES.map(([label, name], i) => [label, name, i] as const))(
    '%s: login and consent pages',
    async (_label, _name, i) => {
      const page = await browser.newPage({ viewport: { width: 390, height: 800 } });
      await page.goto(
        `${srv.issuer}/authorization?${query({
          client_id: `long-${i}`,
          response_type: 'code',
          redirect_uri: 'http://localhost:8080/callback',
          scope: 'openid',
          code_challenge: CHALLENGE,
          code_challenge_method: 'S256',
          prompt: 'consent',
        })}`,
      );
      const login = await page.evaluate(overflow);
      await page.fill('#email', LONG_EMAIL);
      await page.fill('#password', 'long-address-password');
      await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
      await page.waitForSelector('button[value=allow]');
      const consent = await page.evaluate(overflow);
      expect({ login, consent }).toEqual({
        login: { page: 0, card: 0, nameInsideCard: true },
        consent: { page: 0, card: 0, nameInsideCard: true },
      });
      await page.close();
    },
  );
});
