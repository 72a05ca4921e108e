import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { demoFixtures } from '../../examples/demo-fixtures.js';
import { createServer, type PortcullisServer } from '../../lib/index.js';
import { browserSuite, launchChromium } from '../helpers/chromium.js';
import { freePort, withRunKeys } from '../helpers/server.js';

/**
 * Cookie tossing in a real Chromium, over real TLS: Portcullis at https://id.example.test, the attacker's page at
 * https://evil.example.test (a sibling host: same site, so SameSite cookies go along). The attacker signs in to
 * his own account page for a (cookie, token) pair; the victim, signed in, visits his page, which plants the
 * attacker's nonce as `portcullis.csrf` for the parent domain (and tries `__Host-portcullis.csrf` both ways) and
 * posts the attacker's token to "sign out other sessions". Chromium, not the test, decides which cookies it keeps
 * and sends. Names resolve to 127.0.0.1 (--host-resolver-rules); the certificate is a throw-away self-signed one.
 */
const ALICE = { email: 'alice@example.com', password: 'alice-demo-password' };
const ADMIN = { email: 'admin@example.com', password: 'admin-demo-password' };

/** The attacker's sibling host: `/plant` sets cookies for the victim's browser, `/attack` posts the forged form. */
function evilSite(target: string) {
  return (
    req: { url?: string },
    res: { writeHead(s: number, h: Record<string, string | string[]>): { end(b?: string): void } },
  ) => {
    const url = new URL(req.url ?? '/', 'https://evil.example.test');
    const nonce = url.searchParams.get('nonce') ?? '';
    if (url.pathname === '/plant') {
      return res
        .writeHead(200, {
          'content-type': 'text/plain',
          'set-cookie': [
            // For the parent domain, and a more specific path so that it is sent before the victim's own.
            `portcullis.csrf=${nonce}; Domain=example.test; Path=/account/sessions; Secure; SameSite=None`,
            // A browser must refuse both: a __Host- cookie with a Domain, and cannot send a host-only one elsewhere.
            `__Host-portcullis.csrf=${nonce}; Domain=example.test; Path=/; Secure; SameSite=None`,
            `__Host-portcullis.csrf=${nonce}; Path=/; Secure; SameSite=None`,
          ],
        })
        .end('planted');
    }
    if (url.pathname === '/plant-session') {
      // The attacker's own signed-in session (value and signature) as the victim's, under each name it could have.
      const [value, sig] = [url.searchParams.get('value') ?? '', url.searchParams.get('sig') ?? ''];
      const cookies = ['_session', '__Host-portcullis.session'].flatMap((name) => [
        `${name}=${value}; Domain=example.test; Path=/; Secure; SameSite=None`,
        `${name}.sig=${sig}; Domain=example.test; Path=/; Secure; SameSite=None`,
      ]);
      return res.writeHead(200, { 'content-type': 'text/plain', 'set-cookie': cookies }).end('planted');
    }
    const token = url.searchParams.get('token') ?? '';
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<!DOCTYPE html><form id="f" method="post" action="${target}/account/sessions/others">
<input type="hidden" name="csrf" value="${token}"></form><script>document.getElementById('f').submit()</script>`);
  };
}

async function signIn(page: Page, issuer: string, who: { email: string; password: string }): Promise<void> {
  await page.goto(`${issuer}/account`);
  await page.fill('input[name=email]', who.email);
  await page.fill('input[name=password]', who.password);
  await page.click('button[type=submit]');
  await page.waitForURL(`${issuer}/account`);
}

browserSuite('a CSRF cookie planted by a sibling host (Chromium, https)', () => {
  let dir: string;
  let browser: Browser;
  let portcullis: PortcullisServer;
  const servers: Server[] = [];
  let issuer: string;
  let evil: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'portcullis-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=example.test',
        '-addext',
        'subjectAltName=DNS:*.example.test',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const tls = { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
    const [idPort, evilPort] = [await freePort(), await freePort()];
    issuer = `https://id.example.test:${idPort}`;
    evil = `https://evil.example.test:${evilPort}`;
    portcullis = await createServer(withRunKeys({ issuer, ...demoFixtures() }));
    for (const [port, listener] of [
      [idPort, portcullis.app.callback()],
      [evilPort, evilSite(issuer)],
    ] as const) {
      const server = createHttpsServer(tls, listener as never);
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      servers.push(server);
    }
    browser = await launchChromium(['--host-resolver-rules=MAP *.example.test 127.0.0.1']);
  });
  afterAll(async () => {
    await browser?.close();
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
    await portcullis?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const context = () => browser.newContext({ ignoreHTTPSErrors: true });

  test('the forged "sign out other sessions" is refused with 403 and the other session lives; the victim\'s own form works', async () => {
    const victim: BrowserContext = await context();
    const page = await victim.newPage();
    await signIn(page, issuer, ALICE);
    const otherDevice = await (await context()).newPage();
    await signIn(otherDevice, issuer, ALICE);

    const attacker = await (await context()).newPage();
    await signIn(attacker, issuer, ADMIN);
    const token = await attacker.getAttribute('input[name=csrf]', 'value');
    const nonce = (await attacker.context().cookies(`${issuer}/account`)).find((c) =>
      c.name.endsWith('portcullis.csrf'),
    )!.value;

    await page.goto(`${evil}/plant?nonce=${nonce}`);
    const answer = page.waitForResponse((r) => r.url() === `${issuer}/account/sessions/others`);
    await page.goto(`${evil}/attack?token=${token}`);
    expect((await answer).status()).toBe(403);
    expect(await page.textContent('h1')).toBe('Please reload the page');
    // What Chromium sent: the victim's own __Host- cookie and the parent-domain one; neither planted __Host- cookie.
    const held = (await victim.cookies(`${issuer}/account/sessions/others`)).filter((c) =>
      c.name.endsWith('portcullis.csrf'),
    );
    expect(held.map((c) => [c.name, c.domain, c.value === nonce]).sort()).toEqual([
      ['__Host-portcullis.csrf', 'id.example.test', false],
      ['portcullis.csrf', '.example.test', true],
    ]);

    await otherDevice.goto(`${issuer}/account`);
    expect(await otherDevice.textContent('h1')).toBe('Your account');
    await page.goto(`${issuer}/account`);
    await page.click('#sign-out-others');
    expect(await page.textContent('h1')).toBe('Done');
    await otherDevice.goto(`${issuer}/account`);
    expect(await otherDevice.textContent('h1')).toBe('Sign in');
  });

  test("a session cookie planted by the sibling host does not sign the victim in to the attacker's account (login CSRF)", async () => {
    const attacker = await (await context()).newPage();
    await signIn(attacker, issuer, ADMIN);
    const held = await attacker.context().cookies(`${issuer}/account`);
    const session = held.find((c) => /session$/.test(c.name))!;
    const sig = held.find((c) => c.name === `${session.name}.sig`)!;
    // On this https issuer at the host's root the session cookie carries the __Host- prefix.
    expect([session.name, session.secure, session.path, session.domain]).toEqual([
      '__Host-portcullis.session',
      true,
      '/',
      'id.example.test',
    ]);

    const victim = await (await context()).newPage();
    await victim.goto(`${evil}/plant-session?value=${session.value}&sig=${sig.value}`);
    await victim.goto(`${issuer}/account`);
    expect(await victim.textContent('h1')).toBe('Sign in');
    expect(await victim.content()).not.toContain(ADMIN.email);
  });
});
