import type { PasskeyAccountStore } from '../../lib/core/account-store.js';
import { MAX_PENDING_CHALLENGES } from '../../lib/features/passkeys/challenges.js';
import { TestBrowser, type Page } from '../helpers/browser.js';
import { relyingParty, startAuthorization } from '../helpers/flow.js';
import { deletePrefix, REDIS_URL, redisAvailable, uniquePrefix } from '../helpers/redis.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { SoftAuthenticator } from '../helpers/webauthn.js';

/**
 * One WebAuthn challenge per page, over real HTTP with a software authenticator (test/helpers/webauthn.ts): each
 * page of a binding (the account page's session, a sign-in's interaction) gets its own challenge and keeps it
 * while later pages of the same binding are shown, up to MAX_PENDING_CHALLENGES, each still single use and
 * expiring. Before, every page replaced the binding's one challenge, so registering from the first of two open
 * `/account/passkeys` tabs (or using the passkey on a login page shown again) was refused with 400 "expired".
 * Memory and Redis storage.
 */
const redis = await redisAvailable();
const storages: Array<[string, () => Record<string, unknown>]> = [['memory', () => ({})]];
const prefixes: string[] = [];
if (redis) {
  storages.push([
    'redis',
    () => {
      const keyPrefix = uniquePrefix('passkey-challenges');
      prefixes.push(keyPrefix);
      return { storage: { type: 'redis' as const, url: REDIS_URL, keyPrefix } };
    },
  ]);
}
afterAll(async () => {
  for (const p of prefixes) await deletePrefix(p);
});
/** An issuer on `localhost` (an IP address is never a WebAuthn relying-party ID). */
const local = (address: string) => address.replace('127.0.0.1', 'localhost');

const form = (page: Page, id: string) => {
  const found = page.dom.querySelector(`#${id}`);
  if (!found) throw new Error(`no #${id} on ${page.url} (${page.status}): ${page.body.slice(0, 300)}`);
  return found;
};
/** The WebAuthn options a page's passkey form embeds (`data-options`). */
const optionsOf = (page: Page, id: string) => JSON.parse(form(page, id).getAttribute('data-options')!) as Options;
type Options = { challenge: string };
const text = (page: Page, selector: string) => page.dom.querySelector(selector)?.text.trim();

/** Posts `credential` through the page's passkey form `id` (its CSRF token); follows redirects unless `follow`. */
async function postCredential(browser: TestBrowser, page: Page, id: string, credential: string, follow = true) {
  const f = form(page, id);
  const csrf = f.querySelector('input[name=csrf]')!.getAttribute('value')!;
  const body = new URLSearchParams({ csrf, credential, name: 'Key' });
  const init = { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } };
  const url = new URL(f.getAttribute('action')!, page.url).href;
  return follow ? browser.go(url, init) : browser.request(url, init);
}

/** Registers a new software authenticator's credential from the list `page` of `issuer`, without following the 303. */
function registerFrom(browser: TestBrowser, page: Page, issuer: string) {
  const credential = new SoftAuthenticator(issuer).create(optionsOf(page, 'passkey-register'));
  return postCredential(browser, page, 'passkey-register', credential, false);
}

describe.each(storages)('passkey challenges, one per page (%s storage)', (_name, storage) => {
  let srv: RunningServer;
  let issuer: string;
  let n = 0;
  beforeAll(async () => {
    srv = await startServer((address) => ({ ...storage(), issuer: local(address) }));
    issuer = srv.server.config.issuer;
  });
  afterAll(() => srv.close());

  const store = (on = srv) => on.server.accounts as PasskeyAccountStore;
  /** A new verified account of `on`; with `passkey`, that authenticator's credential is already registered to it. */
  async function newAccount(passkey?: SoftAuthenticator, on = srv) {
    const email = `pk-${++n}-${_name}@example.com`;
    const password = 'a-passkey-test-password';
    const account = (await store(on).create({ email, password, claims: {} }))!;
    await store(on).markEmailVerified(account.id);
    if (passkey) {
      await store(on).savePasskey(account.id, {
        credentialId: passkey.credentialId.toString('base64url'),
        publicKey: passkey.coseKey.toString('base64url'),
        counter: 0,
        name: 'Key',
        createdAt: Date.now(),
      });
    }
    return { id: account.id, email, password };
  }

  /** A browser signed in to `on`'s /account as a new account (password only). */
  async function signedIn(on = srv) {
    const who = await newAccount(undefined, on);
    const at = on.server.config.issuer;
    const browser = new TestBrowser(at);
    const login = await browser.go(`${at}/account`);
    expect(text(await browser.submit(login, { email: who.email, password: who.password }), 'h1')).toBe('Your account');
    return { browser, who };
  }

  test('registration: two /account/passkeys pages each register once (the second first), not twice', async () => {
    const { browser, who } = await signedIn();
    const first = await browser.go(`${issuer}/account/passkeys`);
    const second = await browser.go(`${issuer}/account/passkeys`);
    expect(optionsOf(first, 'passkey-register').challenge).not.toBe(optionsOf(second, 'passkey-register').challenge);
    const [one, two] = [new SoftAuthenticator(issuer), new SoftAuthenticator(issuer)];
    const fromSecond = two.create(optionsOf(second, 'passkey-register'));
    const fromFirst = one.create(optionsOf(first, 'passkey-register'));
    const added = [200, 'The passkey was added.', undefined];
    const answer = (page: Page) => [page.status, text(page, '#notice'), text(page, '#error')];
    expect(answer(await postCredential(browser, second, 'passkey-register', fromSecond))).toEqual(added);
    expect(answer(await postCredential(browser, first, 'passkey-register', fromFirst))).toEqual(added);
    const expired = [400, undefined, 'The request to add a passkey expired. Try again.'];
    expect(answer(await postCredential(browser, first, 'passkey-register', fromFirst))).toEqual(expired);
    expect(answer(await postCredential(browser, second, 'passkey-register', fromSecond))).toEqual(expired);
    expect((await store().listPasskeys(who.id)).length).toBe(2);
  });

  test(`registration: the last ${MAX_PENDING_CHALLENGES} pages stay usable; the one before is dropped`, async () => {
    const { browser } = await signedIn();
    const pages: Page[] = [];
    for (let i = 0; i <= MAX_PENDING_CHALLENGES; i++) pages.push(await browser.go(`${issuer}/account/passkeys`));
    // Each answer is taken without following its redirect: every list page shown issues a challenge of its own.
    const register = (page: Page) => registerFrom(browser, page, issuer);
    const kept = await register(pages[1]!);
    expect([kept.status, kept.headers.get('location')]).toEqual([303, '/account/passkeys?done=added']);
    const oldest = await register(pages[0]!);
    expect([oldest.status, text(oldest, '#error')]).toEqual([400, 'The request to add a passkey expired. Try again.']);
  });

  test("registration: two pages' challenges both expire after passkeys.challengeTtl", async () => {
    const short = await startServer((address) => ({
      ...storage(),
      issuer: local(address),
      passkeys: { challengeTtl: 1 },
    }));
    try {
      const at = short.server.config.issuer;
      const { browser } = await signedIn(short);
      const pages = [await browser.go(`${at}/account/passkeys`), await browser.go(`${at}/account/passkeys`)];
      await new Promise((resolve) => setTimeout(resolve, 2100));
      for (const page of pages) {
        const res = await registerFrom(browser, page, at);
        expect([res.status, text(res, '#error')]).toEqual([400, 'The request to add a passkey expired. Try again.']);
      }
    } finally {
      await short.close();
    }
  });

  test("sign-in: the login page shown twice for one sign-in; each page's assertion works once", async () => {
    const key = new SoftAuthenticator(issuer);
    const who = await newAccount(key);
    const rp = await relyingParty(issuer);
    const browser = new TestBrowser(issuer);
    const first = await browser.go(String((await startAuthorization(rp)).url));
    const second = await browser.go(first.url);
    expect(second.url).toBe(first.url);
    const [a, b] = [optionsOf(first, 'passkey-signin'), optionsOf(second, 'passkey-signin')];
    expect(a.challenge).not.toBe(b.challenge);
    const fromFirst = key.get(a, who.id);
    const fromSecond = key.get(b, who.id);
    // Not following the 303 keeps the sign-in pending, so that every post reaches the challenge check.
    const status = async (page: Page, credential: string) => {
      const res = await postCredential(browser, page, 'passkey-signin', credential, false);
      return [res.status, text(res, '#passkey-error') || text(res, '#login-error') || undefined];
    };
    expect(await status(first, fromFirst)).toEqual([303, undefined]);
    expect(await status(first, fromFirst)).toEqual([400, 'The passkey sign-in expired. Try again.']);
    expect(await status(second, fromSecond)).toEqual([303, undefined]);
    expect(await status(second, fromSecond)).toEqual([400, 'The passkey sign-in expired. Try again.']);
  });

  test("second factor: the passkey step shown twice after the password; the first page's still works", async () => {
    const key = new SoftAuthenticator(issuer);
    const who = await newAccount(key);
    const rp = await relyingParty(issuer);
    const browser = new TestBrowser(issuer);
    const login = await browser.go(String((await startAuthorization(rp)).url));
    const first = await browser.submit(login, { email: who.email, password: who.password });
    expect(text(first, 'h1')).toBe('Confirm with your passkey');
    const second = await browser.go(login.url);
    expect(text(second, 'h1')).toBe('Confirm with your passkey');
    const [a, b] = [optionsOf(first, 'passkey-second-factor'), optionsOf(second, 'passkey-second-factor')];
    expect(a.challenge).not.toBe(b.challenge);
    const fromFirst = key.get(a, who.id);
    const res = await postCredential(browser, first, 'passkey-second-factor', fromFirst, false);
    expect(res.status).toBe(303);
    const replay = await postCredential(browser, first, 'passkey-second-factor', fromFirst, false);
    expect([replay.status, replay.body.includes('The passkey sign-in expired. Try again.')]).toEqual([400, true]);
  });
});
