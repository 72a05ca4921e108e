import * as oidc from 'openid-client';
import { TestBrowser, type Page } from './browser.js';

export interface RelyingParty {
  config: oidc.Configuration;
  clientId: string;
  redirectUri: string;
}

/** A relying party built with openid-client from the server's discovery document. */
export async function relyingParty(
  issuer: string,
  opts: { clientId?: string; secret?: string; redirectUri?: string; basic?: boolean } = {},
): Promise<RelyingParty> {
  const clientId = opts.clientId ?? 'demo-web';
  const secret = opts.secret ?? 'demo-web-secret';
  const auth = opts.basic ? oidc.ClientSecretBasic(secret) : oidc.ClientSecretPost(secret);
  const config = await oidc.discovery(new URL(issuer), clientId, undefined, auth, {
    execute: [oidc.allowInsecureRequests],
  });
  return { config, clientId, redirectUri: opts.redirectUri ?? 'http://localhost:8080/callback' };
}

export interface AuthorizationStart {
  url: URL;
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** Builds an authorization request (code + PKCE S256, state, nonce) with openid-client. */
export async function startAuthorization(
  rp: RelyingParty,
  params: Record<string, string> = {},
): Promise<AuthorizationStart> {
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const state = params.state ?? oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(rp.config, {
    redirect_uri: rp.redirectUri,
    scope: 'openid',
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    nonce,
    ...params,
    state,
  });
  return { url, state, nonce, codeVerifier };
}

export interface BrowseOptions {
  email?: string;
  password?: string;
  /** `allow`, `deny`, or `none` to expect that no consent page appears. */
  consent?: 'allow' | 'deny' | 'none';
}

export interface BrowseResult {
  /** The URL the browser was finally sent to (outside the server), e.g. the client's callback. */
  callback: URL;
  /** The login and consent pages seen on the way. */
  loginPage?: Page;
  consentPage?: Page;
}

/** Drives the real login and consent HTML forms until the browser is sent back to the client. */
export async function browse(browser: TestBrowser, url: URL | string, opts: BrowseOptions = {}): Promise<BrowseResult> {
  const result: Partial<BrowseResult> = {};
  let page = await browser.go(String(url));
  for (let step = 0; step < 4 && !page.redirectedTo; step++) {
    if (page.status !== 200)
      throw new Error(
        `unexpected ${page.status} at ${page.url}: ${page.dom.querySelector('main')?.text ?? page.body.slice(0, 300)}`,
      );
    if (page.dom.querySelector('input[name=password]')) {
      result.loginPage = page;
      page = await browser.submit(page, {
        email: opts.email ?? 'alice@example.com',
        password: opts.password ?? 'alice-demo-password',
      });
    } else if (page.dom.querySelector('button[name=decision]')) {
      if (opts.consent === 'none') throw new Error('a consent page appeared where none was expected');
      result.consentPage = page;
      page = await browser.submit(page, {}, { name: 'decision', value: opts.consent ?? 'allow' });
    } else {
      throw new Error(`unexpected page at ${page.url}: ${page.body.slice(0, 300)}`);
    }
  }
  if (!page.redirectedTo) throw new Error(`the browser was never sent back to the client (last status ${page.status})`);
  return { ...result, callback: new URL(page.redirectedTo) } as BrowseResult;
}

/** Full authorization code + PKCE flow with openid-client, through the real forms. Returns the token set. */
export async function signIn(
  issuer: string,
  rp: RelyingParty,
  opts: BrowseOptions & { params?: Record<string, string>; browser?: TestBrowser } = {},
) {
  const browser = opts.browser ?? new TestBrowser(issuer);
  const start = await startAuthorization(rp, opts.params);
  const seen = await browse(browser, start.url, opts);
  const tokens = await oidc.authorizationCodeGrant(rp.config, seen.callback, {
    pkceCodeVerifier: start.codeVerifier,
    expectedState: start.state,
    expectedNonce: start.nonce,
  });
  return { tokens, start, seen, browser };
}

export { oidc };
