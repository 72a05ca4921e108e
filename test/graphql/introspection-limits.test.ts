import { getIntrospectionQuery } from 'graphql';
import { relyingParty, signIn } from '../helpers/flow.js';
import { catalogGraphql, graphql, startServer, type RunningServer } from '../helpers/server.js';

/**
 * With introspection on, `__schema`/`__type` still count towards the aliases, root fields and directives of a
 * document and spend rate-limit points; the standard introspection query (no alias, one root field) still runs
 * under the default limits.
 */

const STANDARD = getIntrospectionQuery();
/** What GraphiQL 3 and most tools send: every option of graphql-js' query on. */
const FULL = getIntrospectionQuery({
  descriptions: true,
  specifiedByUrl: true,
  directiveIsRepeatable: true,
  schemaDescription: true,
  inputValueDeprecation: true,
  oneOf: true,
});
const times = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join(' ');
const codes = (body: { errors?: Array<{ extensions?: Record<string, unknown> }> }) =>
  (body.errors ?? []).map((e) => e.extensions);

describe('the standard introspection query passes under the default limits', () => {
  let srv: RunningServer;
  beforeAll(async () => {
    srv = await startServer({ graphql: { ...catalogGraphql(), introspection: { enabled: true } } });
  });
  afterAll(() => srv.close());

  test.each([
    ['getIntrospectionQuery()', STANDARD],
    ['with every option (GraphiQL)', FULL],
  ])('%s: 200 with the whole schema', async (_name, query) => {
    const res = await graphql(srv.graphqlUrl, query);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const types = (res.body.data!.__schema as { types: Array<{ name: string }> }).types.map((t) => t.name);
    expect(types).toEqual(expect.arrayContaining(['Query', 'Product', 'ProductSort', '__Schema']));
  });
});

describe('introspection counts towards the document limits', () => {
  test.each([
    [
      '16 root aliases of __schema',
      {},
      `{ ${times(16, (i) => `a${i}: __schema { types { name } }`)} }`,
      [
        { code: 'MAX_ROOT_FIELDS_EXCEEDED', limit: 15 },
        { code: 'MAX_ALIASES_EXCEEDED', limit: 15 },
      ],
    ],
    [
      '16 aliases of types inside one __schema',
      {},
      `{ __schema { ${times(16, (i) => `a${i}: types { fields { name args { name } type { name } } }`)} } }`,
      [{ code: 'MAX_ALIASES_EXCEEDED', limit: 15 }],
    ],
    [
      '80 __type root fields',
      { maxAliases: 100 },
      `{ ${times(80, (i) => `t${i}: __type(name: "Product") { name }`)} }`,
      [{ code: 'MAX_ROOT_FIELDS_EXCEEDED', limit: 15 }],
    ],
    [
      '__schema beside __type over maxRootFields 1',
      { maxRootFields: 1 },
      '{ __schema { queryType { name } } __type(name: "Product") { name } }',
      [{ code: 'MAX_ROOT_FIELDS_EXCEEDED', limit: 1 }],
    ],
    [
      'a directive inside __schema over maxDirectives 0',
      { maxDirectives: 0 },
      '{ __schema { queryType { name @include(if: true) } } }',
      [{ code: 'MAX_DIRECTIVES_EXCEEDED', limit: 0 }],
    ],
  ])(
    '%s: refused 400 with the limit; the standard query still runs with the same limits',
    async (_row, limits, query, expected) => {
      const srv = await startServer({ graphql: { ...catalogGraphql(), introspection: { enabled: true }, limits } });
      try {
        const res = await graphql(srv.graphqlUrl, query);
        expect(res.status).toBe(400);
        expect(res.body.data).toBeUndefined();
        expect(codes(res.body)).toEqual(expected);
        expect((await graphql(srv.graphqlUrl, STANDARD)).status).toBe(200);
      } finally {
        await srv.close();
      }
    },
  );

  test('for a token allowed by introspection.requiredScope as well', async () => {
    const srv = await startServer({
      graphql: { ...catalogGraphql(), introspection: { enabled: true, requiredScope: 'catalog:admin' } },
    });
    try {
      const rp = await relyingParty(srv.issuer);
      const token = (
        await signIn(srv.issuer, rp, {
          email: 'admin@example.com',
          password: 'admin-demo-password',
          params: { scope: 'openid catalog:admin' },
        })
      ).tokens.access_token;
      const res = await graphql(srv.graphqlUrl, `{ ${times(16, (i) => `a${i}: __type(name: "Product") { name }`)} }`, {
        token,
      });
      expect(codes(res.body)).toEqual([
        { code: 'MAX_ROOT_FIELDS_EXCEEDED', limit: 15 },
        { code: 'MAX_ALIASES_EXCEEDED', limit: 15 },
      ]);
      expect((await graphql(srv.graphqlUrl, FULL, { token })).status).toBe(200);
    } finally {
      await srv.close();
    }
  });
});

describe('introspection spends rate-limit points (defaultFieldCost × defaultListSize = 10 a root field)', () => {
  let srv: RunningServer;
  beforeAll(async () => {
    srv = await startServer({
      graphql: {
        ...catalogGraphql(),
        introspection: { enabled: true },
        rateLimit: { points: 25, durationSeconds: 60 },
      },
    });
  });
  afterAll(() => srv.close());

  test('two standard queries fit a budget of 25, the third is 429 with Retry-After', async () => {
    expect((await graphql(srv.graphqlUrl, STANDARD)).status).toBe(200);
    expect((await graphql(srv.graphqlUrl, STANDARD)).status).toBe(200);
    const third = await graphql(srv.graphqlUrl, STANDARD);
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(codes(third.body)).toEqual([{ code: 'RATE_LIMITED' }]);
  });

  test('a token whose budget data queries used up is refused introspection too', async () => {
    const rp = await relyingParty(srv.issuer);
    const token = (await signIn(srv.issuer, rp)).tokens.access_token;
    const aliases = `{ ${times(15, (i) => `a${i}: product(id: ${i + 1}) { id }`)} }`;
    expect((await graphql(srv.graphqlUrl, aliases, { token })).status).toBe(200);
    expect((await graphql(srv.graphqlUrl, aliases, { token })).status).toBe(429);
    const probe = await graphql(srv.graphqlUrl, '{ __type(name: "Product") { name } }', { token });
    expect(probe.status).toBe(429);
    expect(codes(probe.body)).toEqual([{ code: 'RATE_LIMITED' }]);
  });
});
