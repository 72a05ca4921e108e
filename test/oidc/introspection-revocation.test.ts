import { relyingParty, signIn } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';

let srv: RunningServer;
beforeAll(async () => { srv = await startServer(); });
afterAll(() => srv.close());

function post(path: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${srv.issuer}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers }, body: new URLSearchParams(form) });
}
const demoAuth = { client_id: 'demo-web', client_secret: 'demo-web-secret' };

describe('token introspection (RFC 7662) and revocation (RFC 7009)', () => {
  test('an authenticated client introspects its access token; after revocation it is inactive', async () => {
    const { tokens } = await signIn(srv.issuer, await relyingParty(srv.issuer), { params: { scope: 'openid email' } });
    const active = await post('/token/introspection', { token: tokens.access_token, ...demoAuth });
    expect(active.status).toBe(200);
    expect(await active.json()).toMatchObject({ active: true, client_id: 'demo-web', sub: 'alice', scope: 'openid email', token_type: 'Bearer' });

    const revoked = await post('/token/revocation', { token: tokens.access_token, token_type_hint: 'access_token', ...demoAuth });
    expect(revoked.status).toBe(200);
    const after = await post('/token/introspection', { token: tokens.access_token, ...demoAuth });
    expect(await after.json()).toEqual({ active: false });
    const userinfo = await fetch(`${srv.issuer}/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(userinfo.status).toBe(401);
  });

  test.each([
    ['introspection without client authentication', '/token/introspection', { token: 'x' }, 400, 'invalid_request'],
    ['introspection with a wrong secret', '/token/introspection', { token: 'x', client_id: 'demo-web', client_secret: 'wrong-secret-000' }, 401, 'invalid_client'],
    ['revocation without client authentication', '/token/revocation', { token: 'x' }, 400, 'invalid_request'],
    ['revocation by an unknown client', '/token/revocation', { token: 'x', client_id: 'nobody', client_secret: 'whatever-000000' }, 401, 'invalid_client'],
  ])('%s is refused', async (_name, path, form, status, error) => {
    const res = await post(path, form as Record<string, string>);
    expect(res.status).toBe(status);
    const body = await res.json() as { error: string; error_description: string };
    expect(body.error).toBe(error);
    expect(body.error_description).toEqual(expect.any(String));
  });
});
