import { relyingParty, startAuthorization } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * A full memory storage (`storage.maxEntries`) inside oidc-provider's own routes: the adapter throws an honest
 * StorageUnavailableError (ERR_STORAGE_FULL), the provider boundary (lib/oidc/storage-outage.ts) turns it into
 * oidc-provider's temporarily_unavailable, and the client sees 503 `temporarily_unavailable` (JSON or the error
 * page) with `Retry-After`, never a 500 and never a redirect.
 */
describe('memory storage full', () => {
  let srv: RunningServer;
  beforeAll(async () => {
    srv = await startServer({ storage: { type: 'memory', maxEntries: 1 } });
  });
  afterAll(async () => {
    await srv?.close();
  });

  /** A pushed authorization request (RFC 9126): JSON, and each one stores an entry. */
  const push = () =>
    fetch(`${srv.issuer}/request`, {
      method: 'POST',
      body: new URLSearchParams({
        client_id: 'demo-web',
        client_secret: 'demo-web-secret',
        response_type: 'code',
        scope: 'openid',
        redirect_uri: 'http://localhost:8080/callback',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      }),
    });

  test('a JSON endpoint answers 503 temporarily_unavailable with Retry-After once the storage is full; an authorization request gets the page', async () => {
    // The one entry goes to the first write (the pushed request, or an entry the server keeps itself); then full.
    let full = await push();
    for (let i = 0; i < 2 && full.status === 201; i++) full = await push();
    expect({ status: full.status, retryAfter: full.headers.get('retry-after'), body: await full.json() }).toEqual({
      status: 503,
      retryAfter: '5',
      body: {
        error: 'temporarily_unavailable',
        error_description: 'storage is full (storage.maxEntries reached); try again later',
      },
    });

    const rp = await relyingParty(srv.issuer);
    const page = await fetch((await startAuthorization(rp)).url, {
      redirect: 'manual',
      headers: { accept: 'text/html' },
    });
    expect({
      status: page.status,
      retryAfter: page.headers.get('retry-after'),
      location: page.headers.get('location'),
    }).toEqual({ status: 503, retryAfter: '5', location: null });
    const text = await page.text();
    expect(text).toContain('temporarily_unavailable');
    expect(text).toContain('storage is full');
    expect(text).not.toMatch(/at .*\.(js|ts):\d+|server_error/);
  });
});
