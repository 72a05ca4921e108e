import { createHash } from 'node:crypto';
import { SignJWT } from 'jose';
import { parse } from 'node-html-parser';
import type { Page } from './browser.js';

/** A fixed PKCE `code_verifier` (RFC 7636 §4.1: 43–128 unreserved characters) and its S256 `code_challenge`. */
export const VERIFIER = 'portcullis-test-code-verifier-0123456789-abcdefgh';
export const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

export type Params = Record<string, string | string[] | undefined>;

/** Query string with repeated keys for array values, omitting undefined ones. */
export function query(params: Params): string {
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    for (const item of Array.isArray(v) ? v : [v]) out.append(k, item);
  }
  return out.toString();
}

/** A JAR request object (RFC 9101) signed HS256 with the client secret. Array values stay arrays (duplicates). */
export async function requestObject(issuer: string, clientId: string, secret: string, params: Params): Promise<string> {
  const claims = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined));
  return new SignJWT({ client_id: clientId, ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer(clientId)
    .setAudience(issuer)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(secret));
}

/** Pushes an authorization request (RFC 9126) with client_secret_post; returns status and JSON body. */
export async function pushRequest(issuer: string, clientId: string, secret: string, params: Params) {
  const res = await fetch(`${issuer}/request`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: query({ ...params, client_id: clientId, client_secret: secret }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

/** The authorization response parameters delivered to the client, whatever the response mode. */
export interface Delivered {
  mode: 'query' | 'fragment' | 'form_post' | 'web_message';
  /** Where the response went: the redirect target, the form's action or the web message's target. */
  target: string;
  params: Record<string, string>;
}

/**
 * Reads an authorization response: a redirect (query or fragment), an auto-submitting form (form_post) or a
 * web message page. Returns undefined for anything else (an error page of the server).
 */
export function delivered(page: Page & { redirectedTo?: string }): Delivered | undefined {
  if (page.redirectedTo) {
    const url = new URL(page.redirectedTo);
    if (url.hash.length > 1)
      return {
        mode: 'fragment',
        target: url.origin + url.pathname,
        params: Object.fromEntries(new URLSearchParams(url.hash.slice(1))),
      };
    return { mode: 'query', target: url.origin + url.pathname, params: Object.fromEntries(url.searchParams) };
  }
  const form = page.dom.querySelector('form[method=post]');
  if (form && page.body.includes('Submitting Callback')) {
    const params: Record<string, string> = {};
    for (const input of form.querySelectorAll('input[type=hidden]'))
      params[input.getAttribute('name')!] = input.getAttribute('value') ?? '';
    return { mode: 'form_post', target: form.getAttribute('action')!, params };
  }
  const data = /var data = (\{.*\});/.exec(page.body);
  if (data && page.body.includes('Web Message Response')) {
    const parsed = JSON.parse(data[1]!) as { response: Record<string, string>; redirect_uri: string };
    return { mode: 'web_message', target: parsed.redirect_uri, params: parsed.response };
  }
  return undefined;
}

/** The `error` shown on the server's own error page, if the page is one. */
export function errorOnPage(page: Page): string | undefined {
  return parse(page.body).querySelector('#error')?.text;
}
