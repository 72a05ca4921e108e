import { getIntrospectionQuery } from 'graphql';
import type { GraphqlRejection } from '../../lib/graphql/rejections.js';
import { catalogGraphql, startServer, type RunningServer } from '../helpers/server.js';

/**
 * `graphql.onReject`: a host observes every refusal of the endpoint (the transport guard's, the document gate's, the
 * rate limit's inside Apollo) with the answer's status, code and message, and its hook failing changes no answer.
 */

const aliases = (n: number) =>
  `{ products(first: 1) { ${Array.from({ length: n }, (_, i) => `n${i}: name`).join(' ')} } }`;
const nested = (n: number) => `{ products(first: 1) { ${'related(first: 1) { '.repeat(n)}id${' }'.repeat(n)} } }`;
const APQ = {
  persistedQuery: { version: 1, sha256Hash: 'ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38' },
};

type Body = string | Record<string, unknown> | unknown[];
const rows: Array<[string, Body, number, string]> = [
  ['depth', { query: nested(6) }, 400, 'MAX_DEPTH_EXCEEDED'],
  ['aliases', { query: aliases(16) }, 400, 'MAX_ALIASES_EXCEEDED'],
  [
    'cost (literal sizes)',
    { query: '{ products(first: 1000) { related(first: 1000) { id } } }' },
    400,
    'MAX_COST_EXCEEDED',
  ],
  [
    'cost (with the variables)',
    { query: 'query($n: Int) { products(first: $n) { related(first: $n) { id } } }', variables: { n: 1000 } },
    400,
    'MAX_COST_EXCEEDED',
  ],
  ['size', { query: `{ products { id } } # ${'x'.repeat(17000)}` }, 413, 'QUERY_TOO_LARGE'],
  ['tokens', { query: `{ products { ${'id '.repeat(1200)}} }` }, 400, 'MAX_TOKENS_EXCEEDED'],
  ['syntax', { query: '{ products { id }' }, 400, 'GRAPHQL_PARSE_FAILED'],
  ['validation', { query: '{ prodcts { id } }' }, 400, 'GRAPHQL_VALIDATION_FAILED'],
  ['introspection', { query: getIntrospectionQuery() }, 400, 'INTROSPECTION_DISABLED'],
  ['persisted query', { query: '{ __typename }', extensions: APQ }, 400, 'PERSISTED_QUERY_NOT_SUPPORTED'],
  ['persisted query hash alone', { extensions: APQ }, 400, 'PERSISTED_QUERY_NOT_SUPPORTED'],
  ['operation name', { query: '{ __typename }', operationName: 'Missing' }, 400, 'OPERATION_RESOLUTION_FAILURE'],
  [
    'variables',
    { query: 'query($s: ProductSort) { products(sort: $s) { id } }', variables: { s: 'NAM' } },
    400,
    'BAD_USER_INPUT',
  ],
  ['batch', [{ query: '{ __typename }' }, { query: '{ __typename }' }], 400, 'BATCHING_DISABLED'],
  ['not GraphQL', { hello: 'world' }, 400, 'QUERY_MISSING'],
  ['body', 'query={__typename}', 400, 'BAD_REQUEST'],
];

const post = (srv: RunningServer, body: Body, headers: Record<string, string> = {}) =>
  fetch(srv.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

async function answer(res: Response) {
  return {
    status: res.status,
    body: await res.text(),
    type: res.headers.get('content-type'),
    auth: res.headers.get('www-authenticate'),
    retry: res.headers.get('retry-after'),
  };
}

describe('graphql.onReject sees each kind of refusal', () => {
  const seen: GraphqlRejection[] = [];
  let srv: RunningServer;
  beforeAll(async () => {
    srv = await startServer({
      graphql: {
        ...catalogGraphql(),
        onReject: (r) => {
          seen.push(r);
        },
      },
    });
  });
  afterAll(() => srv.close());
  beforeEach(() => {
    seen.length = 0;
  });

  test.each(rows)('%s: told the status, code and message the client got', async (_name, body, status, code) => {
    const res = await post(srv, body);
    const sent = (await res.json()) as { errors: Array<{ message: string; extensions: { code: string } }> };
    expect(res.status).toBe(status);
    expect(sent.errors[0]!.extensions.code).toBe(code);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ status, code, message: sent.errors[0]!.message, method: 'POST', path: '/graphql' });
    expect(seen[0]!.errors).toEqual(sent.errors);
    expect(typeof seen[0]!.ip).toBe('string');
  });

  test('the operation name of the request is given', async () => {
    await post(srv, { query: `query Deep ${nested(6)}`, operationName: 'Deep' });
    expect(seen[0]).toMatchObject({ code: 'MAX_DEPTH_EXCEEDED', operationName: 'Deep' });
  });

  test('an answered operation is not a refusal', async () => {
    expect((await post(srv, { query: '{ products(first: 1) { id } }' })).status).toBe(200);
    expect(seen).toEqual([]);
  });
});

describe('graphql.onReject sees refusals made inside Apollo and per caller', () => {
  test('the rate limit spent per operation (429 RATE_LIMITED)', async () => {
    const seen: GraphqlRejection[] = [];
    const srv = await startServer({
      graphql: {
        ...catalogGraphql(),
        rateLimit: { points: 2, durationSeconds: 60 },
        onReject: (r) => {
          seen.push(r);
        },
      },
    });
    try {
      const res = await post(srv, {
        query: '{ a: products(first: 1) { id } b: products(first: 1) { id } c: products(first: 1) { id } }',
      });
      expect(res.status).toBe(429);
      const sent = (await res.json()) as { errors: Array<{ message: string; extensions: { code: string } }> };
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ status: 429, code: 'RATE_LIMITED', message: sent.errors[0]!.message });
    } finally {
      await srv.close();
    }
  });

  test('introspection that needs a scope (401 with the challenge)', async () => {
    const seen: GraphqlRejection[] = [];
    const srv = await startServer({
      graphql: {
        ...catalogGraphql(),
        introspection: { enabled: true, requiredScope: 'catalog:admin' },
        onReject: (r) => {
          seen.push(r);
        },
      },
    });
    try {
      const res = await post(srv, { query: '{ __schema { queryType { name } } }' });
      expect(res.status).toBe(401);
      expect(seen[0]).toMatchObject({ status: 401, code: 'INTROSPECTION_DISABLED' });
    } finally {
      await srv.close();
    }
  });

  test('an untrusted document', async () => {
    const seen: GraphqlRejection[] = [];
    const srv = await startServer({
      graphql: {
        ...catalogGraphql(),
        trustedDocuments: ['{ __typename }'],
        onReject: (r) => {
          seen.push(r);
        },
      },
    });
    try {
      expect((await post(srv, { query: '{ products { id } }' })).status).toBe(400);
      expect(seen[0]).toMatchObject({ status: 400, code: 'UNTRUSTED_DOCUMENT' });
    } finally {
      await srv.close();
    }
  });
});

describe('a hook that fails changes no answer', () => {
  let quiet: RunningServer;
  let throwing: RunningServer;
  let rejecting: RunningServer;
  beforeAll(async () => {
    quiet = await startServer({ graphql: catalogGraphql() });
    throwing = await startServer({
      graphql: {
        ...catalogGraphql(),
        onReject: () => {
          throw new Error('host bug');
        },
      },
    });
    rejecting = await startServer({
      graphql: { ...catalogGraphql(), onReject: () => Promise.reject(new Error('host bug')) },
    });
  });
  afterAll(async () => {
    await Promise.all([quiet.close(), throwing.close(), rejecting.close()]);
  });

  test.each(rows)('%s: the same status, headers and body as without a hook', async (_name, body) => {
    const expected = await answer(await post(quiet, body));
    expect(await answer(await post(throwing, body))).toEqual(expected);
    expect(await answer(await post(rejecting, body))).toEqual(expected);
  });
});
