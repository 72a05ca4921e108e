import { relyingParty, signIn } from '../helpers/flow.js';
import { graphql, startServer, type RunningServer } from '../helpers/server.js';

let srv: RunningServer;
let aliceToken: string;
let adminToken: string;
let aliceAdminAttemptToken: string;

beforeAll(async () => {
  srv = await startServer();
  const rp = await relyingParty(srv.issuer);
  aliceToken = (await signIn(srv.issuer, rp, { params: { scope: 'openid' } })).tokens.access_token;
  aliceAdminAttemptToken = (await signIn(srv.issuer, rp, { params: { scope: 'openid catalog:admin' } })).tokens
    .access_token;
  adminToken = (
    await signIn(srv.issuer, rp, {
      email: 'admin@example.com',
      password: 'admin-demo-password',
      params: { scope: 'openid catalog:admin' },
    })
  ).tokens.access_token;
});
afterAll(() => srv.close());

const PRODUCT = 'query getProduct($id: Int!) { product(id: $id) { id name listed } }';

describe('GraphQL endpoint basics', () => {
  test('query{__typename} identifies the endpoint', async () => {
    const res = await graphql(srv.graphqlUrl, 'query{__typename}');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { __typename: 'Query' } });
  });

  test.each([
    ['an empty JSON object', '{}'],
    ['JSON without query', '{"variables":{}}'],
    ['an empty query', '{"query":""}'],
    ['a non-string query', '{"query":42}'],
    ['a JSON array', '[]'],
    ['JSON null', 'null'],
  ])('%s gets 400 saying the query is missing', async (_name, body) => {
    const res = await fetch(srv.graphqlUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(400);
    const json = (await res.json()) as { errors: Array<{ message: string; extensions: { code: string } }> };
    expect(json.errors[0]!.message).toMatch(/query is missing/);
    expect(json.errors[0]!.extensions.code).toBe('QUERY_MISSING');
  });

  test('an empty body gets 400 saying the query is missing', async () => {
    const res = await fetch(srv.graphqlUrl, { method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toMatch(/query is missing/);
  });

  test('malformed JSON gets 400 without a stack trace', async () => {
    const res = await fetch(srv.graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query": ',
    });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).toMatch(/not valid JSON/);
    expect(text).not.toMatch(/stacktrace|at .*\.js/);
  });

  test.each([
    ['GET', undefined, 405],
    ['PUT', 'application/json', 405],
    ['POST', 'text/plain', 415],
    ['POST', 'application/x-www-form-urlencoded', 415],
    ['POST', 'multipart/form-data; boundary=x', 415],
  ])('%s with %s is refused with %i', async (method, type, status) => {
    const res = await fetch(`${srv.graphqlUrl}${method === 'GET' ? '?query=%7B__typename%7D' : ''}`, {
      method,
      headers: { accept: 'text/html', ...(type ? { 'content-type': type } : {}) },
      body:
        method === 'GET'
          ? undefined
          : type === 'application/json'
            ? '{"query":"{__typename}"}'
            : 'query=%7B__typename%7D',
    });
    expect(res.status).toBe(status);
    if (status === 405) expect(res.headers.get('allow')).toBe('POST');
    expect(await res.text()).not.toMatch(/<html|apollo/i); // no landing page
  });

  test('syntax errors carry no stack trace', async () => {
    const res = await graphql(srv.graphqlUrl, '{ product(id: ');
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).not.toMatch(/stacktrace/);
  });

  test('introspection is off and misspelt fields get no suggestion', async () => {
    const intro = await graphql(srv.graphqlUrl, '{__schema{queryType{name}}}');
    expect(intro.body.data).toBeUndefined();
    const typo = await graphql(srv.graphqlUrl, '{ prodcts { id } }');
    expect(typo.status).toBe(400);
    expect(JSON.stringify(typo.body)).not.toMatch(/Did you mean/i);
  });
});

describe('catalog schema and access control by token scope', () => {
  test('the list returns listed products only; sort works', async () => {
    const res = await graphql(srv.graphqlUrl, '{ products { id name listed } }');
    expect(res.body.data!.products).toEqual([
      { id: 1, name: 'Desk Lamp', listed: true },
      { id: 2, name: 'Office Chair', listed: true },
      { id: 4, name: 'Standing Desk', listed: true },
    ]);
    const byName = await graphql(srv.graphqlUrl, '{ products(sort: NAME) { name } }');
    expect(byName.body.data!.products).toEqual([
      { name: 'Desk Lamp' },
      { name: 'Office Chair' },
      { name: 'Standing Desk' },
    ]);
    const newest = await graphql(srv.graphqlUrl, '{ products(sort: NEWEST) { id } }');
    expect(newest.body.data!.products).toEqual([{ id: 4 }, { id: 2 }, { id: 1 }]);
  });

  test('variables and aliases work', async () => {
    const res = await graphql(srv.graphqlUrl, PRODUCT, { variables: { id: 2 } });
    expect(res.body.data).toEqual({ product: { id: 2, name: 'Office Chair', listed: true } });
    const aliased = await graphql(srv.graphqlUrl, '{ a: product(id: 1) { name } b: product(id: 4) { name } }');
    expect(aliased.body.data).toEqual({ a: { name: 'Desk Lamp' }, b: { name: 'Standing Desk' } });
  });

  test.each([
    ['anonymous', () => undefined, null],
    ['alice (no catalog:admin)', () => aliceToken, null],
    ['alice asking for catalog:admin (not granted)', () => aliceAdminAttemptToken, null],
    ['admin with catalog:admin', () => adminToken, { id: 3, name: 'Prototype Drone', listed: false }],
  ])('delisted product as %s', async (_who, token, expected) => {
    const res = await graphql(srv.graphqlUrl, PRODUCT, { token: token(), variables: { id: 3 } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { product: expected } });
  });

  test('a delisted product and a missing one look the same to non-admins', async () => {
    const delisted = await graphql(srv.graphqlUrl, PRODUCT, { token: aliceToken, variables: { id: 3 } });
    const missing = await graphql(srv.graphqlUrl, PRODUCT, { token: aliceToken, variables: { id: 999 } });
    expect(delisted.body).toEqual(missing.body);
  });

  test('the schema exposes no e-mail addresses or user ids', async () => {
    for (const field of ['email', 'userId', 'sub', 'owner']) {
      const res = await graphql(srv.graphqlUrl, `{ products { ${field} } }`);
      expect(res.status).toBe(400);
    }
  });

  // Malformed headers and other schemes: test/graphql/token-presentation.test.ts.
  test.each([['an unknown token', 'Bearer not-a-real-token-123']])(
    '%s gets 401 with WWW-Authenticate invalid_token',
    async (_name, header) => {
      const res = await fetch(srv.graphqlUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: header },
        body: '{"query":"{__typename}"}',
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
      const body = (await res.json()) as { errors: Array<{ extensions: { code: string } }> };
      expect(body.errors[0]!.extensions.code).toBe('UNAUTHENTICATED');
    },
  );

  test('a revoked grant invalidates its access token at the API', async () => {
    const local = await startServer();
    try {
      const rp = await relyingParty(local.issuer);
      const { tokens } = await signIn(local.issuer, rp, {
        email: 'admin@example.com',
        password: 'admin-demo-password',
        params: { scope: 'openid catalog:admin' },
      });
      expect((await graphql(local.graphqlUrl, '{__typename}', { token: tokens.access_token })).status).toBe(200);
      const at = await local.server.provider.AccessToken.find(tokens.access_token);
      await local.server.provider.Grant.adapter.destroy(at!.grantId);
      expect((await graphql(local.graphqlUrl, '{__typename}', { token: tokens.access_token })).status).toBe(401);
    } finally {
      await local.close();
    }
  });

  test('an ID token is not accepted as an access token', async () => {
    const local = await startServer();
    try {
      const rp = await relyingParty(local.issuer);
      const { tokens } = await signIn(local.issuer, rp);
      const res = await graphql(local.graphqlUrl, '{__typename}', { token: tokens.id_token });
      expect(res.status).toBe(401);
    } finally {
      await local.close();
    }
  });
});
