import { register, WEB_CLIENT } from '../helpers/registration.js';
import { startServer } from '../helpers/server.js';

function post(issuer: string, path: string, form: Record<string, string>) {
  return fetch(`${issuer}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: new URLSearchParams(form) });
}
const badSecret = { client_id: 'demo-web', client_secret: 'not-the-secret-0' };
const goodSecret = { client_id: 'demo-web', client_secret: 'demo-web-secret' };
/** A pushed authorization request (RFC 9126) the demo client may make: 201 with the right secret. */
const PAR_FORM = { response_type: 'code', scope: 'openid', redirect_uri: 'http://localhost:8080/callback', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' };

describe('per-IP rate limits', () => {
  test.each([
    ['token', '/token', { grant_type: 'authorization_code', code: 'x', redirect_uri: 'http://localhost:8080/callback' }],
    ['introspection', '/token/introspection', { token: 'x' }],
    ['revocation', '/token/revocation', { token: 'x' }],
    ['pushed authorization request', '/request', PAR_FORM],
  ])('failed client authentications at the %s endpoint: 429 with Retry-After once the budget is spent, for every endpoint', async (_name, path, form) => {
    const srv = await startServer({ rateLimits: { clientAuthFailures: { points: 3, durationSeconds: 60 } } });
    try {
      for (let i = 0; i < 3; i++) expect((await post(srv.issuer, path, { ...form, ...badSecret })).status).toBe(401);
      for (const target of ['/token', '/token/introspection', '/token/revocation', '/request']) {
        // The right secret too: a blocked address cannot use any of them to test secrets.
        const limited = await post(srv.issuer, target, { token: 'x', ...(target === '/request' ? PAR_FORM : {}), ...goodSecret });
        expect(limited.status).toBe(429);
        expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(await limited.json()).toMatchObject({ error: 'temporarily_unavailable' });
      }
    } finally {
      await srv.close();
    }
  });

  test('successful client authentications are not counted', async () => {
    const srv = await startServer({ rateLimits: { clientAuthFailures: { points: 2, durationSeconds: 60 } } });
    try {
      for (let i = 0; i < 6; i++) expect((await post(srv.issuer, '/token/introspection', { token: 'x', ...goodSecret })).status).toBe(200);
      for (let i = 0; i < 6; i++) expect((await post(srv.issuer, '/request', { ...PAR_FORM, ...goodSecret })).status).toBe(201);
    } finally {
      await srv.close();
    }
  });

  test('registration attempts, accepted or refused, are limited per IP', async () => {
    const srv = await startServer({ rateLimits: { registrations: { points: 3, durationSeconds: 60 } } });
    try {
      expect((await register(srv.issuer, WEB_CLIENT)).status).toBe(201);
      expect((await register(srv.issuer, { redirect_uris: ['http://rp.example/cb'] })).status).toBe(400);
      expect((await register(srv.issuer, WEB_CLIENT, 'wrong-token-000000')).status).toBe(401);
      const limited = await register(srv.issuer, WEB_CLIENT);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.body.error).toBe('temporarily_unavailable');
    } finally {
      await srv.close();
    }
  });

  test('the defaults let a CI suite through: 100 registrations a minute', async () => {
    const srv = await startServer();
    try {
      expect(srv.server.config.rateLimits).toEqual({ clientAuthFailures: { points: 30, durationSeconds: 60 }, registrations: { points: 100, durationSeconds: 60 } });
    } finally {
      await srv.close();
    }
  });
});
