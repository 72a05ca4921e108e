import { browse, oidc, startAuthorization } from '../helpers/flow.js';
import { TestBrowser } from '../helpers/browser.js';
import { startCanary, type Canary } from '../helpers/canary.js';
import { register } from '../helpers/registration.js';
import { startServer, type RunningServer } from '../helpers/server.js';

let canary: Canary;
beforeAll(async () => {
  canary = await startCanary();
});
afterAll(() => canary.close());

/** Registers a client with `logo_uri` and returns the consent page alice sees for it. */
async function consentPageFor(srv: RunningServer, logoUri: string) {
  const reg = await register(srv.issuer, {
    redirect_uris: ['http://localhost:8080/callback'],
    client_name: 'Logo RP',
    logo_uri: logoUri,
  });
  expect(reg.status).toBe(201);
  expect(reg.body.logo_uri).toBe(logoUri);
  const clientId = reg.body.client_id as string;
  const config = await oidc.discovery(
    new URL(srv.issuer),
    clientId,
    undefined,
    oidc.ClientSecretBasic(reg.body.client_secret as string),
    { execute: [oidc.allowInsecureRequests] },
  );
  const start = await startAuthorization({ config, clientId, redirectUri: 'http://localhost:8080/callback' });
  const { consentPage } = await browse(new TestBrowser(srv.issuer), start.url);
  return consentPage!;
}

describe('client logo_uri: stored, never fetched by the server, shown only when allowed', () => {
  test.each([
    ['remote logos off (default), https logo', false, 'https://cdn.rp.example/logo.png', undefined],
    ['remote logos on, https logo', true, 'https://cdn.rp.example/logo.png', 'https://cdn.rp.example'],
    ['remote logos on, plain http logo', true, 'http://cdn.rp.example/logo.png', undefined],
    [
      'remote logos on, logo on the canary (loopback)',
      true,
      'https://127.0.0.1:CANARY/logo.png',
      'https://127.0.0.1:CANARY',
    ],
  ])('%s', async (_name, allow, logo, origin) => {
    const srv = await startServer({
      registration: { initialAccessToken: 'demo-initial-access-token', allowRemoteLogos: allow },
    });
    try {
      const before = canary.connections;
      const logoUri = logo.replace('CANARY', String(canary.port));
      const page = await consentPageFor(srv, logoUri);
      const img = page.dom.querySelector('#client-logo');
      const csp = page.headers.get('content-security-policy')!;
      const imgSrc = csp
        .split(';')
        .map((d) => d.trim())
        .find((d) => d.startsWith('img-src'));
      if (origin) {
        expect(img?.getAttribute('src')).toBe(logoUri);
        expect(imgSrc).toBe(`img-src 'self' ${origin.replace('CANARY', String(canary.port))}`);
      } else {
        expect(img).toBeNull();
        expect(imgSrc).toBe("img-src 'self'");
      }
      expect(canary.connections).toBe(before);
    } finally {
      await srv.close();
    }
  });
});
