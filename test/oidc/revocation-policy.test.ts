import { jest } from '@jest/globals';
import { demoFixtures } from '../../examples/demo-fixtures.js';
import { relyingParty, signIn } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * RFC 7009 §2.2: the revocation endpoint answers 200 for a token it does not revoke. A token issued to another
 * client is answered like an unknown one and left alive, so the answer does not tell a live token of another client
 * from a dead one. oidc-provider's default policy answered a confidential client 400 invalid_request for it.
 */

const OTHER = { client_id: 'other-web', client_secret: 'other-web-secret-0001' };
const CALLERS = {
  'its owner': { client_id: 'demo-web', client_secret: 'demo-web-secret' },
  'another confidential client': OTHER,
  'a public client': { client_id: 'demo-spa' },
} as const;

let srv: RunningServer;
const consoleCalls: unknown[][] = [];
beforeAll(async () => {
  // Installed before the first revocation: oidc-provider prints its NOTICE once per process, on first use.
  for (const method of ['log', 'info', 'warn', 'error'] as const) {
    jest.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      consoleCalls.push(args);
    });
  }
  const fixtures = demoFixtures();
  srv = await startServer({
    clients: [
      ...fixtures.clients!,
      {
        ...OTHER,
        client_name: 'Other web app',
        redirect_uris: ['http://localhost:8080/other'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
  });
});
afterAll(async () => {
  jest.restoreAllMocks();
  await srv.close();
});

function post(path: string, form: Record<string, string>) {
  return fetch(`${srv.issuer}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(form),
  });
}

/** Whether demo-web's token still works where its holder would use it. */
async function alive(kind: 'access_token' | 'refresh_token', token: string): Promise<boolean> {
  if (kind === 'access_token') {
    const userinfo = await fetch(`${srv.issuer}/userinfo`, { headers: { authorization: `Bearer ${token}` } });
    const introspected = (await (await post('/token/introspection', { token, ...CALLERS['its owner'] })).json()) as {
      active: boolean;
    };
    expect(introspected.active).toBe(userinfo.status === 200);
    return userinfo.status === 200;
  }
  const refreshed = await post('/token', {
    grant_type: 'refresh_token',
    refresh_token: token,
    ...CALLERS['its owner'],
  });
  if (refreshed.status !== 200) expect(await refreshed.json()).toMatchObject({ error: 'invalid_grant' });
  return refreshed.status === 200;
}

describe('revocation (RFC 7009 §2.2) of a token of demo-web', () => {
  test.each([
    ['its owner', 'access_token', false],
    ['its owner', 'refresh_token', false],
    ['another confidential client', 'access_token', true],
    ['another confidential client', 'refresh_token', true],
    ['a public client', 'access_token', true],
    ['a public client', 'refresh_token', true],
  ] as const)('%s revokes it (%s): 200 with an empty body; still alive: %s', async (caller, kind, stillAlive) => {
    const { tokens } = await signIn(srv.issuer, await relyingParty(srv.issuer), {
      params: { scope: 'openid offline_access' },
    });
    const token = tokens[kind]!;
    expect(token).toEqual(expect.any(String));
    const res = await post('/token/revocation', { token, token_type_hint: kind, ...CALLERS[caller] });
    expect({ status: res.status, body: await res.text() }).toEqual({ status: 200, body: '' });
    expect(await alive(kind, token)).toBe(stillAlive);
  });

  test.each(Object.keys(CALLERS) as Array<keyof typeof CALLERS>)(
    'an unknown token, sent by %s: 200 with an empty body',
    async (caller) => {
      const res = await post('/token/revocation', { token: 'no-such-token-0123456789abcdef', ...CALLERS[caller] });
      expect({ status: res.status, body: await res.text() }).toEqual({ status: 200, body: '' });
    },
  );

  test('no oidc-provider NOTICE or WARNING reached the console', () => {
    const printed = consoleCalls.map((args) => args.map(String).join(' '));
    expect(printed.filter((line) => /oidc-provider (NOTICE|WARNING)/.test(line))).toEqual([]);
  });
});
