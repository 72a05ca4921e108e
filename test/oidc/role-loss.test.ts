import { MemoryAccountStore } from '../../adapters/memory-account-store.js';
import { DEMO, demoFixtures } from '../../examples/demo-fixtures.js';
import { TestBrowser } from '../helpers/browser.js';
import { browse, oidc, relyingParty, signIn, startAuthorization, type RelyingParty } from '../helpers/flow.js';
import { graphql, startServer, type RunningServer } from '../helpers/server.js';

/**
 * A role-restricted scope (`catalog:admin`, role `admin`) follows the account's roles at every issuance, not only
 * at consent: once the role is removed from the account (here through the host's account store, as a user
 * database would change it), the refresh grant, a code issued before the change and a new authorization in the
 * same browser session give tokens without that scope (RFC 6749 §3.3, §6), and the GraphQL API refuses them
 * the protected data. Before, the refresh grant kept issuing `catalog:admin` for as long as the refresh tokens
 * lived (14 days by default, rotated on use).
 */

const ADMIN = { email: 'admin@example.com', password: 'admin-demo-password' };
const SCOPE = 'openid offline_access catalog:admin';

let srv: RunningServer;
let rp: RelyingParty;
let store: MemoryAccountStore;

beforeEach(async () => {
  store = await MemoryAccountStore.fromSeed(demoFixtures().accounts!);
  srv = await startServer({ accountStore: store });
  rp = await relyingParty(srv.issuer);
});
afterEach(() => srv.close());

/** The admin account's roles, replaced in the host's store (the seed, with the same subject and password). */
async function setAdminRoles(roles: string[]) {
  const seed = demoFixtures().accounts!.find((a) => a.id === 'admin')!;
  await store.add({ ...seed, roles });
}

async function refresh(refreshToken: string, extra: Record<string, string> = {}) {
  const res = await fetch(`${srv.issuer}/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: 'demo-web',
      client_secret: 'demo-web-secret',
      ...extra,
    }),
  });
  return {
    status: res.status,
    body: (await res.json()) as { access_token: string; refresh_token: string; scope?: string; error?: string },
  };
}

/** What the catalog API lets the token see: the delisted product (null when hidden) and the admin-only list. */
async function catalogAs(token: string) {
  const product = await graphql(srv.graphqlUrl, '{ product(id: 3) { name } }', { token });
  const list = await graphql(srv.graphqlUrl, '{ delistedProducts { name } }', { token });
  expect([product.status, list.status]).toEqual([200, 200]);
  return {
    product: (product.body.data?.product as { name: string } | null) ?? null,
    list: list.body.errors?.[0]?.extensions?.code ?? 'OK',
  };
}

const ALLOWED = { product: { name: 'Prototype Drone' }, list: 'OK' };
const REFUSED = { product: null, list: 'FORBIDDEN' };

/** The scopes an access token carries: the token response's `scope` and, for a JWT, its `scope` claim. */
function scopesOf(body: { access_token: string; scope?: string }, jwt: boolean): string[] {
  if (!jwt) return (body.scope ?? '').split(' ').filter(Boolean).sort();
  const claims = JSON.parse(Buffer.from(body.access_token.split('.')[1]!, 'base64url').toString()) as {
    scope?: string;
  };
  expect((body.scope ?? '').split(' ').filter(Boolean).sort()).toEqual(
    (claims.scope ?? '').split(' ').filter(Boolean).sort(),
  );
  return (claims.scope ?? '').split(' ').filter(Boolean).sort();
}

// Opaque tokens (no resource) and RFC 9068 JWT access tokens for the API (resource=<graphql url>).
const KINDS: Array<[string, boolean]> = [
  ['opaque access tokens', false],
  ['JWT access tokens for the API (resource)', true],
];

describe.each(KINDS)('the admin role removed after consent: %s', (_kind, jwt) => {
  const params = () => ({ scope: SCOPE, ...(jwt ? { resource: srv.graphqlUrl } : {}) });
  const withRole = jwt ? ['catalog:admin'] : ['catalog:admin', 'offline_access', 'openid'];
  const without = jwt ? [] : ['offline_access', 'openid'];

  test('the refresh grant answers 200 without catalog:admin, and the API refuses the new token the admin data', async () => {
    const { tokens } = await signIn(srv.issuer, rp, { ...ADMIN, params: params() });
    expect(await catalogAs(tokens.access_token)).toEqual(ALLOWED);
    const before = await refresh(tokens.refresh_token!);
    expect(before.status).toBe(200);
    expect(scopesOf(before.body, jwt)).toEqual(withRole);

    await setAdminRoles([]);
    const after = await refresh(before.body.refresh_token);
    expect(after.status).toBe(200);
    expect(scopesOf(after.body, jwt)).toEqual(without);
    expect(await catalogAs(after.body.access_token)).toEqual(REFUSED);
    // The rotated refresh token goes on working, still without the scope.
    const next = await refresh(after.body.refresh_token);
    expect(next.status).toBe(200);
    expect(scopesOf(next.body, jwt)).toEqual(without);
    expect(await catalogAs(next.body.access_token)).toEqual(REFUSED);
  });

  test('a refresh that names catalog:admin in its scope parameter is narrowed the same way', async () => {
    const { tokens } = await signIn(srv.issuer, rp, { ...ADMIN, params: params() });
    await setAdminRoles([]);
    const after = await refresh(tokens.refresh_token!, { scope: 'openid catalog:admin' });
    expect(after.status).toBe(200);
    expect(scopesOf(after.body, jwt)).toEqual(jwt ? [] : ['openid']);
    expect(await catalogAs(after.body.access_token)).toEqual(REFUSED);
  });

  test('a code approved with the role and exchanged after its removal gives no catalog:admin', async () => {
    const start = await startAuthorization(rp, params());
    const seen = await browse(new TestBrowser(srv.issuer), start.url, ADMIN);
    await setAdminRoles([]);
    const tokens = await oidc.authorizationCodeGrant(rp.config, seen.callback, {
      pkceCodeVerifier: start.codeVerifier,
      expectedState: start.state,
      expectedNonce: start.nonce,
    });
    expect(scopesOf(tokens as never, jwt)).toEqual(without);
    expect(await catalogAs(tokens.access_token)).toEqual(REFUSED);
    const refreshed = await refresh(tokens.refresh_token!);
    expect(scopesOf(refreshed.body, jwt)).toEqual(without);
  });

  test('a new authorization in the same browser session gives no catalog:admin', async () => {
    const browser = new TestBrowser(srv.issuer);
    await signIn(srv.issuer, rp, { ...ADMIN, browser, params: params() });
    await setAdminRoles([]);
    const again = await signIn(srv.issuer, rp, { ...ADMIN, browser, params: params() });
    expect(scopesOf(again.tokens as never, jwt)).toEqual(without);
    expect(await catalogAs(again.tokens.access_token)).toEqual(REFUSED);
  });

  test('the implicit flow (id_token token) in the same browser session gives no catalog:admin', async () => {
    const browser = new TestBrowser(srv.issuer);
    const authorize = (nonce: string) =>
      `${srv.issuer}/authorization?${new URLSearchParams({
        client_id: DEMO.spa.id,
        response_type: 'id_token token',
        redirect_uri: DEMO.spa.redirectUri,
        scope: 'openid catalog:admin',
        nonce,
        state: nonce,
        ...(jwt ? { resource: srv.graphqlUrl } : {}),
      })}`;
    const tokenOf = (callback: URL) => {
      const fragment = new URLSearchParams(callback.hash.slice(1));
      return { access_token: fragment.get('access_token')!, scope: fragment.get('scope') ?? undefined };
    };
    const first = tokenOf((await browse(browser, authorize('n-1'), ADMIN)).callback);
    expect(scopesOf(first, jwt)).toEqual(jwt ? ['catalog:admin'] : ['catalog:admin', 'openid']);
    expect(await catalogAs(first.access_token)).toEqual(ALLOWED);
    await setAdminRoles([]);
    const again = tokenOf((await browse(browser, authorize('n-2'), { ...ADMIN, consent: 'none' })).callback);
    expect(scopesOf(again, jwt)).toEqual(jwt ? [] : ['openid']);
    expect(await catalogAs(again.access_token)).toEqual(REFUSED);
  });

  test('the role given back: the next refresh carries catalog:admin again (the consent still stands)', async () => {
    const { tokens } = await signIn(srv.issuer, rp, { ...ADMIN, params: params() });
    await setAdminRoles([]);
    const without1 = await refresh(tokens.refresh_token!);
    expect(scopesOf(without1.body, jwt)).toEqual(without);
    await setAdminRoles(['admin']);
    const back = await refresh(without1.body.refresh_token);
    expect(back.status).toBe(200);
    expect(scopesOf(back.body, jwt)).toEqual(withRole);
    expect(await catalogAs(back.body.access_token)).toEqual(ALLOWED);
  });

  test('an access token issued before the change keeps its scope until it expires (ttl.accessToken)', async () => {
    const { tokens } = await signIn(srv.issuer, rp, { ...ADMIN, params: params() });
    await setAdminRoles([]);
    expect(await catalogAs(tokens.access_token)).toEqual(ALLOWED);
  });
});

/**
 * The other direction: a role-restricted scope refused while the account lacked the role (at consent, or withheld
 * in a later authorization of the session) is recorded as rejected in the session's Grant. Once the role is given,
 * the next authorization in the same browser session that asks for the scope must issue it (after the consent page
 * if the user never approved it), not keep answering without it for the rest of the session.
 */
describe.each(KINDS)('the admin role given after the scope was refused: %s', (_kind, jwt) => {
  const params = () => ({ scope: SCOPE, ...(jwt ? { resource: srv.graphqlUrl } : {}) });
  const withRole = jwt ? ['catalog:admin'] : ['catalog:admin', 'offline_access', 'openid'];
  const without = jwt ? [] : ['offline_access', 'openid'];

  /** Signs in (first consent) and, for `hadRole`, authorizes again in the session once the role was removed. */
  async function refusedInSession(browser: TestBrowser, hadRole: boolean) {
    if (!hadRole) await setAdminRoles([]);
    const first = await signIn(srv.issuer, rp, { ...ADMIN, browser, params: params() });
    expect(scopesOf(first.tokens as never, jwt)).toEqual(hadRole ? withRole : without);
    if (hadRole) {
      await setAdminRoles([]);
      const again = await signIn(srv.issuer, rp, { ...ADMIN, browser, params: params() });
      expect(scopesOf(again.tokens as never, jwt)).toEqual(without);
    }
    await setAdminRoles(['admin']);
    return first.tokens;
  }

  test.each([
    ['refused at the first consent (role given later): the consent page asks for it', false],
    ['consented to, withheld after the role was removed, then the role given back: no new consent page', true],
  ])('%s; a new authorization in the same session issues catalog:admin', async (_name, hadRole) => {
    const browser = new TestBrowser(srv.issuer);
    await refusedInSession(browser, hadRole);
    const start = await startAuthorization(rp, params());
    // Consented to before (second row): no new consent page; never consented to (first row): asked now.
    const seen = await browse(browser, start.url, { ...ADMIN, consent: hadRole ? 'none' : 'allow' });
    if (!hadRole) expect(seen.consentPage?.body).toContain('catalog:admin');
    const tokens = await oidc.authorizationCodeGrant(rp.config, seen.callback, {
      pkceCodeVerifier: start.codeVerifier,
      expectedState: start.state,
      expectedNonce: start.nonce,
    });
    expect(scopesOf(tokens as never, jwt)).toEqual(withRole);
    expect(await catalogAs(tokens.access_token)).toEqual(ALLOWED);
  });

  test('consented to, rejection saved by an authorization in the session while without the role: the first refresh token carries catalog:admin again once the role is back', async () => {
    const browser = new TestBrowser(srv.issuer);
    const first = await refusedInSession(browser, true);
    const back = await refresh(first.refresh_token!);
    expect(back.status).toBe(200);
    expect(scopesOf(back.body, jwt)).toEqual(withRole);
    expect(await catalogAs(back.body.access_token)).toEqual(ALLOWED);
  });
});
