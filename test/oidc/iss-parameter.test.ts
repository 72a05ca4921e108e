import { TestBrowser } from '../helpers/browser.js';
import { CHALLENGE, delivered, query } from '../helpers/authorization.js';
import { browse } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';

/**
 * RFC 9207 §2: every authorization response, error responses included, carries `iss` equal to the issuer, in
 * every response mode. oidc-provider leaves it out of responses that carry an ID token (implicit and hybrid).
 */
const HYBRID = { id: 'iss-hybrid', secret: 'iss-hybrid-secret-0001', uri: 'https://hybrid.example.com/cb' };
const RESPONSE_TYPES = ['code', 'id_token', 'id_token token', 'code id_token'] as const;
const MODES = ['query', 'fragment', 'form_post', 'web_message'] as const;
/** RFC 6749 §4.2.2 / OAuth Multiple Response Types §5: tokens are never put in the query. */
const allowed = (type: string, mode: string) => type === 'code' || mode !== 'query';

let srv: RunningServer;
let browser: TestBrowser;
beforeAll(async () => {
  srv = await startServer({
    webMessageResponseMode: true,
    clients: [
      ...demoFixtures().clients!,
      {
        client_id: HYBRID.id,
        client_secret: HYBRID.secret,
        redirect_uris: [HYBRID.uri],
        token_endpoint_auth_method: 'client_secret_post',
        grant_types: ['authorization_code', 'implicit'],
        response_types: [...RESPONSE_TYPES],
      },
    ],
  });
  // One signed-in session with remembered consent, so each row is a single request.
  browser = new TestBrowser(srv.issuer);
  await browse(browser, authorize({ response_type: 'code', state: 'warm-up' }));
});
afterAll(() => srv.close());

function authorize(params: Record<string, string | undefined>) {
  return `${srv.issuer}/authorization?${query({
    client_id: HYBRID.id,
    redirect_uri: HYBRID.uri,
    scope: 'openid',
    nonce: 'n',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    ...params,
  })}`;
}

describe('iss in successful authorization responses', () => {
  const rows = RESPONSE_TYPES.flatMap((type) =>
    MODES.filter((mode) => allowed(type, mode)).map((mode) => [type, mode] as const),
  );
  test.each(rows)('response_type=%s, response_mode=%s', async (type, mode) => {
    const out = delivered(await browser.go(authorize({ response_type: type, response_mode: mode, state: 'ok' })))!;
    expect(out).toMatchObject({ mode, target: HYBRID.uri });
    for (const part of type.split(' ')) expect(out.params[part === 'token' ? 'access_token' : part]).toMatch(/.+/);
    expect(out.params.state).toBe('ok');
    expect(out.params.iss).toBe(srv.issuer);
  });

  test('the default mode of an implicit response (fragment) carries iss too', async () => {
    const out = delivered(await browser.go(authorize({ response_type: 'id_token token', state: 'd' })))!;
    expect(out.mode).toBe('fragment');
    expect(out.params).toMatchObject({
      iss: srv.issuer,
      state: 'd',
      access_token: expect.any(String),
      id_token: expect.any(String),
    });
  });
});

describe('iss in error responses', () => {
  // Missing nonce for ID-token types, missing PKCE for code: each refused at the redirect_uri.
  const rows = RESPONSE_TYPES.flatMap((type) =>
    MODES.filter((mode) => allowed(type, mode)).map((mode) => [type, mode] as const),
  );
  test.each(rows)('response_type=%s, response_mode=%s, invalid_request', async (type, mode) => {
    const broken =
      type === 'code' ? { code_challenge: undefined, code_challenge_method: undefined } : { nonce: undefined };
    const out = delivered(
      await new TestBrowser(srv.issuer).go(
        authorize({ response_type: type, response_mode: mode, state: 'err', ...broken }),
      ),
    )!;
    expect(out).toMatchObject({ mode, target: HYBRID.uri });
    expect(out.params).toMatchObject({ error: 'invalid_request', state: 'err', iss: srv.issuer });
    expect(out.params.code ?? out.params.id_token ?? out.params.access_token).toBeUndefined();
  });

  test.each(['id_token', 'id_token token', 'code id_token'])(
    'response_type=%s with response_mode=query: refused (the error, holding no token, in the query), with iss',
    async (type) => {
      const out = delivered(
        await new TestBrowser(srv.issuer).go(authorize({ response_type: type, response_mode: 'query', state: 'q' })),
      )!;
      expect(out.mode).toBe('query');
      expect(out.params).toEqual({
        error: 'invalid_request',
        error_description: expect.stringMatching(/response_mode/),
        state: 'q',
        iss: srv.issuer,
      });
    },
  );

  test('access_denied after Deny carries iss', async () => {
    const seen = await browse(
      new TestBrowser(srv.issuer),
      authorize({ response_type: 'id_token token', state: 'deny', scope: 'openid email' }),
      { consent: 'deny' },
    );
    const fragment = new URLSearchParams(seen.callback.hash.slice(1));
    expect(Object.fromEntries(fragment)).toMatchObject({ error: 'access_denied', state: 'deny', iss: srv.issuer });
  });
});
