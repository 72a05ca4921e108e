import { register, WEB_CLIENT } from '../helpers/registration.js';
import { startServer } from '../helpers/server.js';

function post(issuer: string, path: string, form: Record<string, string>) {
  return fetch(`${issuer}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(form),
  });
}
const badSecret = { client_id: 'demo-web', client_secret: 'not-the-secret-0' };
const goodSecret = { client_id: 'demo-web', client_secret: 'demo-web-secret' };
/** A pushed authorization request (RFC 9126) the demo client may make: 201 with the right secret. */
const PAR_FORM = {
  response_type: 'code',
  scope: 'openid',
  redirect_uri: 'http://localhost:8080/callback',
  code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  code_challenge_method: 'S256',
};

describe('per-IP rate limits', () => {
  test.each([
    [
      'token',
      '/token',
      { grant_type: 'authorization_code', code: 'x', redirect_uri: 'http://localhost:8080/callback' },
    ],
    ['introspection', '/token/introspection', { token: 'x' }],
    ['revocation', '/token/revocation', { token: 'x' }],
    ['pushed authorization request', '/request', PAR_FORM],
  ])(
    'failed client authentications at the %s endpoint: 429 with Retry-After once the budget is spent, for every endpoint',
    async (_name, path, form) => {
      const srv = await startServer({ rateLimits: { clientAuthFailures: { points: 3, durationSeconds: 60 } } });
      try {
        for (let i = 0; i < 3; i++) expect((await post(srv.issuer, path, { ...form, ...badSecret })).status).toBe(401);
        for (const target of ['/token', '/token/introspection', '/token/revocation', '/request']) {
          // The right secret too: a blocked address cannot use any of them to test secrets.
          const limited = await post(srv.issuer, target, {
            token: 'x',
            ...(target === '/request' ? PAR_FORM : {}),
            ...goodSecret,
          });
          expect(limited.status).toBe(429);
          expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
          expect(await limited.json()).toMatchObject({ error: 'temporarily_unavailable' });
        }
      } finally {
        await srv.close();
      }
    },
  );

  // Behind proxies that append the address they saw to X-Forwarded-For, the client IP is the entry `proxyHops` from
  // the right: whatever the client wrote further left must not choose the address its failures are counted under.
  test.each([
    [
      'one proxy, the client rotates its own entries',
      { proxyHops: undefined },
      (i: number) => `198.51.100.${i}, 203.0.113.7`,
      [401, 401, 401, 429, 429],
    ],
    [
      'one proxy, the client sends several entries',
      { proxyHops: undefined },
      (i: number) => `10.0.0.${i}, 198.51.100.${i}, 203.0.113.7`,
      [401, 401, 401, 429, 429],
    ],
    [
      'one proxy, different clients',
      { proxyHops: undefined },
      (i: number) => `198.51.100.9, 203.0.113.${i}`,
      [401, 401, 401, 401, 401],
    ],
    [
      'two proxies (proxyHops: 2), the client rotates its own entries',
      { proxyHops: 2 },
      (i: number) => `198.51.100.${i}, 203.0.113.7, 10.0.0.1`,
      [401, 401, 401, 429, 429],
    ],
    [
      'two proxies (proxyHops: 2), different clients',
      { proxyHops: 2 },
      (i: number) => `198.51.100.9, 203.0.113.${i}, 10.0.0.1`,
      [401, 401, 401, 401, 401],
    ],
  ])('proxy: true, %s', async (_name, options, forwardedFor, expected) => {
    const srv = await startServer({
      proxy: true,
      ...(options.proxyHops ? { proxyHops: options.proxyHops } : {}),
      rateLimits: { clientAuthFailures: { points: 3, durationSeconds: 60 } },
    });
    try {
      const statuses = [];
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`${srv.issuer}/token`, {
          method: 'POST',
          body: new URLSearchParams({ grant_type: 'client_credentials', ...badSecret }),
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': forwardedFor(i) },
        });
        statuses.push(res.status);
      }
      expect(statuses).toEqual(expected);
    } finally {
      await srv.close();
    }
  });

  test('successful client authentications are not counted', async () => {
    const srv = await startServer({ rateLimits: { clientAuthFailures: { points: 2, durationSeconds: 60 } } });
    try {
      for (let i = 0; i < 6; i++)
        expect((await post(srv.issuer, '/token/introspection', { token: 'x', ...goodSecret })).status).toBe(200);
      for (let i = 0; i < 6; i++)
        expect((await post(srv.issuer, '/request', { ...PAR_FORM, ...goodSecret })).status).toBe(201);
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
      expect(srv.server.config.rateLimits).toEqual({
        clientAuthFailures: { points: 30, durationSeconds: 60 },
        registrations: { points: 100, durationSeconds: 60 },
      });
    } finally {
      await srv.close();
    }
  });
});
