import { TestBrowser } from '../helpers/browser.js';
import { oidc, relyingParty, signIn, type RelyingParty } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';

const PROFILE = {
  name: 'Carol Q. Example',
  given_name: 'Carol',
  family_name: 'Example',
  middle_name: 'Quinn',
  nickname: 'CQ',
  preferred_username: 'carol',
  profile: 'https://carol.example/',
  picture: 'https://carol.example/me.png',
  website: 'https://carol.example/blog',
  gender: 'female',
  birthdate: '1990-02-03',
  zoneinfo: 'Europe/Paris',
  locale: 'fr-FR',
  updated_at: 1_700_000_000,
};
const ADDRESS = {
  address: {
    formatted: '1 Rue Exemple\n75001 Paris\nFrance',
    street_address: '1 Rue Exemple',
    locality: 'Paris',
    region: 'Île-de-France',
    postal_code: '75001',
    country: 'FR',
  },
};
const PHONE = { phone_number: '+33 1 23 45 67 89', phone_number_verified: true };
const EMAIL = { email: 'carol@example.com', email_verified: true };

/** Claims of one scope (OIDC Core §5.4). */
const BY_SCOPE: Record<string, Record<string, unknown>> = {
  profile: PROFILE,
  email: EMAIL,
  address: ADDRESS,
  phone: PHONE,
};
const ALL_RELEASABLE = Object.keys({ ...PROFILE, ...EMAIL, ...ADDRESS, ...PHONE });

let srv: RunningServer;
let rp: RelyingParty;

beforeAll(async () => {
  const fixtures = demoFixtures();
  srv = await startServer({
    accounts: [
      ...fixtures.accounts!,
      {
        id: 'carol',
        email: EMAIL.email,
        password: 'carol-long-password',
        email_verified: true,
        claims: { ...PROFILE, ...ADDRESS, ...PHONE },
      },
    ],
  });
  rp = await relyingParty(srv.issuer);
});
afterAll(() => srv.close());

async function claimsFor(params: Record<string, string>) {
  const { tokens } = await signIn(srv.issuer, rp, {
    browser: new TestBrowser(srv.issuer),
    email: EMAIL.email,
    password: 'carol-long-password',
    params,
  });
  const userinfo = await oidc.fetchUserInfo(rp.config, tokens.access_token, 'carol');
  return { idToken: tokens.claims()! as Record<string, unknown>, userinfo: userinfo as Record<string, unknown> };
}

const released = (claims: Record<string, unknown>) => ALL_RELEASABLE.filter((c) => c in claims).sort();

describe('standard claims per scope (OIDC Core §5.1, §5.4), in userinfo and the ID token alike', () => {
  test.each([
    ['openid', []],
    ['openid profile', ['profile']],
    ['openid email', ['email']],
    ['openid address', ['address']],
    ['openid phone', ['phone']],
    ['openid profile email address phone', ['profile', 'email', 'address', 'phone']],
  ])('scope "%s" releases exactly the claims of %p', async (scope, scopes) => {
    const { idToken, userinfo } = await claimsFor({ scope });
    const expected = Object.assign({ sub: 'carol' }, ...scopes.map((s) => BY_SCOPE[s]!)) as Record<string, unknown>;
    const names = Object.keys(expected)
      .filter((c) => c !== 'sub')
      .sort();
    expect(released(userinfo)).toEqual(names);
    expect(released(idToken)).toEqual(names);
    expect(userinfo).toEqual(expected);
    expect(idToken).toMatchObject(expected);
  });

  test('updated_at is a number (seconds since the epoch) and address is a structured object', async () => {
    const { idToken, userinfo } = await claimsFor({ scope: 'openid profile address' });
    expect(userinfo.updated_at).toBe(1_700_000_000);
    expect(idToken.updated_at).toBe(1_700_000_000);
    expect(userinfo.address).toEqual(ADDRESS.address);
    expect(typeof idToken.address).toBe('object');
  });

  test('the ID token says how and when the user authenticated: auth_time, amr, acr', async () => {
    const before = Math.floor(Date.now() / 1000);
    const { idToken } = await claimsFor({ scope: 'openid' });
    expect(idToken.auth_time).toBeGreaterThanOrEqual(before - 1);
    expect(idToken.amr).toEqual(['pwd']);
    expect(idToken.acr).toBe('urn:portcullis:pwd');
  });

  test('the claims request parameter cannot obtain claims of scopes that were not approved', async () => {
    const claims = JSON.stringify({
      id_token: { phone_number: null, email: { essential: true } },
      userinfo: { address: null, given_name: null },
    });
    const { idToken, userinfo } = await claimsFor({ scope: 'openid', claims });
    expect(released(idToken)).toEqual([]);
    expect(released(userinfo)).toEqual([]);
  });

  test('claims the account does not have are omitted, not sent as null', async () => {
    const { tokens } = await signIn(srv.issuer, rp, {
      browser: new TestBrowser(srv.issuer),
      params: { scope: 'openid profile phone' },
    });
    const userinfo = await oidc.fetchUserInfo(rp.config, tokens.access_token, 'alice');
    expect(userinfo).toEqual({
      sub: 'alice',
      given_name: 'Alice',
      family_name: 'Liddell',
      name: 'Alice Liddell',
      birthdate: '1852-05-04',
    });
  });
});
