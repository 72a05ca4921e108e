import { createHash } from 'node:crypto';
import { getIntrospectionQuery } from 'graphql';
import { createServer } from '../../lib/index.js';
import { relyingParty, signIn } from '../helpers/flow.js';
import { catalogGraphql, graphql, startServer, type RunningServer } from '../helpers/server.js';
import { runSigningKeys } from '../helpers/run-resources.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';

/** Every relaxation of the GraphQL endpoint is an explicit option: each is tested on and off. */

const LEGACY_INTROSPECTION = getIntrospectionQuery().replace(
  /(directives\s*\{\s*name\s*description)/,
  '$1 onOperation onFragment onField',
);

describe('introspection when a deployment turns it on', () => {
  let srv: RunningServer;
  beforeAll(async () => {
    srv = await startServer({
      graphql: { ...catalogGraphql(), introspection: { enabled: true }, transports: { get: true } },
    });
  });
  afterAll(() => srv.close());

  test('the probe answers the query type name', async () => {
    expect((await graphql(srv.graphqlUrl, '{__schema{queryType{name}}}')).body).toEqual({
      data: { __schema: { queryType: { name: 'Query' } } },
    });
  });

  test('the full introspection query returns the whole schema (the depth and cost limits do not apply to it)', async () => {
    const res = await graphql(srv.graphqlUrl, getIntrospectionQuery());
    expect(res.status).toBe(200);
    const types = (res.body.data!.__schema as { types: Array<{ name: string }> }).types.map((t) => t.name);
    expect(types).toEqual(expect.arrayContaining(['Query', 'Product', 'ProductSort']));
  });

  test('the legacy query with onOperation/onFragment/onField runs (the members are stripped)', async () => {
    expect(LEGACY_INTROSPECTION).toContain('onOperation');
    const res = await graphql(srv.graphqlUrl, LEGACY_INTROSPECTION);
    expect(res.status).toBe(200);
    const directives = (res.body.data!.__schema as { directives: Array<Record<string, unknown>> }).directives;
    expect(directives.map((d) => d.name)).toEqual(expect.arrayContaining(['include', 'skip', 'requiresScopes']));
  });

  test('over GET as well', async () => {
    const res = await fetch(`${srv.graphqlUrl}?${new URLSearchParams({ query: LEGACY_INTROSPECTION })}`);
    expect(res.status).toBe(200);
  });

  test('data queries mixed in still obey the limits', async () => {
    const res = await graphql(
      srv.graphqlUrl,
      `{ __schema { queryType { name } } products { ${'related { '.repeat(6)}id${' }'.repeat(6)} } }`,
    );
    expect(res.body.errors?.[0]?.extensions?.code).toBe('MAX_DEPTH_EXCEEDED');
  });
});

describe('introspection limited to a scope', () => {
  let srv: RunningServer;
  beforeAll(async () => {
    srv = await startServer({
      graphql: { ...catalogGraphql(), introspection: { enabled: true, requiredScope: 'catalog:admin' } },
    });
  });
  afterAll(() => srv.close());

  test('anonymous and alice are refused, admin with catalog:admin may introspect', async () => {
    const rp = await relyingParty(srv.issuer);
    const alice = (await signIn(srv.issuer, rp, { params: { scope: 'openid catalog:admin' } })).tokens.access_token;
    const admin = (
      await signIn(srv.issuer, rp, {
        email: 'admin@example.com',
        password: 'admin-demo-password',
        params: { scope: 'openid catalog:admin' },
      })
    ).tokens.access_token;
    const probe = '{ __schema { queryType { name } } }';
    expect((await graphql(srv.graphqlUrl, probe)).body.errors?.[0]?.extensions?.code).toBe('INTROSPECTION_DISABLED');
    expect((await graphql(srv.graphqlUrl, probe, { token: alice })).body.errors?.[0]?.extensions?.code).toBe(
      'INTROSPECTION_DISABLED',
    );
    expect((await graphql(srv.graphqlUrl, probe, { token: admin })).body).toEqual({
      data: { __schema: { queryType: { name: 'Query' } } },
    });
    // The same document again, anonymous: the decision is per request, not cached with the document.
    expect((await graphql(srv.graphqlUrl, probe)).status).toBe(401); // statuses: introspection-scope.test.ts
  });
});

describe('rate limit on executed operations', () => {
  let srv: RunningServer;
  beforeAll(async () => {
    srv = await startServer({ graphql: { ...catalogGraphql(), rateLimit: { points: 20, durationSeconds: 60 } } });
  });
  afterAll(() => srv.close());
  const aliases = (n: number) =>
    `{ ${Array.from({ length: n }, (_, i) => `a${i}: product(id: ${i + 1}) { id }`).join(' ')} }`;

  test('each alias is executed and counted: 15 + 15 aliases exceed a budget of 20 → 429 with Retry-After', async () => {
    // Reading a document not seen before spends a point (parse-charge.test.ts): `{ __typename }` is made known first.
    expect((await graphql(srv.graphqlUrl, '{ __typename }')).status).toBe(200);
    const first = await graphql(srv.graphqlUrl, aliases(15));
    expect(first.status).toBe(200);
    expect(Object.keys(first.body.data!)).toHaveLength(15);
    const second = await graphql(srv.graphqlUrl, aliases(15));
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(second.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(second.body.data).toBeUndefined();
    // Refused operations spend too (rate-limiter-flexible counts every attempt): a 1-alias request is refused
    // for the rest of the window, while a known __typename document, which executes no resolver, is free.
    expect((await graphql(srv.graphqlUrl, aliases(1))).status).toBe(429);
    expect((await graphql(srv.graphqlUrl, '{ __typename }')).status).toBe(200);
  });

  test("a token holder has a budget of its own (subject + client), not the IP's", async () => {
    const rp = await relyingParty(srv.issuer);
    const token = (await signIn(srv.issuer, rp)).tokens.access_token;
    expect((await graphql(srv.graphqlUrl, aliases(15), { token })).status).toBe(200);
    expect((await graphql(srv.graphqlUrl, aliases(15), { token })).status).toBe(429);
  });

  // An alias below the root is another call with arguments of the caller's choosing: 14 of them under one root field
  // spend 15 points, so a second such request exceeds the budget of 20 (before, each spent 1: 20 requests, 280 calls).
  const fourteen = (field = 'related(first: 1) { id }') =>
    Array.from({ length: 14 }, (_, i) => `a${i}: ${field}`).join(' ');
  test.each([
    ['aliases of a nested field', `{ product(id: 1) { ${fourteen()} } }`],
    [
      'aliases in a fragment spread below the root',
      `{ product(id: 1) { ...R } } fragment R on Product { ${fourteen()} }`,
    ],
    ['aliases in an inline fragment below the root', `{ product(id: 1) { ... on Product { ${fourteen()} } } }`],
    ['aliases two levels down', `{ products(first: 1) { related(first: 1) { ${fourteen()} } } }`],
  ])('%s count: the second request is 429', async (_name, query) => {
    const own = await startServer({ graphql: { ...catalogGraphql(), rateLimit: { points: 20, durationSeconds: 60 } } });
    try {
      const first = await graphql(own.graphqlUrl, query);
      expect({ status: first.status, errors: first.body.errors }).toEqual({ status: 200, errors: undefined });
      const second = await graphql(own.graphqlUrl, query);
      expect({ status: second.status, errors: second.body.errors }).toEqual({
        status: 429,
        errors: [
          {
            message: expect.stringMatching(/^Rate limit exceeded: this operation would spend 15 point\(s\)/),
            extensions: { code: 'RATE_LIMITED' },
          },
        ],
      });
    } finally {
      await own.close();
    }
  });

  test('rateLimit: false turns it off', async () => {
    const off = await startServer({ graphql: { ...catalogGraphql(), rateLimit: false } });
    try {
      for (let i = 0; i < 3; i++) expect((await graphql(off.graphqlUrl, aliases(15))).status).toBe(200);
    } finally {
      await off.close();
    }
  });
});

describe('trusted documents, batching, limits from config', () => {
  test('only allow-listed documents run', async () => {
    const srv = await startServer({ graphql: { ...catalogGraphql(), trustedDocuments: ['{ products { id } }'] } });
    try {
      expect((await graphql(srv.graphqlUrl, '{ products { id } }')).status).toBe(200);
      const other = await graphql(srv.graphqlUrl, '{ products { id name } }');
      expect(other.status).toBe(400);
      expect(other.body.errors?.[0]?.extensions?.code).toBe('UNTRUSTED_DOCUMENT');
      // The allow-list is of texts: a listed document's SHA-256 as a persisted-query hash does not stand for it.
      const hash = createHash('sha256').update('{ products { id } }').digest('hex');
      for (const body of [
        { extensions: { persistedQuery: { version: 1, sha256Hash: hash } } },
        { query: '{ products { id } }', extensions: { persistedQuery: { version: 1, sha256Hash: hash } } },
      ]) {
        const res = await fetch(srv.graphqlUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect({ status: res.status, body: await res.json() }).toEqual({
          status: 400,
          body: {
            errors: [
              {
                message: 'Automatic persisted queries are not supported here: send the full query text.',
                extensions: { code: 'PERSISTED_QUERY_NOT_SUPPORTED' },
              },
            ],
          },
        });
      }
    } finally {
      await srv.close();
    }
  });

  test('maxBatchSize allows small batches; each operation still meets every limit', async () => {
    const srv = await startServer({ graphql: { ...catalogGraphql(), maxBatchSize: 2 } });
    const send = (body: unknown) =>
      fetch(srv.graphqlUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    try {
      const two = await send([{ query: '{ __typename }' }, { query: '{ product(id: 1) { name } }' }]);
      expect(two.status).toBe(200);
      expect(await two.json()).toEqual([
        { data: { __typename: 'Query' } },
        { data: { product: { name: 'Desk Lamp' } } },
      ]);
      const three = await send([{ query: '{ __typename }' }, { query: '{ __typename }' }, { query: '{ __typename }' }]);
      expect(three.status).toBe(400);
      expect(JSON.stringify(await three.json())).toContain('BATCH_TOO_LARGE');
      const deep = await send([
        { query: '{ __typename }' },
        { query: `{ products { ${'related { '.repeat(6)}id${' }'.repeat(6)} } }` },
      ]);
      expect(deep.status).toBe(400);
      expect(JSON.stringify(await deep.json())).toContain('MAX_DEPTH_EXCEEDED');
    } finally {
      await srv.close();
    }
  });

  test('limits are configurable', async () => {
    const srv = await startServer({ graphql: { ...catalogGraphql(), limits: { maxDepth: 1, maxAliases: 0 } } });
    try {
      expect((await graphql(srv.graphqlUrl, '{ products { id } }')).body.errors?.[0]?.extensions).toEqual({
        code: 'MAX_DEPTH_EXCEEDED',
        limit: 1,
      });
      expect((await graphql(srv.graphqlUrl, '{ a: __typename }')).body.errors?.[0]?.extensions).toEqual({
        code: 'MAX_ALIASES_EXCEEDED',
        limit: 0,
      });
    } finally {
      await srv.close();
    }
  });

  test.each([
    [{ limits: { maxDepth: 0 } }, 'graphql.limits.maxDepth'],
    [{ limits: { maxDeepness: 3 } }, 'graphql.limits.maxDeepness'],
    [{ corsOrigins: ['http://localhost:8080/path'] }, 'graphql.corsOrigins[0]'],
    [{ transports: { get: 'yes' } }, 'graphql.transports.get'],
    // `false | { points, durationSeconds }`: an object is held to the object's rules, naming the member.
    [{ rateLimit: { points: 10 } }, 'graphql.rateLimit.durationSeconds'],
    [{ rateLimit: true }, 'graphql.rateLimit'],
    [{ privateFieldCheck: 'ignore' }, 'graphql.privateFieldCheck'],
  ])('invalid option %j is refused naming %s', async (extra, path) => {
    await expect(
      createServer({ issuer: 'http://localhost:3999', graphql: { ...catalogGraphql(), ...extra } as never }),
    ).rejects.toMatchObject({ path });
  });
});

describe('authorization', () => {
  let srv: RunningServer;
  beforeAll(async () => {
    srv = await startServer();
  });
  afterAll(() => srv.close());

  test('@requiresScopes is enforced before the resolver: FORBIDDEN without the scope, data with it', async () => {
    const rp = await relyingParty(srv.issuer);
    const alice = (await signIn(srv.issuer, rp, { params: { scope: 'openid catalog:admin' } })).tokens.access_token;
    const admin = (
      await signIn(srv.issuer, rp, {
        email: 'admin@example.com',
        password: 'admin-demo-password',
        params: { scope: 'openid catalog:admin' },
      })
    ).tokens.access_token;
    const q = '{ delistedProducts { id name } }';
    for (const token of [undefined, alice]) {
      const res = await graphql(srv.graphqlUrl, q, { token });
      expect(res.body).toEqual({
        data: null,
        errors: [
          expect.objectContaining({ message: 'Not authorized to read this field.', extensions: { code: 'FORBIDDEN' } }),
        ],
      });
    }
    expect((await graphql(srv.graphqlUrl, q, { token: admin })).body).toEqual({
      data: { delistedProducts: [{ id: 3, name: 'Prototype Drone' }] },
    });
  });

  const privateSchema = `type User { id: ID! email: String! passwordHash: String } type Query { me: User }`;

  test('the start-up check refuses private-looking fields when configured to', async () => {
    await expect(
      createServer({
        issuer: 'http://localhost:3999',
        graphql: { typeDefs: privateSchema, privateFieldCheck: 'refuse' },
      }),
    ).rejects.toMatchObject({
      path: 'graphql.typeDefs',
      message: expect.stringContaining('User.email, User.passwordHash'),
    });
  });

  test('it warns by default, and explicit markers satisfy it; the example schema passes', async () => {
    const warnings: string[] = [];
    const logger = {
      warn: (o: unknown, msg?: string) => warnings.push(String(msg ?? o)),
      info() {},
      error() {},
      debug() {},
      child() {
        return logger;
      },
    };
    const warned = await createServer({
      issuer: 'http://localhost:3999',
      logger: logger as never,
      keys: { signing: runSigningKeys(), cookies: ['x'.repeat(32)] },
      graphql: { typeDefs: privateSchema },
    });
    await warned.close();
    expect(warnings.some((w) => /User\.email, User\.passwordHash/.test(w))).toBe(true);
    warnings.length = 0;
    const marked = `type User { id: ID! email: String! @requiresScopes(scopes: ["email"]) passwordHash: String @public(reason: "a bcrypt demo") } type Query { me: User }`;
    await (
      await createServer({
        issuer: 'http://localhost:3999',
        logger: logger as never,
        keys: { signing: runSigningKeys(), cookies: ['x'.repeat(32)] },
        graphql: { typeDefs: marked, privateFieldCheck: 'refuse' },
      })
    ).close();
    // With the scope its @requiresScopes names configured, as the demo does (else that mark is warned about).
    const example = await createServer({
      issuer: 'http://localhost:3999',
      logger: logger as never,
      keys: { signing: runSigningKeys(), cookies: ['x'.repeat(32)] },
      scopes: demoFixtures().scopes,
      graphql: { ...catalogGraphql(), privateFieldCheck: 'refuse' },
    });
    await example.close();
    expect(warnings.filter((w) => w.startsWith('graphql'))).toEqual([]);
  });
});
