import { createHash } from 'node:crypto';
import { TestBrowser } from '../helpers/browser.js';
import { CHALLENGE, delivered, pushRequest, query } from '../helpers/authorization.js';
import { oidc, relyingParty } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * RFC 6749 §4.1.2.1 / §5.2: errors a relying party can cause come with an `error_description`. oidc-provider sends
 * `request_uri_not_supported` without one (found by driving PAR and the authorization endpoint with openid-client:
 * the relying party saw only the code, not that a pushed request's request_uri would have worked).
 */

const WEB = { id: 'demo-web', secret: 'demo-web-secret', uri: 'http://localhost:8080/callback' };
const BY_REFERENCE = 'https://rp.example/request.jwt';

let srv: RunningServer;
beforeAll(async () => {
  srv = await startServer({ webMessageResponseMode: true });
});
afterAll(() => srv?.close());

const params = (extra: Record<string, string> = {}) => ({
  client_id: WEB.id,
  response_type: 'code',
  redirect_uri: WEB.uri,
  scope: 'openid',
  state: 'st',
  nonce: 'n',
  code_challenge: CHALLENGE,
  code_challenge_method: 'S256',
  ...extra,
});
const authorize = (p: Record<string, string>) =>
  new TestBrowser(srv.issuer).go(`${srv.issuer}/authorization?${query(p)}`);
const cspHashes = (csp: string | null) => (csp ?? '').match(/'sha256-[^']+'/g) ?? [];
const scriptHash = (body: string) =>
  `'sha256-${createHash('sha256')
    .update(/<script>([\s\S]*?)<\/script>/.exec(body)?.[1] ?? '')
    .digest('base64')}'`;

describe('request_uri_not_supported and registration_not_supported carry an error_description in every place they go', () => {
  test.each([
    ['query', {}],
    ['fragment', { response_mode: 'fragment' }],
    ['form_post', { response_mode: 'form_post' }],
    ['web_message', { response_mode: 'web_message' }],
  ] as const)('authorization endpoint, response_mode %s', async (mode, extra) => {
    const page = await authorize(params({ ...extra, request_uri: BY_REFERENCE }));
    const out = delivered(page);
    expect(out).toMatchObject({
      mode,
      target: WEB.uri,
      params: { error: 'request_uri_not_supported', state: 'st', iss: srv.issuer },
    });
    expect(out!.params.error_description).toMatch(/^request_uri by reference is not supported .*RFC 9126/);
    if (mode === 'web_message')
      expect(cspHashes(page.headers.get('content-security-policy'))).toContain(scriptHash(page.body));
  });

  test('the error page (no redirect_uri to send it to) shows the description', async () => {
    const page = await authorize({ client_id: WEB.id, request_uri: BY_REFERENCE });
    expect(page.status).toBe(400);
    expect(page.dom.querySelector('#error')?.text).toBe('request_uri_not_supported');
    expect(page.dom.querySelector('#error_description')?.text).toMatch(/^request_uri by reference is not supported/);
  });

  test('the pushed authorization request endpoint answers JSON with the description', async () => {
    const res = await pushRequest(srv.issuer, WEB.id, WEB.secret, params({ request_uri: BY_REFERENCE }));
    expect(res).toEqual({
      status: 400,
      body: {
        error: 'request_uri_not_supported',
        error_description: expect.stringMatching(/^request_uri cannot be used in a pushed authorization request/),
      },
    });
  });

  test('openid-client sees the description (PAR and the authorization response)', async () => {
    const rp = await relyingParty(srv.issuer);
    const pushed = await oidc
      .buildAuthorizationUrlWithPAR(rp.config, params({ request_uri: BY_REFERENCE }))
      .catch((e: unknown) => e);
    expect(pushed).toMatchObject({
      error: 'request_uri_not_supported',
      error_description: expect.stringContaining('RFC 9126'),
    });
    const page = await authorize(params({ request_uri: BY_REFERENCE }));
    const answer = await oidc
      .authorizationCodeGrant(rp.config, new URL(page.redirectedTo!), {
        pkceCodeVerifier: 'x'.repeat(43),
        expectedState: 'st',
      })
      .catch((e: unknown) => e);
    expect(answer).toMatchObject({
      error: 'request_uri_not_supported',
      error_description: expect.stringContaining('RFC 9126'),
    });
  });

  // oidc-provider sends registration_not_supported (OpenID Connect Core §3.1.2.6) without a description too.
  test.each([
    ['query', {}],
    ['fragment', { response_mode: 'fragment' }],
    ['form_post', { response_mode: 'form_post' }],
  ] as const)('registration_not_supported, response_mode %s', async (mode, extra) => {
    const out = delivered(await authorize(params({ ...extra, registration: '{}' })));
    expect(out).toMatchObject({
      mode,
      target: WEB.uri,
      params: { error: 'registration_not_supported', state: 'st', iss: srv.issuer },
    });
    expect(out!.params.error_description).toMatch(
      /^the registration parameter .* is not supported: register the client beforehand/,
    );
  });

  test('registration_not_supported at the pushed authorization request endpoint', async () => {
    const res = await pushRequest(srv.issuer, WEB.id, WEB.secret, params({ registration: '{}' }));
    expect(res).toEqual({
      status: 400,
      body: {
        error: 'registration_not_supported',
        error_description: expect.stringMatching(/^the registration parameter .* is not supported/),
      },
    });
  });

  test('errors oidc-provider already describes keep their own description', async () => {
    const page = await authorize(params({ request_uri: 'urn:ietf:params:oauth:request_uri:forged' }));
    expect(delivered(page)?.params).toMatchObject({
      error: 'invalid_request_uri',
      error_description: 'request_uri is invalid, expired, or was already used',
    });
    const res = await pushRequest(srv.issuer, WEB.id, WEB.secret, params({ code_challenge_method: 'plain' }));
    expect(res.body).toEqual({
      error: 'invalid_request',
      error_description: 'not supported value of code_challenge_method',
    });
  });
});
