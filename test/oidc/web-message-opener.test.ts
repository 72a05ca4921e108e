import { TestBrowser, type Page } from '../helpers/browser.js';
import { CHALLENGE, query } from '../helpers/authorization.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * A `web_message` answer is posted to the window that opened the sign-in popup, so no page on the way there may
 * carry `Cross-Origin-Opener-Policy: same-origin`: one such document (or redirect) in the popup cuts it off from its
 * opener for good, and the relying party never gets its answer (shown in Chromium by
 * test/browser/web-message-popup.test.ts). Every other response mode keeps the policy. Framing stays refused on
 * every page of the sign-in, whatever the mode.
 */
const CLIENT = { id: 'demo-web', uri: 'http://localhost:8080/callback' };

let srv: RunningServer;
beforeAll(async () => {
  srv = await startServer({ webMessageResponseMode: true });
});
afterAll(() => srv.close());

const headersOf = (page: Page) => ({
  status: page.status,
  opener: page.headers.get('cross-origin-opener-policy'),
  frame: page.headers.get('x-frame-options'),
  frameAncestors: /frame-ancestors 'none'/.test(page.headers.get('content-security-policy') ?? ''),
});

test.each<[string, string | null]>([
  ['web_message', null],
  ['query', 'same-origin'],
  ['fragment', 'same-origin'],
  ['form_post', 'same-origin'],
])(
  'response_mode=%s: Cross-Origin-Opener-Policy %s on each step of the sign-in; framing refused',
  async (mode, opener) => {
    const browser = new TestBrowser(srv.issuer);
    const start = await browser.request(
      `${srv.issuer}/authorization?${query({
        client_id: CLIENT.id,
        response_type: 'code',
        redirect_uri: CLIENT.uri,
        scope: 'openid',
        state: 's',
        code_challenge: CHALLENGE,
        code_challenge_method: 'S256',
        response_mode: mode,
      })}`,
    );
    const login = await browser.go(new URL(start.headers.get('location')!, start.url).href);
    const wrong = await browser.submit(login, { email: 'alice@example.com', password: 'wrong-password-123' });
    const consent = await browser.submit(wrong, { email: 'alice@example.com', password: 'alice-demo-password' });
    expect(consent.dom.querySelector('button[value=allow]')).not.toBeNull();
    const steps = { start, login, wrong, consent };
    const seen = Object.fromEntries(Object.entries(steps).map(([step, page]) => [step, headersOf(page)]));
    const page = { opener, frame: 'DENY', frameAncestors: true };
    expect(seen).toEqual({
      start: { status: 303, ...page },
      login: { status: 200, ...page },
      wrong: { status: 401, ...page },
      consent: { status: 200, ...page },
    });
  },
);
