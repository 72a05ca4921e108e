import { relyingParty, signIn } from '../helpers/flow.js';
import { catalogGraphql, startServer, type RunningServer } from '../helpers/server.js';

/**
 * `introspection.requiredScope` refusals are resource-server answers (RFC 6750 §3, §3.1): without a token `401` with
 * `WWW-Authenticate: Bearer scope="…"` and no error code; with a token that lacks the scope `403` with
 * `error="insufficient_scope"` and the scope. `extensions.code` stays `INTROSPECTION_DISABLED`; introspection off for
 * everyone stays `400` without a challenge.
 */

let srv: RunningServer;
let off: RunningServer;
let alice: string;
let aliceJwt: string;
let admin: string;
beforeAll(async () => {
  [srv, off] = await Promise.all([
    startServer({
      graphql: {
        ...catalogGraphql(),
        transports: { get: true },
        maxBatchSize: 2,
        introspection: { enabled: true, requiredScope: 'catalog:admin' },
      },
    }),
    startServer(),
  ]);
  const rp = await relyingParty(srv.issuer);
  alice = (await signIn(srv.issuer, rp, { params: { scope: 'openid email' } })).tokens.access_token;
  aliceJwt = (await signIn(srv.issuer, rp, { params: { scope: 'openid email', resource: srv.graphqlUrl } })).tokens
    .access_token;
  admin = (
    await signIn(srv.issuer, rp, {
      email: 'admin@example.com',
      password: 'admin-demo-password',
      params: { scope: 'openid catalog:admin' },
    })
  ).tokens.access_token;
});
afterAll(async () => {
  await Promise.all([srv.close(), off.close()]);
});

const PROBE = '{ __schema { queryType { name } } }';

interface Answer {
  status: number;
  challenge: string | null;
  code: string | undefined;
  text: string;
}
async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  const json = JSON.parse(text) as { errors?: Array<{ extensions: { code: string } }> };
  return {
    status: res.status,
    challenge: res.headers.get('www-authenticate'),
    code: json.errors?.[0]?.extensions.code,
    text,
  };
}
const auth = (token?: string): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});
const post =
  (body: unknown, token?: string, target = () => srv) =>
  async () =>
    answer(
      await fetch(target().graphqlUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth(token) },
        body: JSON.stringify(body),
      }),
    );
const get = (query: string, token?: string) => async () =>
  answer(await fetch(`${srv.graphqlUrl}?${new URLSearchParams({ query })}`, { headers: auth(token) }));

const NO_TOKEN = { status: 401, challenge: 'Bearer scope="catalog:admin"' };
const NO_SCOPE = {
  status: 403,
  challenge:
    'Bearer error="insufficient_scope", error_description="introspection needs a token with the scope named", scope="catalog:admin"',
};

test.each([
  ['anonymous POST', post({ query: PROBE }), NO_TOKEN],
  ['anonymous GET', get(PROBE), NO_TOKEN],
  [
    'anonymous, __type in a fragment',
    post({ query: '{ ...F } fragment F on Query { __type(name: "Query") { name } }' }),
    NO_TOKEN,
  ],
  [
    'anonymous batch whose second operation introspects',
    post([{ query: '{ __typename }' }, { query: PROBE }]),
    NO_TOKEN,
  ],
  ['opaque token without the scope, POST', () => post({ query: PROBE }, alice)(), NO_SCOPE],
  ['opaque token without the scope, GET', () => get(PROBE, alice)(), NO_SCOPE],
  ['JWT access token without the scope', () => post({ query: PROBE }, aliceJwt)(), NO_SCOPE],
] as const)('%s', async (_name, run, expected) => {
  const res = await run();
  expect({ status: res.status, challenge: res.challenge, code: res.code }).toEqual({
    ...expected,
    code: 'INTROSPECTION_DISABLED',
  });
  expect(res.text).toContain('Introspection needs an access token with scope catalog:admin.');
});

describe('unchanged', () => {
  test('a token with the scope introspects', async () => {
    expect(await post({ query: PROBE }, admin)()).toMatchObject({
      status: 200,
      challenge: null,
      text: '{"data":{"__schema":{"queryType":{"name":"Query"}}}}\n',
    });
  });
  test('introspection off for everyone: 400, no challenge', async () => {
    expect(await post({ query: PROBE }, undefined, () => off)()).toMatchObject({
      status: 400,
      challenge: null,
      code: 'INTROSPECTION_DISABLED',
    });
  });
  test('data queries of a token without the scope still run', async () => {
    expect(await post({ query: '{ product(id: 1) { name } }' }, alice)()).toMatchObject({
      status: 200,
      challenge: null,
    });
  });
});
