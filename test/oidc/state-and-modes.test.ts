import { createHash } from 'node:crypto';
import { TestBrowser } from '../helpers/browser.js';
import { CHALLENGE, delivered, query } from '../helpers/authorization.js';
import { browse } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { PLAIN_TOKEN_DESCRIPTION } from '../../lib/oidc/authorization-rules.js';

/** SPEC rule 6 (RFC 6749 §4.1.2, §4.1.2.1): state comes back byte for byte, in every mode, in errors too. */

const CLIENT = { id: 'demo-web', uri: 'http://localhost:8080/callback' };
const STATES: Array<[string, string]> = [
  ['spaces', 'a b  c '],
  ['ampersand and equals', 'a&b=c&redirect_uri=https://attacker.example'],
  ['percent signs', '100% %20 %2F %zz'],
  ['slashes', '/path/to//x/'],
  ['non-ASCII', 'état ü 雪 😀'],
  ['plus and hash', 'a+b#c?d'],
  ['quotes and angle brackets', `"'<script>x</script>`],
  ['1 KiB', 'k'.repeat(1024)],
];
const MODES = ['query', 'fragment', 'form_post', 'web_message'] as const;

let srv: RunningServer;
beforeAll(async () => {
  srv = await startServer({ webMessageResponseMode: true });
});
afterAll(() => srv.close());

function authorize(params: Record<string, string>) {
  return `${srv.issuer}/authorization?${query({
    client_id: CLIENT.id,
    response_type: 'code',
    redirect_uri: CLIENT.uri,
    scope: 'openid',
    nonce: 'n',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    ...params,
  })}`;
}

describe('state in successful responses', () => {
  let browser: TestBrowser;
  beforeAll(async () => {
    // One signed-in session with remembered consent, so each row is a single request.
    browser = new TestBrowser(srv.issuer);
    await browse(browser, authorize({ state: 'warm-up' }));
  });

  test.each(MODES.flatMap((mode) => STATES.map(([name, state]) => [mode, name, state] as const)))(
    'response_mode=%s, %s',
    async (mode, _name, state) => {
      const page = await browser.go(authorize({ state, response_mode: mode }));
      const out = delivered(page)!;
      expect(out).toBeDefined();
      expect(out.mode).toBe(mode);
      expect(out.target).toBe(CLIENT.uri);
      expect(out.params.code).toMatch(/.+/);
      expect(out.params.state).toBe(state);
    },
  );
});

describe('state in error responses', () => {
  test.each(MODES.flatMap((mode) => STATES.map(([name, state]) => [mode, name, state] as const)))(
    'response_mode=%s, %s (missing PKCE)',
    async (mode, _name, state) => {
      const page = await new TestBrowser(srv.issuer).go(
        authorize({ state, response_mode: mode, code_challenge: '', code_challenge_method: '' }),
      );
      const out = delivered(page)!;
      expect(out.mode).toBe(mode);
      expect(out.params).toMatchObject({ error: 'invalid_request', state });
      expect(out.params.code).toBeUndefined();
    },
  );

  test.each(STATES)('access_denied after Deny, %s', async (_name, state) => {
    const seen = await browse(new TestBrowser(srv.issuer), authorize({ state, scope: 'openid email' }), {
      consent: 'deny',
    });
    expect(seen.callback.searchParams.get('error')).toBe('access_denied');
    expect(seen.callback.searchParams.get('state')).toBe(state);
  });
});

describe('web_message is opt-in per deployment', () => {
  test('off by default: unsupported_response_mode, sent only to a valid redirect_uri, in the query', async () => {
    const local = await startServer();
    try {
      const url = `${local.issuer}/authorization?${query({ client_id: CLIENT.id, response_type: 'code', redirect_uri: CLIENT.uri, scope: 'openid', state: 'wm & s', response_mode: 'web_message', code_challenge: CHALLENGE, code_challenge_method: 'S256' })}`;
      const page = await new TestBrowser(local.issuer).go(url);
      expect(delivered(page)).toEqual({
        mode: 'query',
        target: CLIENT.uri,
        params: {
          error: 'unsupported_response_mode',
          error_description: 'unsupported response_mode requested',
          state: 'wm & s',
          iss: local.issuer,
        },
      });
      const bad = await new TestBrowser(local.issuer).go(
        url.replace(encodeURIComponent(CLIENT.uri), encodeURIComponent('https://attacker.example/cb')),
      );
      expect(bad.status).toBe(400);
      expect(bad.dom.querySelector('#error')?.text).toBe('invalid_redirect_uri');
      const discovery = (await (await fetch(`${local.issuer}/.well-known/openid-configuration`)).json()) as {
        response_modes_supported: string[];
      };
      expect(discovery.response_modes_supported).not.toContain('web_message');
    } finally {
      await local.close();
    }
  });

  test('on: bare response_type=token is refused in a web message too, with the pointer to code + PKCE', async () => {
    const page = await new TestBrowser(srv.issuer).go(
      `${srv.issuer}/authorization?${query({
        client_id: 'demo-spa',
        response_type: 'token',
        response_mode: 'web_message',
        redirect_uri: 'https://spa.demo.test/callback',
        scope: 'openid',
        state: 'wm',
      })}`,
    );
    expect(delivered(page)).toEqual({
      mode: 'web_message',
      target: 'https://spa.demo.test/callback',
      params: {
        error: 'unsupported_response_type',
        error_description: PLAIN_TOKEN_DESCRIPTION,
        state: 'wm',
        iss: srv.issuer,
      },
    });
  });

  test('on: the web message targets the registered redirect_uri only, and discovery lists the mode', async () => {
    const discovery = (await (await fetch(`${srv.issuer}/.well-known/openid-configuration`)).json()) as {
      response_modes_supported: string[];
    };
    expect(discovery.response_modes_supported).toContain('web_message');
    // Relay mode (web_message_uri) would post the response to another window: refused, never delivered.
    const page = await new TestBrowser(srv.issuer).go(
      authorize({ state: 's', response_mode: 'web_message', web_message_uri: 'https://attacker.example' }),
    );
    expect(page.status).toBe(400);
    expect(page.dom.querySelector('#error')?.text).toBe('invalid_request');
    expect(delivered(page)).toBeUndefined();
  });
});

/** The CSP source of the page's first inline script, as a browser computes it (CSP3 §2.3.1). */
function inlineScriptSource(html: string): string {
  const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1];
  if (script === undefined) throw new Error('no inline script on the page');
  return `'sha256-${createHash('sha256').update(script).digest('base64')}'`;
}

describe("oidc-provider's own pages carry the page security headers, and only their one inline script may run", () => {
  let signedIn: TestBrowser;
  beforeAll(async () => {
    signedIn = new TestBrowser(srv.issuer);
    await browse(signedIn, authorize({ state: 'warm-up' }));
  });
  test.each<[string, () => Promise<{ headers: Headers; body: string }>, { framable: boolean }]>([
    ['form_post answer', () => signedIn.go(authorize({ state: 's', response_mode: 'form_post' })), { framable: false }],
    [
      'form_post error',
      () => new TestBrowser(srv.issuer).go(authorize({ state: 's', response_mode: 'form_post', code_challenge: '' })),
      { framable: false },
    ],
    [
      'logout form without a session (GET /session/end)',
      () => new TestBrowser(srv.issuer).go(`${srv.issuer}/session/end`),
      { framable: false },
    ],
    // web_message posts to the window that opened or framed it: oidc-provider lifts the framing refusal, and the
    // opener policy goes with it.
    [
      'web_message answer',
      () => signedIn.go(authorize({ state: 's', response_mode: 'web_message' })),
      { framable: true },
    ],
    [
      'web_message refusal of a bare response_type=token (its description rewritten)',
      () =>
        new TestBrowser(srv.issuer).go(
          `${srv.issuer}/authorization?${query({
            client_id: 'demo-spa',
            response_type: 'token',
            response_mode: 'web_message',
            redirect_uri: 'https://spa.demo.test/callback',
            scope: 'openid',
            state: 'wm',
          })}`,
        ),
      { framable: true },
    ],
  ])('%s', async (_name, request, { framable }) => {
    const page = await request();
    const csp = page.headers.get('content-security-policy') ?? '';
    const scriptSrc = /script-src ([^;]*)/.exec(csp)?.[1]?.split(' ') ?? [];
    expect(scriptSrc).toContain(inlineScriptSource(page.body));
    expect(scriptSrc).not.toContain("'unsafe-inline'");
    expect(csp).toContain("default-src 'none'");
    expect({
      referrer: page.headers.get('referrer-policy'),
      nosniff: page.headers.get('x-content-type-options'),
      frameAncestors: /frame-ancestors 'none'/.test(csp),
      xFrame: page.headers.get('x-frame-options'),
      opener: page.headers.get('cross-origin-opener-policy'),
    }).toEqual({
      referrer: 'no-referrer',
      nosniff: 'nosniff',
      frameAncestors: !framable,
      xFrame: framable ? null : 'DENY',
      opener: framable ? null : 'same-origin',
    });
  });
});
