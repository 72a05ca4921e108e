import { register, WEB_CLIENT } from '../helpers/registration.js';
import { startServer, type RunningServer } from '../helpers/server.js';

// oidc-provider (8 and later) authenticates a client at the introspection and revocation endpoints with its
// token_endpoint_auth_method and drops introspection_endpoint_auth_method / revocation_endpoint_auth_method
// silently. Before this rule a client registered with introspection_endpoint_auth_method "none" got a 201, and
// every introspection it sent with its client_id alone was 401 invalid_client. A value other than the token
// endpoint's method is refused at registration and at RFC 7592 updates.
let srv: RunningServer;
beforeAll(async () => { srv = await startServer(); });
afterAll(async () => { await srv.close(); });

function differs(endpoint: string, value: string, tokenMethod: string): string {
  return `${endpoint}_endpoint_auth_method "${value}" differs from token_endpoint_auth_method "${tokenMethod}": this server authenticates a client at the ${endpoint} endpoint with its token_endpoint_auth_method, so ${endpoint} requests sent that way would always fail with invalid_client`;
}

const refused: Array<[string, Record<string, unknown>, string]> = [
  ['introspection "none" with the default client_secret_basic', { introspection_endpoint_auth_method: 'none' }, differs('introspection', 'none', 'client_secret_basic')],
  ['revocation "none" with the default client_secret_basic', { revocation_endpoint_auth_method: 'none' }, differs('revocation', 'none', 'client_secret_basic')],
  ['introspection "none" with client_secret_post', { token_endpoint_auth_method: 'client_secret_post', introspection_endpoint_auth_method: 'none' }, differs('introspection', 'none', 'client_secret_post')],
  ['introspection client_secret_post with client_secret_basic', { introspection_endpoint_auth_method: 'client_secret_post' }, differs('introspection', 'client_secret_post', 'client_secret_basic')],
  ['revocation client_secret_basic for a public client', { token_endpoint_auth_method: 'none', revocation_endpoint_auth_method: 'client_secret_basic' }, differs('revocation', 'client_secret_basic', 'none')],
];

async function post(path: string, form: Record<string, string>, basic?: [string, string]) {
  const res = await fetch(`${srv.issuer}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(basic ? { authorization: `Basic ${Buffer.from(basic.join(':')).toString('base64')}` } : {}) },
    body: new URLSearchParams(form),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Record<string, unknown> | undefined };
}

describe('introspection_endpoint_auth_method and revocation_endpoint_auth_method (RFC 7662 §2.1, RFC 7009 §2.1)', () => {
  test.each(refused)('%s is refused', async (_name, metadata, description) => {
    const res = await register(srv.issuer, { ...WEB_CLIENT, ...metadata });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client_metadata');
    expect(res.body.error_description).toContain(description);
  });

  test('an RFC 7592 update adding introspection_endpoint_auth_method "none" is refused', async () => {
    const created = await register(srv.issuer, WEB_CLIENT);
    const { registration_access_token: token, registration_client_uri: uri, client_id_issued_at: _i, client_secret_expires_at: _e, ...current } = created.body;
    const put = await fetch(uri as string, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token as string}` },
      body: JSON.stringify({ ...current, introspection_endpoint_auth_method: 'none' }),
    });
    expect(put.status).toBe(400);
    expect(await put.json()).toEqual({ error: 'invalid_client_metadata', error_description: expect.stringContaining(differs('introspection', 'none', 'client_secret_basic')) });
  });

  test('a public client may name "none" for both; its introspection and revocation then authenticate with client_id alone', async () => {
    const res = await register(srv.issuer, { ...WEB_CLIENT, token_endpoint_auth_method: 'none', introspection_endpoint_auth_method: 'none', revocation_endpoint_auth_method: 'none' });
    expect(res.status).toBe(201);
    const clientId = res.body.client_id as string;
    expect(await post('/token/introspection', { token: 'unknown-token', client_id: clientId })).toEqual({ status: 200, body: { active: false } });
    expect(await post('/token/revocation', { token: 'unknown-token', client_id: clientId })).toEqual({ status: 200, body: undefined });
  });

  test('a confidential client naming its own method is accepted and introspects with its secret', async () => {
    const res = await register(srv.issuer, { ...WEB_CLIENT, introspection_endpoint_auth_method: 'client_secret_basic' });
    expect(res.status).toBe(201);
    const auth: [string, string] = [res.body.client_id as string, res.body.client_secret as string];
    expect(await post('/token/introspection', { token: 'unknown-token' }, auth)).toEqual({ status: 200, body: { active: false } });
    // The trap the refusal closes: with the client_id alone the same client is not authenticated.
    expect(await post('/token/introspection', { token: 'unknown-token', client_id: auth[0] })).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });
});
