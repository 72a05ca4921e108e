import { demoFixtures } from '../../examples/demo-fixtures.js';
import { TestBrowser, type Page } from './browser.js';
import { relyingParty, signIn, type RelyingParty } from './flow.js';
import { Mailbox } from './mailbox.js';
import { startServer, type RunningServer } from './server.js';

/**
 * What the tests of sign-ins outliving a credential change share (test/mfa/parked-second-step.test.ts,
 * test/accounts/resume-after-change.test.ts): a client that requires a second factor, alice's demo credentials,
 * and a server with a mailbox and relying parties for the demo web client and that client.
 */
export const MFA_APP = {
  client_id: 'mfa-app',
  client_secret: 'mfa-app-secret-123',
  redirect_uris: ['http://localhost:8080/mfa-callback'],
  response_types: ['code' as const],
  grant_types: ['authorization_code' as const],
  require_mfa: true,
};
export const ALICE = { email: 'alice@example.com', password: 'alice-demo-password' };
export const NEW_PASSWORD = 'a brand new passphrase';

/** A server with the demo fixtures, {@link MFA_APP} and mail to a fresh mailbox; close it and remove the mailbox after. */
export async function startWithMfaApp(): Promise<{
  srv: RunningServer;
  mailbox: Mailbox;
  web: RelyingParty;
  mfaApp: RelyingParty;
}> {
  const mailbox = await Mailbox.create();
  const srv = await startServer({ mail: { mailbox: mailbox.dir }, clients: [...demoFixtures().clients!, MFA_APP] });
  const web = await relyingParty(srv.issuer);
  const mfaApp = await relyingParty(srv.issuer, {
    clientId: MFA_APP.client_id,
    secret: MFA_APP.client_secret,
    redirectUri: MFA_APP.redirect_uris[0],
  });
  return { srv, mailbox, web, mfaApp };
}

/** Opens /account in a browser of its own, signing in with alice's password through `web`. */
export async function accountPage(issuer: string, web: RelyingParty): Promise<{ browser: TestBrowser; home: Page }> {
  const browser = new TestBrowser(issuer);
  await signIn(issuer, web, { browser });
  return { browser, home: await browser.go(`${issuer}/account`) };
}

/** Posts an /account form at `path` with the CSRF token of `home` and `fields`. */
export async function accountPost(
  browser: TestBrowser,
  home: Page,
  path: string,
  fields: Record<string, string> = {},
): Promise<Page> {
  const csrf = home.dom.querySelector('input[name=csrf]')!.getAttribute('value')!;
  return browser.go(new URL(path, home.url).href, {
    method: 'POST',
    body: new URLSearchParams({ csrf, ...fields }),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}
