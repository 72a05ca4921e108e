import { createServer as createHttpServer, type Server } from 'node:http';
import { SignJWT, UnsecuredJWT } from 'jose';
import { TestBrowser } from '../helpers/browser.js';
import { CHALLENGE, delivered, errorOnPage, pushRequest, query, requestObject } from '../helpers/authorization.js';
import { browse } from '../helpers/flow.js';
import { freePort, startServer, type RunningServer } from '../helpers/server.js';

/** SPEC rule 7, RFC 9101 (JAR) and RFC 9126 (PAR). */

const WEB = { id: 'demo-web', secret: 'demo-web-secret', uri: 'http://localhost:8080/callback' };
const EVIL = 'https://attacker.example/cb';

let srv: RunningServer;
let canary: Server;
let canaryUrl: string;
let canaryConnections = 0;
beforeAll(async () => {
  srv = await startServer();
  const port = await freePort();
  canary = createHttpServer((_req, res) => res.end('eyJhbGciOiJub25lIn0.e30.'));
  canary.on('connection', () => {
    canaryConnections += 1;
  });
  await new Promise<void>((resolve) => canary.listen(port, '127.0.0.1', resolve));
  canaryUrl = `http://127.0.0.1:${port}/request.jwt`;
});
afterAll(async () => {
  canary.close();
  await srv.close();
});

const inner = (extra: Record<string, string> = {}) => ({
  client_id: WEB.id,
  response_type: 'code',
  redirect_uri: WEB.uri,
  scope: 'openid',
  state: 'inner-state',
  nonce: 'n',
  code_challenge: CHALLENGE,
  code_challenge_method: 'S256',
  ...extra,
});
const authorize = (params: Record<string, string>) => `${srv.issuer}/authorization?${query(params)}`;

describe('request objects (JAR): only what is inside counts (RFC 9101 §5)', () => {
  test('outer redirect_uri, state and scope are ignored: the code goes to the inner redirect_uri', async () => {
    const request = await requestObject(srv.issuer, WEB.id, WEB.secret, inner());
    const seen = await browse(
      new TestBrowser(srv.issuer),
      authorize({ client_id: WEB.id, request, redirect_uri: EVIL, state: 'outer-state', scope: 'openid email' }),
    );
    expect(seen.callback.origin + seen.callback.pathname).toBe(WEB.uri);
    expect(seen.callback.searchParams.get('state')).toBe('inner-state');
    expect(seen.callback.searchParams.get('code')).toMatch(/.+/);
    // Consent listed only the inner scope.
    expect(seen.consentPage!.dom.querySelectorAll('li')).toHaveLength(1);
  });

  test('a registered outer redirect_uri does not rescue an unregistered inner one', async () => {
    const request = await requestObject(srv.issuer, WEB.id, WEB.secret, inner({ redirect_uri: EVIL }));
    const page = await new TestBrowser(srv.issuer).go(
      authorize({ client_id: WEB.id, request, redirect_uri: WEB.uri, response_type: 'code' }),
    );
    expect({ status: page.status, error: errorOnPage(page) }).toEqual({ status: 400, error: 'invalid_redirect_uri' });
    expect(page.redirectedTo).toBeUndefined();
  });

  test.each([
    [
      'client_id differs from the outer one',
      async () => requestObject(srv.issuer, WEB.id, WEB.secret, inner({ client_id: 'other-client' })),
      { client_id: WEB.id },
      'invalid_request_object',
    ],
    [
      'response_type differs from the outer one',
      async () => requestObject(srv.issuer, WEB.id, WEB.secret, inner({ response_type: 'id_token' })),
      { client_id: WEB.id, response_type: 'code' },
      'invalid_request_object',
    ],
    [
      'signed with another secret',
      async () => requestObject(srv.issuer, WEB.id, 'not-the-client-secret', inner()),
      { client_id: WEB.id },
      'invalid_request_object',
    ],
    [
      'unsigned (alg none)',
      async () =>
        new UnsecuredJWT(inner())
          .setIssuer(WEB.id)
          .setAudience(srv.issuer)
          .setIssuedAt()
          .setExpirationTime('5m')
          .encode(),
      { client_id: WEB.id },
      'invalid_request_object',
    ],
    [
      'audience of another server',
      async () =>
        new SignJWT(inner())
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuer(WEB.id)
          .setAudience('https://other.example')
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode(WEB.secret)),
      { client_id: WEB.id },
      'invalid_request_object',
    ],
    [
      'expired',
      async () =>
        new SignJWT(inner())
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuer(WEB.id)
          .setAudience(srv.issuer)
          .setIssuedAt(Math.floor(Date.now() / 1000) - 600)
          .setExpirationTime(Math.floor(Date.now() / 1000) - 300)
          .sign(new TextEncoder().encode(WEB.secret)),
      { client_id: WEB.id },
      'invalid_request_object',
    ],
    [
      'request_uri nested inside',
      async () => requestObject(srv.issuer, WEB.id, WEB.secret, inner({ request_uri: canaryUrl })),
      { client_id: WEB.id },
      'invalid_request_object',
    ],
  ])('%s: refused, nothing delivered', async (_name, make, outer, error) => {
    const request = await make();
    const page = await new TestBrowser(srv.issuer).go(authorize({ ...outer, request }));
    expect({ status: page.status, error: errorOnPage(page) }).toEqual({ status: 400, error });
    expect(page.redirectedTo).toBeUndefined();
  });
});

describe('pushed authorization requests (PAR)', () => {
  test('parameters outside the pushed request are ignored, and a request_uri works once', async () => {
    const pushed = await pushRequest(srv.issuer, WEB.id, WEB.secret, inner({ state: 'pushed-state' }));
    expect(pushed.status).toBe(201);
    expect(pushed.body.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    const url = authorize({
      client_id: WEB.id,
      request_uri: pushed.body.request_uri!,
      redirect_uri: EVIL,
      state: 'outer',
    });
    const seen = await browse(new TestBrowser(srv.issuer), url);
    expect(seen.callback.origin + seen.callback.pathname).toBe(WEB.uri);
    expect(seen.callback.searchParams.get('state')).toBe('pushed-state');
    const again = await new TestBrowser(srv.issuer).go(
      authorize({ client_id: WEB.id, request_uri: pushed.body.request_uri! }),
    );
    expect({ status: again.status, error: errorOnPage(again) }).toEqual({ status: 400, error: 'invalid_request_uri' });
    // With the unregistered outer redirect_uri the spent request_uri's error is not sent there either.
    const againEvil = await new TestBrowser(srv.issuer).go(url);
    expect({ status: againEvil.status, error: errorOnPage(againEvil) }).toEqual({
      status: 400,
      error: 'invalid_redirect_uri',
    });
  });

  test('the push needs client authentication', async () => {
    const res = await pushRequest(srv.issuer, WEB.id, 'wrong-secret-0000', inner());
    expect(res).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });
});

describe('request_uri by reference is not supported and nothing is fetched', () => {
  test.each([
    ['an http URL on 127.0.0.1', () => canaryUrl, 'request_uri_not_supported'],
    ['an https URL', () => 'https://attacker.example/request.jwt', 'request_uri_not_supported'],
    ['a forged PAR URN', () => 'urn:ietf:params:oauth:request_uri:forged', 'invalid_request_uri'],
  ])('%s: refused on the page', async (_name, uri, error) => {
    const page = await new TestBrowser(srv.issuer).go(authorize({ client_id: WEB.id, request_uri: uri() }));
    expect({ status: page.status, error: errorOnPage(page) }).toEqual({ status: 400, error });
    expect(page.redirectedTo).toBeUndefined();
  });

  test('with a valid client and redirect_uri the error goes to the client, without a code', async () => {
    const page = await new TestBrowser(srv.issuer).go(authorize({ ...inner(), request_uri: canaryUrl }));
    expect(delivered(page)).toEqual({
      mode: 'query',
      target: WEB.uri,
      params: {
        error: 'request_uri_not_supported',
        error_description: expect.stringMatching(/^request_uri by reference is not supported/),
        state: 'inner-state',
        iss: srv.issuer,
      },
    });
  });

  test('a request_uri sent to the PAR endpoint is refused', async () => {
    const res = await pushRequest(srv.issuer, WEB.id, WEB.secret, { ...inner(), request_uri: canaryUrl });
    expect(res).toMatchObject({ status: 400, body: { error: 'request_uri_not_supported' } });
  });

  test('after every request_uri above (and the one nested in a request object), the canary listener saw no connection', async () => {
    expect(canaryConnections).toBe(0);
    await (await fetch(canaryUrl)).text(); // control: the listener does count connections
    expect(canaryConnections).toBe(1);
  });

  test('discovery says so', async () => {
    const discovery = (await (await fetch(`${srv.issuer}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect(discovery).toMatchObject({
      request_uri_parameter_supported: false,
      request_parameter_supported: true,
      pushed_authorization_request_endpoint: `${srv.issuer}/request`,
    });
  });
});
