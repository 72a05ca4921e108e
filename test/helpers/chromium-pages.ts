import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { Page } from 'playwright-core';
import { generate } from 'otplib';
import type { AccountStore } from '../../lib/core/account-store.js';
import { freePort } from './server.js';

/**
 * Helpers for the Chromium tests that walk the pages. Elements are found by id, name, role or form action, never
 * by their (translated) text.
 */

/** Collects CSP violations and uncaught page errors of `page` (Chromium reports both on the console / pageerror). */
export function watchViolations(page: Page): string[] {
  const violations: string[] = [];
  page.on('console', (msg) => {
    if (/Content Security Policy|Refused to/i.test(msg.text())) violations.push(`${page.url()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => violations.push(`${page.url()}: ${String(err)}`));
  return violations;
}

/**
 * A real HTTP server for the clients' redirect_uris (`origin` is http://localhost:PORT), answering every path with
 * a plain page, so the browser really arrives at the callback URL the test then hands to openid-client. (A
 * Playwright route on a host where nothing listens misses the redirect of a `page.goto` itself.)
 */
export async function startCallbackServer(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('client callback');
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    origin: `http://localhost:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Waits until the browser is at the client's callback `prefix`, and returns that URL. */
export async function arrivedAt(page: Page, prefix: string): Promise<URL> {
  await page.waitForURL((url) => url.href.startsWith(prefix));
  return new URL(page.url());
}

/** A new verified account with a unique address (each test its own, so tests never share state). */
export async function newAccount(accounts: AccountStore, label: string) {
  const email = `${label}-${randomBytes(4).toString('hex')}@example.com`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const account = await accounts.create({ email, password, claims: { name: `Tester ${label}` } });
  if (!account) throw new Error(`could not create ${email}`);
  await accounts.markEmailVerified(account.id);
  return { id: account.id, email, password };
}

/** The TOTP code of `secret`, `steps` time steps (30 s) from now, as an authenticator app would show it. */
export const totp = (secret: string, steps = 0) =>
  generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });

/** Selectors by structure: the submit button of the form holding a field named `name`. */
export const submitOf = (name: string) => `form:has([name="${name}"]) button[type=submit]`;
