import type { Server } from 'node:http';
import { parse } from 'node-html-parser';
import { demoFixtures } from '../../examples/demo-fixtures.js';
import { buildHostApp } from '../../examples/mount-in-koa.js';
import { TestBrowser, type Page } from '../helpers/browser.js';
import { CHALLENGE } from '../helpers/authorization.js';
import { Mailbox } from '../helpers/mailbox.js';
import { catalogGraphql, freePort, startServer } from '../helpers/server.js';

/**
 * The CSRF protection of Portcullis' own forms against a cookie planted by a sibling host ("cookie tossing",
 * OWASP CSRF Cheat Sheet on the signed double-submit cookie), over real HTTP through the real forms.
 *
 * The attacker loads a form himself, keeps his (cookie, token) pair, plants his cookie in the victim's browser
 * (a host under the same registrable domain may set a cookie for the parent domain, or for a more specific path
 * so that it is sent first) and posts his token from his page: the victim's browser sends the victim's session
 * cookies and the planted one. Simulated here by sending the planted cookie first, before the victim's own.
 *
 * An https issuer is served over plain http here (NODE_ENV is not production), as behind a TLS-terminating
 * proxy: the test browser keeps its cookies for the https URLs, so Secure and `__Host-` cookies behave as in a
 * browser on https. The host-app kind is examples/mount-in-koa.ts, whose session middleware reads its cookie
 * before Portcullis runs.
 */
type Kind =
  | 'http'
  | 'https'
  | 'https under /auth'
  | 'https under /auth in a host app'
  | 'http under /auth'
  | 'http under /auth in a host app';
const ALICE = { email: 'alice@example.com', password: 'alice-demo-password' };
const ADMIN = { email: 'admin@example.com', password: 'admin-demo-password' };
const CSRF_COOKIE = /^(?:__Host-)?portcullis\.csrf$/;

/** {@link TestBrowser} for an https issuer behind a TLS-terminating hop, with a planted cookie and cross-site arrivals. */
class Browser extends TestBrowser {
  /** `name=value` pairs sent before the jar's cookies on every request: what a sibling host planted. */
  planted?: string;
  /** Requests are cross-site navigations (a client on another site sent the browser here): no SameSite=Strict cookie. */
  crossSite = false;

  override async request(url: string, init: RequestInit = {}): Promise<Page> {
    const headers = new Headers(init.headers);
    const own = await this.jar.getCookieString(url, this.crossSite ? { sameSiteContext: 'lax' } : {});
    const cookie = [this.planted, own].filter(Boolean).join('; ');
    if (cookie) headers.set('cookie', cookie);
    if (!headers.has('accept')) headers.set('accept', 'text/html');
    const res = await fetch(url.replace(/^https:/, 'http:'), { ...init, headers, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) await this.jar.setCookie(c, url, { ignoreError: true });
    const body = await res.text();
    return { url, status: res.status, headers: res.headers, body, dom: parse(body) };
  }
}

const servers = new Map<Kind, { issuer: string; close(): Promise<void> }>();
afterAll(async () => {
  for (const { close } of servers.values()) await close();
});

/** One server per kind of issuer, with mail (so the sign-up and reset forms are there). */
async function server(kind: Kind): Promise<string> {
  let running = servers.get(kind);
  if (!running) {
    const mailbox = await Mailbox.create();
    const mail = { mailbox: mailbox.dir };
    const scheme = (address: string) => (kind.startsWith('https') ? address.replace(/^http:/, 'https:') : address);
    const issuerOf = (address: string) => `${scheme(address)}${kind.includes('/auth') ? '/auth' : ''}`;
    if (kind.endsWith('in a host app')) {
      const port = await freePort();
      const host = await buildHostApp({ issuer: issuerOf(`http://127.0.0.1:${port}`), ...demoFixtures(), mail });
      const http: Server = host.app.listen(port, '127.0.0.1');
      await new Promise((resolve) => http.once('listening', resolve));
      running = {
        issuer: host.portcullis.config.issuer,
        async close() {
          http.closeAllConnections();
          await new Promise((r) => http.close(r));
          await host.close();
          await mailbox.remove();
        },
      };
    } else {
      const srv = await startServer((address) => ({ issuer: issuerOf(address), mail }));
      running = {
        issuer: srv.server.config.issuer,
        async close() {
          await srv.close();
          await mailbox.remove();
        },
      };
    }
    servers.set(kind, running);
  }
  return running.issuer;
}

const h1 = (p: Page) => p.dom.querySelector('h1')?.text.trim();
const tokenOf = (p: Page) => p.dom.querySelector('input[name=csrf]')!.getAttribute('value')!;
const post = (browser: Browser, url: string, fields: Record<string, string>) =>
  browser.go(url, {
    method: 'POST',
    body: new URLSearchParams(fields),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });

/** Opens /account and signs in as `who` when asked; returns the account page. */
async function signedIn(browser: Browser, issuer: string, who = ALICE): Promise<Page> {
  let page = await browser.go(`${issuer}/account`);
  if (page.dom.querySelector('input[name=password]')) page = await browser.submit(page, who);
  expect(h1(page)).toBe('Your account');
  return page;
}

/** The CSRF cookie value the browser holds for `url`. */
async function csrfCookie(browser: Browser, url: string): Promise<string> {
  const found = (await browser.jar.getCookies(url)).find((c) => CSRF_COOKIE.test(c.key));
  if (!found) throw new Error(`no CSRF cookie for ${url}`);
  return found.value;
}

/** Posts `fields` from the victim's browser with the attacker's cookie planted (plain name; with `prefixed` also `__Host-`). */
async function forged(victim: Browser, url: string, fields: Record<string, string>, nonce: string, prefixed = false) {
  victim.planted = `portcullis.csrf=${nonce}${prefixed ? `; __Host-portcullis.csrf=${nonce}` : ''}`;
  try {
    return await post(victim, url, fields);
  } finally {
    victim.planted = undefined;
  }
}

/** An authorization request of the demo client (code + PKCE), by hand: it works for an https issuer too. */
function authorizationUrl(issuer: string, state: string): string {
  return `${issuer}/authorization?${new URLSearchParams({
    client_id: 'demo-web',
    response_type: 'code',
    scope: 'openid email',
    redirect_uri: 'http://localhost:8080/callback',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    state,
    nonce: `n-${state}`,
  })}`;
}

describe("a planted CSRF cookie with the attacker's token: the victim's account page refuses the change", () => {
  test.each<[string, 'the sign-up form' | 'his own /account page', Kind, boolean]>([
    ['http issuer', 'the sign-up form', 'http', false],
    ['http issuer', 'his own /account page', 'http', false],
    ['https issuer, cookie planted for the parent domain', 'the sign-up form', 'https', false],
    ['https issuer, cookie planted for the parent domain', 'his own /account page', 'https', false],
    [
      'https issuer, planted under the __Host- name too (a browser without cookie prefixes)',
      'the sign-up form',
      'https',
      true,
    ],
    [
      'https issuer, planted under the __Host- name too (a browser without cookie prefixes)',
      'his own /account page',
      'https',
      true,
    ],
    ['https issuer under a path (/auth)', 'his own /account page', 'https under /auth', false],
    ['https issuer under /auth in a host app', 'the sign-up form', 'https under /auth in a host app', false],
  ])('%s; token from %s', async (_name, source, kind, prefixed) => {
    const issuer = await server(kind);
    const victim = new Browser(issuer);
    const home = await signedIn(victim, issuer);
    const otherDevice = new Browser(issuer);
    await signedIn(otherDevice, issuer);

    const attacker = new Browser(issuer);
    const page =
      source === 'the sign-up form'
        ? await attacker.go(`${issuer}/account/signup`)
        : await signedIn(attacker, issuer, ADMIN);
    const nonce = await csrfCookie(attacker, page.url);

    const answer = await forged(victim, `${issuer}/account/sessions/others`, { csrf: tokenOf(page) }, nonce, prefixed);
    expect([answer.status, h1(answer), answer.dom.querySelector('#message')?.text]).toEqual([
      403,
      'Please reload the page',
      'The form was not submitted from this page (it is out of date or came from elsewhere). Reload the page and try again.',
    ]);
    // Nothing changed: the victim's other session is still signed in.
    expect(h1(await otherDevice.go(`${issuer}/account`))).toBe('Your account');
    // The victim's own form still works, and does sign the other session out.
    const own = await post(victim, `${issuer}/account/sessions/others`, { csrf: tokenOf(home) });
    expect([own.status, h1(own)]).toEqual([200, 'Done']);
    expect(h1(await otherDevice.go(`${issuer}/account`))).toBe('Sign in');
  });
});

// These two held before the cookie change as well: the token's scope was already the interaction's path, which
// names its uid (and the uid is tied to the browser by oidc-provider's `_interaction` cookie). They pin it now that
// the binding is explicit and one cookie serves every form.
describe("a planted CSRF cookie with the attacker's token: sign-in pages refuse it (bound to the interaction)", () => {
  test.each<[string, 'login' | 'confirm']>([
    ["login: the attacker signs the victim's pending sign-in in as himself", 'login'],
    ["consent: the attacker allows the client on the victim's consent page", 'confirm'],
  ])('%s', async (_name, step) => {
    const issuer = await server('http');
    const victim = new Browser(issuer);
    let victimPage = await victim.go(authorizationUrl(issuer, 'victim'));
    if (step === 'confirm') victimPage = await victim.submit(victimPage, ALICE);
    const attacker = new Browser(issuer);
    let page = await attacker.go(authorizationUrl(issuer, 'attacker'));
    if (step === 'confirm') page = await attacker.submit(page, ADMIN);
    const nonce = await csrfCookie(attacker, page.url);

    // The strongest attacker: he even knows the victim's interaction uid.
    const target = victimPage.url.replace(/\/interaction\/([^/?]+).*$/, `/interaction/$1/${step}`);
    const answer = await forged(
      victim,
      target,
      { csrf: tokenOf(page), ...(step === 'login' ? ADMIN : { decision: 'allow' }) },
      nonce,
    );
    expect([answer.status, answer.dom.querySelector('#error')?.text, answer.redirectedTo]).toEqual([
      403,
      'invalid_request',
      undefined,
    ]);
    // The victim's own page still goes on.
    const own = await victim.submit(
      victimPage,
      step === 'login' ? ALICE : {},
      step === 'confirm' ? { name: 'decision', value: 'allow' } : undefined,
    );
    expect(own.redirectedTo ?? h1(own)).toMatch(/^(?:http:\/\/localhost:8080\/callback\?code=|Allow access\?)/);
  });
});

describe('the CSRF cookie', () => {
  // Before, the cookie was `Path=/` on every issuer: under http://host/auth every other application of the host
  // received it (and could set it), while every other cookie of the issuer is under /auth. On https the
  // `__Host-` prefix allows only `Path=/` (and no sibling host can set it), so there it stays.
  test.each<[Kind, string, string, boolean]>([
    ['http', 'portcullis.csrf', '/', false],
    ['http under /auth', 'portcullis.csrf', '/auth', false],
    ['http under /auth in a host app', 'portcullis.csrf', '/auth', false],
    ['https', '__Host-portcullis.csrf', '/', true],
    ['https under /auth', '__Host-portcullis.csrf', '/', true],
    ['https under /auth in a host app', '__Host-portcullis.csrf', '/', true],
  ])(
    '%s issuer: one cookie %s, Path=%s, no Domain, HttpOnly, SameSite=Lax, Secure %s; every form family uses it',
    async (kind, name, path, secure) => {
      const issuer = await server(kind);
      const origin = new URL(issuer).origin;
      const browser = new Browser(issuer);
      const first = await browser.request(`${issuer}/account/signup`);
      const set = first.headers.getSetCookie().filter((c) => CSRF_COOKIE.test(c.split('=')[0]));
      expect(set).toHaveLength(1);
      const [pair, ...attributes] = set[0].split('; ');
      expect(pair).toMatch(new RegExp(`^${name.replace('.', '\\.')}=[\\w-]{43}$`));
      expect(attributes.sort()).toEqual(['httponly', `path=${path}`, 'samesite=lax', ...(secure ? ['secure'] : [])]);
      // Another application of the host (outside the issuer's path) is sent it only where the prefix demands Path=/.
      const elsewhere = (await browser.jar.getCookies(`${origin}/other-app/`)).filter((c) => CSRF_COOKIE.test(c.key));
      expect(elsewhere.map((c) => c.key)).toEqual(path === '/' ? [name] : []);
      // The forms under the issuer's path work with it: sign-in and consent of a client, the account page's form,
      // the sign-up form. None sets a second CSRF cookie.
      const login = await browser.go(authorizationUrl(issuer, 'one-cookie'));
      expect(h1(login)).toBe('Sign in');
      const consent = await browser.submit(login, ALICE);
      const allow = { name: 'decision', value: 'allow' };
      const back = consent.redirectedTo ? consent : await browser.submit(consent, {}, allow);
      expect(back.redirectedTo).toMatch(/^http:\/\/localhost:8080\/callback\?code=/);
      const home = await signedIn(browser, issuer);
      const others = await post(browser, `${issuer}/account/sessions/others`, { csrf: tokenOf(home) });
      expect([others.status, h1(others)]).toEqual([200, 'Done']);
      const email = `new-${kind.replace(/\W/g, '-')}@example.com`;
      const newcomer = { given_name: 'New', family_name: 'User', email, password: 'a-new-password-123' };
      const signup = await browser.submit(await browser.go(`${issuer}/account/signup`), newcomer);
      expect([signup.status, h1(signup)]).toEqual([200, 'Check your e-mail']);
      const held = (await browser.jar.serialize()).cookies.filter((c) => CSRF_COOKIE.test(String(c.key)));
      expect(held.map((c) => [c.key, c.path])).toEqual([[name, path]]);
    },
  );
});

describe("GraphQL's form transport: its CSRF cookie is under graphql.path on plain http", () => {
  // graphql.path is absolute on the host, possibly outside the issuer's path: its guard scopes the cookie there.
  test.each<[string, string, string, string, string]>([
    ['http issuer under /auth, GraphQL at /api/graphql', 'http', '/api/graphql', 'portcullis.csrf', '/api/graphql'],
    ['http issuer under /auth, GraphQL at /auth/graphql', 'http', '/auth/graphql', 'portcullis.csrf', '/auth/graphql'],
    ['https issuer under /auth, GraphQL at /api/graphql', 'https', '/api/graphql', '__Host-portcullis.csrf', '/'],
  ])(
    '%s (%s, graphql.path %s): cookie %s, Path=%s; the form works before and after a sign-in page set its own',
    async (_name, scheme, graphqlPath, name, path) => {
      const srv = await startServer((address) => ({
        issuer: `${scheme === 'https' ? address.replace(/^http:/, 'https:') : address}/auth`,
        graphql: { ...catalogGraphql(), path: graphqlPath, transports: { form: true } },
      }));
      const issuer = srv.server.config.issuer;
      try {
        const endpoint = `${new URL(issuer).origin}${graphqlPath}`;
        const browser = new Browser(issuer);
        const ask = async () => {
          const tokenPage = await browser.request(`${endpoint}/csrf-token`);
          const token = (JSON.parse(tokenPage.body) as { csrf_token: string }).csrf_token;
          const answer = await browser.go(endpoint, {
            method: 'POST',
            body: new URLSearchParams({ query: '{__typename}', csrf_token: token }),
            headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          });
          return { tokenPage, answer: [answer.status, JSON.parse(answer.body)] };
        };
        const first = await ask();
        const set = first.tokenPage.headers.getSetCookie().filter((c) => CSRF_COOKIE.test(c.split('=')[0]));
        const pathOf = (c: string) => c.split('; ').find((a) => a.startsWith('path='));
        expect(set.map((c) => [c.split('=')[0], pathOf(c)])).toEqual([[name, `path=${path}`]]);
        expect(first.answer).toEqual([200, { data: { __typename: 'Query' } }]);
        // A sign-in page of the issuer (its own cookie under /auth on http, the same one on https), then the form again.
        const signIn = await browser.go(authorizationUrl(issuer, 'graphql'));
        expect(h1(signIn)).toBe('Sign in');
        expect((await ask()).answer).toEqual([200, { data: { __typename: 'Query' } }]);
      } finally {
        await srv.close();
      }
    },
  );
});

describe('legitimate use keeps working', () => {
  test.each<[Kind]>([['http'], ['https'], ['https under /auth in a host app']])(
    '%s issuer: two tabs and the back button; every /account form loaded in this session works',
    async (kind) => {
      const issuer = await server(kind);
      const browser = new Browser(issuer);
      const tab1 = await signedIn(browser, issuer);
      const tab2 = await browser.go(`${issuer}/account`);
      const back = await browser.go(`${issuer}/account`);
      for (const page of [tab1, tab2, back]) {
        const answer = await post(browser, `${issuer}/account/sessions/others`, { csrf: tokenOf(page) });
        expect([answer.status, h1(answer)]).toEqual([200, 'Done']);
      }
    },
  );

  test('an /account form stays valid when the browser signs in to another application meanwhile (the session cookie is renewed)', async () => {
    const issuer = await server('http');
    const browser = new Browser(issuer);
    const home = await signedIn(browser, issuer);
    const before = (await browser.jar.getCookies(`${issuer}/`)).find((c) => c.key === '_session')?.value;
    const consent = await browser.go(`${authorizationUrl(issuer, 'other-app')}&prompt=consent`);
    const back = await browser.submit(consent, {}, { name: 'decision', value: 'allow' });
    expect(back.redirectedTo).toMatch(/^http:\/\/localhost:8080\/callback\?code=/);
    expect((await browser.jar.getCookies(`${issuer}/`)).find((c) => c.key === '_session')?.value).not.toBe(before);
    const answer = await post(browser, `${issuer}/account/sessions/others`, { csrf: tokenOf(home) });
    expect([answer.status, h1(answer)]).toEqual([200, 'Done']);
  });

  test.each<[Kind]>([['http'], ['https']])(
    '%s issuer: an /account form still works after a sign-in page was reached from a client on another site',
    async (kind) => {
      const issuer = await server(kind);
      const browser = new Browser(issuer);
      const home = await signedIn(browser, issuer);
      // A client on another site sends the browser to sign in again: a cross-site navigation, which carries no
      // SameSite=Strict cookie, so a Strict CSRF cookie would have been replaced by a new one here.
      browser.crossSite = true;
      const login = await browser.go(`${authorizationUrl(issuer, 'elsewhere')}&prompt=login`);
      browser.crossSite = false;
      expect(h1(login)).toBe('Sign in');
      const answer = await post(browser, `${issuer}/account/sessions/others`, { csrf: tokenOf(home) });
      expect([answer.status, h1(answer)]).toEqual([200, 'Done']);
      const consent = await browser.submit(login, ALICE);
      expect(consent.redirectedTo ?? h1(consent)).toMatch(
        /^(?:http:\/\/localhost:8080\/callback\?code=|Allow access\?)/,
      );
    },
  );

  test('a password-reset form opened before signing in is accepted after signing in (the account forms without a session are not bound to one)', async () => {
    const issuer = await server('https');
    const browser = new Browser(issuer);
    const reset = await browser.go(`${issuer}/account/reset`);
    await signedIn(browser, issuer);
    const answer = await browser.submit(reset, { email: ALICE.email });
    expect([answer.status, h1(answer)]).toEqual([200, 'Check your e-mail']);
  });

  test('an /account form from before a sign-out is refused after signing in again: its token belonged to the old session', async () => {
    const issuer = await server('http');
    const browser = new Browser(issuer);
    const old = await signedIn(browser, issuer);
    const confirm = await browser.go(`${issuer}/session/end`);
    expect(h1(await browser.submit(confirm, {}, { name: 'logout', value: 'yes' }))).toBe('Signed out');
    const fresh = await signedIn(browser, issuer);
    const stale = await post(browser, `${issuer}/account/sessions/others`, { csrf: tokenOf(old) });
    expect([stale.status, h1(stale)]).toEqual([403, 'Please reload the page']);
    const answer = await post(browser, `${issuer}/account/sessions/others`, { csrf: tokenOf(fresh) });
    expect([answer.status, h1(answer)]).toEqual([200, 'Done']);
  });
});
