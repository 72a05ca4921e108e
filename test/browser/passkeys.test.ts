import type { Browser, BrowserContext, CDPSession, Page, Route } from 'playwright-core';
import { browserSuite, launchChromium } from '../helpers/chromium.js';
import { relyingParty, startAuthorization, oidc, type RelyingParty } from '../helpers/flow.js';
import { freePort, startServer, type RunningServer } from '../helpers/server.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { PasskeyAccountStore } from '../../lib/core/account-store.js';
import { createHash } from 'node:crypto';
import { pino } from 'pino';
import { deletePrefix, REDIS_URL, redisAvailable, uniquePrefix } from '../helpers/redis.js';

/**
 * Passkeys end to end in headless Chromium with the Chrome DevTools Protocol virtual authenticator (CTAP2,
 * internal transport, resident keys, user verification): register from /account/passkeys after a password
 * sign-in, sign out, sign in with the passkey, and the ID token's amr/acr; the passkey as a second factor; and
 * refusals of a replayed, re-targeted or tampered response. The issuer is http://localhost:PORT: an IP address is
 * never a WebAuthn relying-party ID. Run on memory and on Redis storage (accounts, passkeys and challenges there).
 */
const redis = await redisAvailable();
const storages: Array<[string, () => Record<string, unknown>]> = [['memory', () => ({})]];
const prefixes: string[] = [];
if (redis) {
  storages.push([
    'redis',
    () => {
      const keyPrefix = uniquePrefix('passkeys');
      prefixes.push(keyPrefix);
      return { storage: { type: 'redis' as const, url: REDIS_URL, keyPrefix } };
    },
  ]);
}
/** A CTAP2 platform authenticator with resident keys that verifies the user. */
const AUTHENTICATOR = {
  protocol: 'ctap2',
  transport: 'internal',
  hasResidentKey: true,
  hasUserVerification: true,
  isUserVerified: true,
} as const;
/** Several sign-ins per test, each a few hundred ms; generous on a shared machine. */
const TIMEOUT = 120_000;

browserSuite.each(storages)(
  'passkeys in headless Chromium (CDP virtual authenticator, %s storage)',
  (_storageName, storage) => {
    let browser: Browser;
    let srv: RunningServer;
    let issuer: string;
    /** The client's redirect_uri: a real HTTP server here (the browser really leaves the issuer). */
    let callbackServer: Server;
    let redirectUri: string;
    const logLines: string[] = [];
    /** The reasons the server logged for refused assertions since `from`. */
    const refusals = (from: number) =>
      logLines
        .slice(from)
        .map((l) => JSON.parse(l) as { msg: string; reason?: string })
        .filter((l) => l.msg === 'passkey assertion refused')
        .map((l) => l.reason);
    /**
     * Exactly one assertion was refused since `from`, for `reason`: the page's script posts one assertion per page
     * (a conditional request superseded by the button's is ignored even if it still settles).
     */
    const expectRefusals = (from: number, reason: RegExp) => {
      const seen = refusals(from);
      expect(seen).toEqual([expect.stringMatching(reason)]);
    };

    beforeAll(async () => {
      browser = await launchChromium();
      callbackServer = createHttpServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('client callback');
      });
      const port = await freePort();
      await new Promise<void>((resolve) => callbackServer.listen(port, '127.0.0.1', resolve));
      redirectUri = `http://localhost:${port}/callback`;
      srv = await startServer((address) => ({
        ...storage(),
        logger: pino(
          { level: 'info' },
          {
            write: (line: string) => {
              logLines.push(line);
            },
          },
        ),
        issuer: address.replace('127.0.0.1', 'localhost'),
        clients: demoFixtures().clients!.map((c) =>
          c.client_id === 'demo-web' ? { ...c, redirect_uris: [redirectUri] } : c,
        ),
      }));
      issuer = srv.server.config.issuer;
    });
    afterAll(async () => {
      await browser?.close();
      await srv?.close();
      await new Promise((resolve) => callbackServer?.close(resolve));
      for (const p of prefixes.splice(0)) await deletePrefix(p);
    });

    interface Session {
      context: BrowserContext;
      page: Page;
      cdp: CDPSession;
      authenticatorId: string;
      violations: string[];
      /** Every assertion the pages posted to a sign-in (`POST /interaction/<uid>/passkey`), in order. */
      assertions: string[];
    }

    /** A fresh browser profile with one virtual platform authenticator that verifies the user. */
    async function openSession(): Promise<Session> {
      const context = await browser.newContext();
      const page = await context.newPage();
      const violations: string[] = [];
      page.on('console', (msg) => {
        if (/Content Security Policy|Refused to/i.test(msg.text())) violations.push(msg.text());
      });
      const cdp = await context.newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: AUTHENTICATOR,
      });
      const assertions: string[] = [];
      context.on('request', (r) => {
        if (r.method() === 'POST' && /\/interaction\/[^/]+\/passkey$/.test(r.url())) assertions.push(r.url());
      });
      return { context, page, cdp, authenticatorId, violations, assertions };
    }

    /** Waits for the client callback, then exchanges the code with openid-client; returns the ID token claims. */
    async function finish(s: Session, rp: RelyingParty, start: Awaited<ReturnType<typeof startAuthorization>>) {
      await s.page.waitForURL((url) => url.href.startsWith(redirectUri));
      const tokens = await oidc.authorizationCodeGrant(rp.config, new URL(s.page.url()), {
        pkceCodeVerifier: start.codeVerifier,
        expectedState: start.state,
        expectedNonce: start.nonce,
      });
      return tokens.claims()!;
    }

    async function passwordSignIn(s: Session, email: string, password: string) {
      const rp = await relyingParty(issuer, { redirectUri });
      const start = await startAuthorization(rp, { scope: 'openid email' });
      await s.page.goto(String(start.url));
      await s.page.fill('input[name=email]', email);
      await s.page.fill('input[name=password]', password);
      await s.page.click('button[type=submit]:has-text("Sign in")');
      return { rp, start };
    }

    async function allowIfAsked(s: Session) {
      await s.page.waitForURL((url) => url.href.startsWith(redirectUri) || url.pathname.startsWith('/interaction/'));
      if (!s.page.url().startsWith(redirectUri) && (await s.page.locator('button[value=allow]').count()))
        await s.page.click('button[value=allow]');
    }

    async function registerPasskey(s: Session, name: string) {
      await s.page.goto(`${issuer}/account/passkeys`);
      await s.page.fill('#passkey-name', name);
      await s.page.click('#add-passkey');
      await s.page.waitForSelector('#notice');
      expect(await s.page.textContent('#notice')).toBe('The passkey was added.');
    }

    /** Without a session, /account/passkeys (the /account guard) sends the browser to the login page, not the list. */
    async function expectSentToSignIn(s: Session) {
      // The authenticator would answer the login page's conditional request (autofill) by itself and sign in again:
      // hold it while looking at the page.
      await s.cdp.send('WebAuthn.setAutomaticPresenceSimulation', {
        authenticatorId: s.authenticatorId,
        enabled: false,
      });
      try {
        await s.page.goto(`${issuer}/account/passkeys`);
        expect(new URL(s.page.url()).pathname).toMatch(/^\/interaction\//);
        expect(await s.page.locator('#passkey-register').count()).toBe(0);
        expect(await s.page.locator('input[name=password]').count()).toBe(1);
      } finally {
        await s.cdp.send('WebAuthn.setAutomaticPresenceSimulation', {
          authenticatorId: s.authenticatorId,
          enabled: true,
        });
      }
    }

    async function signOut(s: Session) {
      await s.page.goto(`${issuer}/session/end`);
      await s.page.click('button[value=yes]');
      await s.page.waitForLoadState();
      await expectSentToSignIn(s);
    }

    const store = () => srv.server.accounts as PasskeyAccountStore;
    /** Whether the virtual authenticator answers by itself (user presence and verification simulated). */
    const presence = (s: Session, enabled: boolean) =>
      s.cdp.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId: s.authenticatorId, enabled });

    /** Password sign-in, then a passkey registered from /account/passkeys, then sign-out. */
    async function enrol(s: Session, email: string, password: string, name: string) {
      const first = await passwordSignIn(s, email, password);
      await allowIfAsked(s);
      expect((await finish(s, first.rp, first.start)).amr).toEqual(['pwd']);
      await registerPasskey(s, name);
      await signOut(s);
    }

    /**
     * Opens the login page of a new authorization request with the authenticator not answering by itself, so the
     * autofill request stays pending; {@link clickPasskey} lets it answer the button only.
     */
    async function loginPageWithoutAutofill(s: Session) {
      const rp = await relyingParty(issuer, { redirectUri });
      // prompt=login: the login page even if a pending autofill request of the previous page signed the browser in
      // after its presence was switched back on (the race behind a rare timeout here).
      const start = await startAuthorization(rp, { scope: 'openid email', prompt: 'login' });
      await presence(s, false);
      // Leave the previous page first: its script (an autofill answer already on its way) may still navigate, which
      // interrupts a navigation of ours. On about:blank no script of ours runs, so the next navigation is the test's.
      for (let attempt = 0; ; attempt++) {
        try {
          await s.page.goto('about:blank');
          break;
        } catch (err) {
          if (attempt >= 5 || !/interrupted by another navigation/.test(String(err))) throw err;
          await s.page.waitForLoadState();
        }
      }
      await s.page.goto(String(start.url));
      await s.page.waitForSelector('#passkey-button', { state: 'visible' });
      return { rp, start };
    }

    /**
     * Clicks the passkey button with the authenticator answering; returns the answer to the passkey POST, after
     * checking that the click posted exactly one assertion. The authenticator answers this click only: presence
     * goes off while the POST is held, before the server can answer, so the page that follows (a refusal shows the
     * login page again, whose autofill request starts at once) finds it off. Before, presence went off once the
     * test saw the request leave, and on a busy machine the next page's autofill could be answered first, posting a
     * second assertion (seen as a second counter refusal: "Response counter value 7 was lower than expected 1003").
     */
    async function clickPasskey(s: Session) {
      const before = s.assertions.length;
      const holdPresence = async (route: Route) => {
        await presence(s, false);
        await route.fallback();
      };
      await s.page.route('**/interaction/*/passkey', holdPresence);
      try {
        await presence(s, true);
        const answered = s.page.waitForResponse((r) => r.url().endsWith('/passkey') && r.request().method() === 'POST');
        await s.page.click('#passkey-button');
        const answer = await answered;
        // Whatever page comes next has loaded and had time to start (and, were presence on, settle) its own request.
        await s.page.waitForLoadState('load');
        await s.page.waitForTimeout(300);
        expect(s.assertions.length - before).toBe(1);
        return answer;
      } finally {
        await s.page.unroute('**/interaction/*/passkey', holdPresence);
      }
    }

    test(
      'register from /account/passkeys, sign out, sign in through the autofill (conditional UI): amr hwk+user+mfa, acr mfa; no CSP violation',
      async () => {
        const s = await openSession();
        await expectSentToSignIn(s);

        const first = await passwordSignIn(s, 'alice@example.com', 'alice-demo-password');
        await allowIfAsked(s);
        expect((await finish(s, first.rp, first.start)).amr).toEqual(['pwd']);
        await registerPasskey(s, 'My laptop');
        expect(await s.page.locator('li.passkey').count()).toBe(1);
        expect(await s.page.textContent('li.passkey .passkey-name')).toBe('My laptop');
        expect(await s.page.textContent('li.passkey .last-used')).toBe('never');
        const { credentials } = await s.cdp.send('WebAuthn.getCredentials', { authenticatorId: s.authenticatorId });
        expect(credentials).toHaveLength(1);
        expect(credentials[0]!.isResidentCredential).toBe(true);
        expect(credentials[0]!.rpId).toBe('localhost');
        const [stored] = await store().listPasskeys('alice');
        expect(stored).toMatchObject({
          credentialId: Buffer.from(credentials[0]!.credentialId, 'base64').toString('base64url'),
          name: 'My laptop',
          deviceType: 'singleDevice',
        });
        await signOut(s);

        // The login page's conditional request: the browser offers the passkey in the e-mail field's autofill, and the
        // virtual authenticator (which answers by itself) picks it, so the page signs in without any click.
        const rp = await relyingParty(issuer, { redirectUri });
        const start = await startAuthorization(rp, { scope: 'openid email' });
        const posted = s.page.waitForRequest((r) => r.url().endsWith('/passkey') && r.method() === 'POST');
        await s.page.goto(String(start.url));
        await posted;
        await allowIfAsked(s);
        const claims = await finish(s, rp, start);
        expect(claims.sub).toBe('alice');
        expect(claims.amr).toEqual(['hwk', 'user', 'mfa']);
        expect(claims.acr).toBe('urn:portcullis:mfa');

        // Last use and the new signature count, in the store and on the page.
        const [used] = await store().listPasskeys('alice');
        expect(used!.lastUsedAt).toBeGreaterThanOrEqual(stored!.createdAt);
        expect(used!.counter).toBeGreaterThan(stored!.counter);
        await s.page.goto(`${issuer}/account/passkeys`);
        expect(await s.page.textContent('li.passkey .last-used')).not.toBe('never');
        expect(Number(await s.page.textContent('li.passkey .counter'))).toBe(used!.counter);

        expect(s.violations).toEqual([]);
        await s.context.close();
      },
      TIMEOUT,
    );

    test(
      'the "Sign in with a passkey" button; a replayed or re-targeted response and a counter going backwards are refused; the passkey as a second factor',
      async () => {
        const s = await openSession();
        await enrol(s, 'admin@example.com', 'admin-demo-password', 'Security key');
        const [registered] = await store().listPasskeys('admin');

        // The button (the autofill is kept from answering first).
        let flow = await loginPageWithoutAutofill(s);
        expect(await s.page.getAttribute('#email', 'autocomplete')).toBe('username webauthn');
        expect((await clickPasskey(s)).status()).toBe(303);
        await allowIfAsked(s);
        let claims = await finish(s, flow.rp, flow.start);
        expect(claims).toMatchObject({ sub: 'admin', amr: ['hwk', 'user', 'mfa'], acr: 'urn:portcullis:mfa' });
        await signOut(s);

        // The same response sent twice for one challenge: the first signs in, the copy finds no challenge.
        flow = await loginPageWithoutAutofill(s);
        const statuses: number[] = [];
        let captured: string | undefined;
        await s.page.route('**/interaction/*/passkey', async (route) => {
          captured = route.request().postData() ?? undefined;
          const original = await route.fetch({ maxRedirects: 0 });
          const copy = await route.fetch({ maxRedirects: 0 });
          statuses.push(original.status(), copy.status());
          expect(await copy.text()).toContain('The passkey sign-in expired. Try again.');
          await route.fulfill({ response: original });
        });
        await clickPasskey(s);
        await allowIfAsked(s);
        expect((await finish(s, flow.rp, flow.start)).sub).toBe('admin');
        expect(statuses).toEqual([303, 400]);
        await s.page.unroute('**/interaction/*/passkey');
        await signOut(s);

        // That old response posted to a new sign-in (with its fresh CSRF token): it names a challenge this sign-in never
        // had, so it finds none (no signature check, nothing logged) and leaves the page's own challenge unspent.
        flow = await loginPageWithoutAutofill(s);
        const oldCredential = new URLSearchParams(captured!).get('credential')!;
        let mark = logLines.length;
        const replay = await postPasskey(s.page, oldCredential);
        expect(refusals(mark)).toEqual([]);
        expect(replay.status).toBe(400);
        expect(replay.text).toContain('The passkey sign-in expired. Try again.');
        expect((await clickPasskey(s)).status()).toBe(303);
        await allowIfAsked(s);
        expect((await finish(s, flow.rp, flow.start)).sub).toBe('admin');
        await signOut(s);

        // A response whose client data names another origin (as a phishing site's would).
        flow = await loginPageWithoutAutofill(s);
        await s.page.route('**/interaction/*/passkey', async (route) => {
          const form = new URLSearchParams(route.request().postData()!);
          const credential = JSON.parse(form.get('credential')!);
          const clientData = JSON.parse(Buffer.from(credential.response.clientDataJSON, 'base64url').toString());
          expect(clientData.origin).toBe(issuer);
          clientData.origin = 'http://evil.localhost:8443';
          credential.response.clientDataJSON = Buffer.from(JSON.stringify(clientData)).toString('base64url');
          form.set('credential', JSON.stringify(credential));
          await route.continue({ postData: form.toString() });
        });
        mark = logLines.length;
        let answer = await clickPasskey(s);
        expect(answer.status()).toBe(401);
        expectRefusals(mark, /Unexpected authentication response origin/);
        await s.page.unroute('**/interaction/*/passkey');

        // Authenticator data for another RP ID (its SHA-256 is the first 32 bytes).
        flow = await loginPageWithoutAutofill(s);
        await s.page.route('**/interaction/*/passkey', async (route) => {
          const form = new URLSearchParams(route.request().postData()!);
          const credential = JSON.parse(form.get('credential')!);
          const data = Buffer.from(credential.response.authenticatorData, 'base64url');
          createHash('sha256').update('evil.localhost').digest().copy(data, 0);
          credential.response.authenticatorData = data.toString('base64url');
          form.set('credential', JSON.stringify(credential));
          await route.continue({ postData: form.toString() });
        });
        mark = logLines.length;
        answer = await clickPasskey(s);
        expect(answer.status()).toBe(401);
        expectRefusals(mark, /RP ID/);
        await s.page.unroute('**/interaction/*/passkey');

        // A signature counter below the one stored (a cloned authenticator, WebAuthn §6.1.1).
        const [current] = await store().listPasskeys('admin');
        await store().savePasskey('admin', { ...current!, counter: current!.counter + 1000 });
        flow = await loginPageWithoutAutofill(s);
        mark = logLines.length;
        answer = await clickPasskey(s);
        expect(answer.status()).toBe(401);
        expectRefusals(mark, /counter value \d+ was lower than expected \d+/);
        await store().savePasskey('admin', current!);
        expect((await store().listPasskeys('admin'))[0]!.credentialId).toBe(registered!.credentialId);

        // Second factor: the right password alone no longer signs in an account that has a passkey.
        flow = await loginPageWithoutAutofill(s);
        await s.page.fill('input[name=email]', 'admin@example.com');
        await s.page.fill('input[name=password]', 'admin-demo-password');
        await s.page.click('button[type=submit]:has-text("Sign in")');
        await s.page.waitForSelector('#passkey-second-factor', { state: 'visible' });
        expect(await s.page.textContent('h1')).toBe('Confirm with your passkey');
        expect((await clickPasskey(s)).status()).toBe(303);
        await allowIfAsked(s);
        claims = await finish(s, flow.rp, flow.start);
        expect(claims).toMatchObject({ sub: 'admin', amr: ['pwd', 'hwk', 'user', 'mfa'], acr: 'urn:portcullis:mfa' });

        expect(s.violations).toEqual([]);
        await s.context.close();
      },
      TIMEOUT,
    );

    // Under load (two cores shared by many test processes here), the refused click repeated: each one posts exactly
    // one assertion (clickPasskey counts them) and the server refuses exactly one, for the counter.
    describe('a refused passkey click posts one assertion, repeated', () => {
      let s: Session;
      beforeAll(async () => {
        s = await openSession();
        const password = 'frank-password-1234';
        const frank = (await store().create({ email: 'frank@example.com', password, claims: {} }))!;
        await store().markEmailVerified(frank.id);
        await enrol(s, 'frank@example.com', password, 'Key');
        const [key] = await store().listPasskeys(frank.id);
        await store().savePasskey(frank.id, { ...key!, counter: key!.counter + 1000 });
      }, TIMEOUT);
      afterAll(() => s?.context.close());

      test.each([1, 2, 3, 4, 5, 6])(
        'repetition %i: one POST, one counter refusal',
        async () => {
          await loginPageWithoutAutofill(s);
          const mark = logLines.length;
          const answer = await clickPasskey(s);
          expect(answer.status()).toBe(401);
          expectRefusals(mark, /counter value \d+ was lower than expected \d+/);
        },
        TIMEOUT,
      );
    });

    test(
      'two /account/passkeys tabs: each registers its passkey (the second first), each posting once',
      async () => {
        const s = await openSession();
        const erin = (await store().create({ email: 'erin@example.com', password: 'erin-password-1234', claims: {} }))!;
        await store().markEmailVerified(erin.id);
        const first = await passwordSignIn(s, 'erin@example.com', 'erin-password-1234');
        await allowIfAsked(s);
        await finish(s, first.rp, first.start);
        await s.page.goto(`${issuer}/account/passkeys`);
        // The second tab, with an authenticator of its own (a virtual authenticator belongs to one page).
        const tab = await s.context.newPage();
        const cdp = await s.context.newCDPSession(tab);
        await cdp.send('WebAuthn.enable');
        await cdp.send('WebAuthn.addVirtualAuthenticator', { options: AUTHENTICATOR });
        await tab.goto(`${issuer}/account/passkeys`);
        const posts: string[] = [];
        s.context.on('request', (r) => {
          if (r.method() === 'POST' && r.url().endsWith('/account/passkeys/register')) posts.push(r.url());
        });
        for (const [page, name] of [
          [tab, 'Second tab'],
          [s.page, 'First tab'],
        ] as const) {
          await page.bringToFront(); // WebAuthn answers the focused tab only
          await page.fill('#passkey-name', name);
          await page.click('#add-passkey');
          const outcome = '#notice, #error, #passkey-error:not([hidden])';
          await page.waitForSelector(outcome);
          expect(await page.locator(outcome).allTextContents()).toEqual(['The passkey was added.']);
        }
        expect(posts).toHaveLength(2);
        expect((await store().listPasskeys(erin.id)).map((p) => p.name)).toEqual(['Second tab', 'First tab']);
        expect(s.violations).toEqual([]);
        await s.context.close();
      },
      TIMEOUT,
    );

    test(
      'rename and delete from the list',
      async () => {
        const s = await openSession();
        const carol = (await store().create({
          email: 'carol@example.com',
          password: 'carol-password-123',
          claims: { name: 'Carol' },
        }))!;
        await store().markEmailVerified(carol.id);
        await enrol(s, 'carol@example.com', 'carol-password-123', 'Old name');
        // Signed in again (by the passkey, through the autofill) to manage them.
        const rp = await relyingParty(issuer, { redirectUri });
        const start = await startAuthorization(rp, { scope: 'openid email' });
        await s.page.goto(String(start.url));
        await allowIfAsked(s);
        await finish(s, rp, start);
        await s.page.goto(`${issuer}/account/passkeys`);
        const item = s.page.locator('li.passkey', { hasText: 'Old name' });
        await item.locator('form.rename input[name=name]').fill('New name');
        await item.locator('form.rename button').click();
        await s.page.waitForSelector('#notice');
        expect(await s.page.textContent('#notice')).toBe('The passkey was renamed.');
        expect(await s.page.locator('li.passkey .passkey-name', { hasText: 'New name' }).count()).toBe(1);
        expect((await store().listPasskeys(carol.id)).map((p) => p.name)).toEqual(['New name']);
        await s.page.locator('li.passkey', { hasText: 'New name' }).locator('form.delete button').click();
        await s.page.waitForSelector('#notice');
        expect(await s.page.textContent('#notice')).toBe('The passkey was deleted.');
        expect(await store().listPasskeys(carol.id)).toEqual([]);
        expect(await s.page.textContent('#no-passkeys')).toBe('You have no passkeys yet.');
        expect(s.violations).toEqual([]);
        await s.context.close();
      },
      TIMEOUT,
    );

    test(
      'in German (Accept-Language): the list page, and the script says in German that this device already holds a passkey',
      async () => {
        const s = await openSession();
        await s.page.setExtraHTTPHeaders({ 'Accept-Language': 'de' });
        const dora = (await store().create({
          email: 'dora@example.com',
          password: 'dora-password-1234',
          claims: { name: 'Dora' },
        }))!;
        await store().markEmailVerified(dora.id);
        await s.page.goto(`${issuer}/account/passkeys`);
        expect(await s.page.textContent('#passkey-button')).toBe('Mit einem Passkey anmelden');
        await s.page.fill('input[name=email]', 'dora@example.com');
        await s.page.fill('input[name=password]', 'dora-password-1234');
        await s.page.click('form:has(#password) button[type=submit]');
        await s.page.waitForURL((url) => url.pathname === '/account');
        await s.page.goto(`${issuer}/account/passkeys`);
        expect([
          await s.page.textContent('h2'),
          await s.page.inputValue('#passkey-name'),
          await s.page.textContent('#no-passkeys'),
        ]).toEqual(['Passkey hinzufügen', 'Passkey 1', 'Sie haben noch keine Passkeys.']);
        await s.page.click('#add-passkey');
        await s.page.waitForSelector('#notice');
        expect(await s.page.textContent('#notice')).toBe('Der Passkey wurde hinzugefügt.');
        // The same authenticator again: excluded (WebAuthn §6.3.2 step 3), InvalidStateError, the page's own words.
        await s.page.click('#add-passkey');
        await s.page.waitForSelector('#passkey-error:not([hidden])');
        expect(await s.page.textContent('#passkey-error')).toBe(
          'Auf diesem Gerät gibt es bereits einen Passkey für Ihr Konto.',
        );
        expect(await store().listPasskeys(dora.id)).toHaveLength(1);
        expect(s.violations).toEqual([]);
        await s.context.close();
      },
      TIMEOUT,
    );
  },
);

/** Posts `credential` with the login page's CSRF token to its passkey action, from the page (its cookies). */
async function postPasskey(page: Page, credential: string): Promise<{ status: number; text: string }> {
  const action = await page.getAttribute('#passkey-signin', 'action');
  const csrf = await page.getAttribute('#passkey-signin input[name=csrf]', 'value');
  const res = await page.request.post(new URL(action!, page.url()).href, {
    form: { csrf: csrf!, credential },
    maxRedirects: 0,
  });
  return { status: res.status(), text: await res.text() };
}
