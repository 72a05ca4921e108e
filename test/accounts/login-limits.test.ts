import { TestBrowser, type Page } from '../helpers/browser.js';
import { relyingParty, startAuthorization, type RelyingParty } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import type { PortcullisConfig } from '../../lib/index.js';

let srv: RunningServer;
let rp: RelyingParty;

async function start(extra: Partial<PortcullisConfig>) {
  srv = await startServer(extra);
  rp = await relyingParty(srv.issuer);
}
afterEach(() => srv.close());

const alert = (p: Page) => p.dom.querySelector('[role=alert]')?.text;
/** The login went through: the browser moved on to the consent page. */
const signedIn = (p: Page) => p.status === 200 && p.dom.querySelector('button[name=decision]') !== null;

async function loginPage(browser = new TestBrowser(srv.issuer)) {
  return { browser, page: await browser.go(String((await startAuthorization(rp)).url)) };
}

async function attempt(email: string, password: string) {
  const { browser, page } = await loginPage();
  return browser.submit(page, { email, password });
}

/** A wrong-password login whose proxy says it came from `ip` (`X-Forwarded-For`; the server runs with `proxy: true`). */
async function fromIp(ip: string) {
  const { browser, page } = await loginPage();
  const form = page.dom.querySelector('form')!;
  const body = new URLSearchParams({
    csrf: form.querySelector('input[name=csrf]')!.getAttribute('value')!,
    email: 'x@example.com',
    password: 'wrong-password',
  });
  return browser.request(new URL(form.getAttribute('action')!, srv.issuer).href, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': ip },
  });
}

describe('login rate limits', () => {
  test('per account: after the limit even the right password gets 429 with Retry-After; other accounts are unaffected', async () => {
    await start({ accountLimits: { loginPerAccount: { points: 3, durationSeconds: 600 } } });
    for (let i = 0; i < 3; i++) expect((await attempt('alice@example.com', 'wrong-password')).status).toBe(401);
    const locked = await attempt('ALICE@example.com', 'alice-demo-password');
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(locked.headers.get('retry-after'))).toBeLessThanOrEqual(600);
    expect(alert(locked)).toBe('Too many sign-in attempts. Please try again later.');
    expect(locked.dom.querySelector('input[name=password]')).not.toBeNull();
    expect(signedIn(await attempt('admin@example.com', 'admin-demo-password'))).toBe(true);
  });

  test('an unknown address is limited exactly like a known one (the limit reveals nothing)', async () => {
    await start({ accountLimits: { loginPerAccount: { points: 2, durationSeconds: 600 } } });
    const statuses = async (email: string) => {
      const out = [];
      for (let i = 0; i < 3; i++) out.push((await attempt(email, 'wrong-password')).status);
      return out;
    };
    expect(await statuses('alice@example.com')).toEqual([401, 401, 429]);
    expect(await statuses('nobody@example.com')).toEqual([401, 401, 429]);
  });

  test('a successful login resets the account counter', async () => {
    await start({ accountLimits: { loginPerAccount: { points: 3, durationSeconds: 600 } } });
    for (let i = 0; i < 2; i++) await attempt('alice@example.com', 'wrong-password');
    const ok = await attempt('alice@example.com', 'alice-demo-password');
    expect(signedIn(ok)).toBe(true);
    for (let i = 0; i < 2; i++) expect((await attempt('alice@example.com', 'wrong-password')).status).toBe(401);
    expect(signedIn(await attempt('alice@example.com', 'alice-demo-password'))).toBe(true);
  });

  test('per client IP: spraying many addresses from one IP is refused', async () => {
    await start({ accountLimits: { loginPerIp: { points: 4, durationSeconds: 600 } } });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await attempt(`user${i}@example.com`, 'Password123!')).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    expect((await attempt('alice@example.com', 'alice-demo-password')).status).toBe(429);
  });

  test('with proxy: true the limit follows X-Forwarded-For, so one client cannot exhaust another', async () => {
    await start({ proxy: true, accountLimits: { loginPerIp: { points: 1, durationSeconds: 600 } } });
    expect((await fromIp('198.51.100.1')).status).toBe(401);
    expect((await fromIp('198.51.100.1')).status).toBe(429);
    expect((await fromIp('198.51.100.2')).status).toBe(401);
    // The entry the proxy appended counts, not those the client wrote before it (proxyHops: 1).
    expect((await fromIp('192.0.2.1, 198.51.100.3')).status).toBe(401);
    expect((await fromIp('192.0.2.2, 198.51.100.3')).status).toBe(429);
  });

  // IPv6: one counter per /56 (one subscriber's networks), so the addresses of one's own network do not reset it.
  test.each([
    ['another address of the same /64', '2001:db8:0:1::1', '2001:db8:0:1::2', 429],
    ['another /64 of the same /56', '2001:db8:0:1::1', '2001:db8:0:ff:abcd::9', 429],
    ['a privacy address written in full', '2001:db8:0:1::1', '2001:0db8:0000:0001:8f2a:11ff:fe3c:0001', 429],
    ['another /56', '2001:db8:0:1::1', '2001:db8:0:100::1', 401],
    ['an IPv4-mapped address and its IPv4 form', '::ffff:198.51.100.7', '198.51.100.7', 429],
    ['two IPv4 addresses', '198.51.100.7', '198.51.100.8', 401],
  ])('with proxy: true, %s (%s, then %s): the second gets %i', async (_name, first, second, status) => {
    await start({ proxy: true, accountLimits: { loginPerIp: { points: 1, durationSeconds: 600 } } });
    expect((await fromIp(first)).status).toBe(401);
    expect((await fromIp(second)).status).toBe(status);
  });

  test.each([
    ['points below 1', { loginPerIp: { points: 0, durationSeconds: 60 } }, 'accountLimits.loginPerIp.points'],
    ['a missing duration', { loginPerAccount: { points: 5 } }, 'accountLimits.loginPerAccount.durationSeconds'],
    ['an unknown limit', { loginPerPlanet: { points: 5, durationSeconds: 60 } }, 'accountLimits.loginPerPlanet'],
  ])('a limit with %s is a configuration error naming its path', async (_name, accountLimits, path) => {
    await expect(startServer({ accountLimits } as never)).rejects.toMatchObject({ code: 'ERR_CONFIG_INVALID', path });
    srv = { close: async () => {} } as RunningServer;
  });
});
