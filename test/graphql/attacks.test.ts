import { getIntrospectionQuery } from 'graphql';
import { catalogGraphql, startServer, type RunningServer } from '../helpers/server.js';

/**
 * The attack table of issue 7: every row is a real HTTP request against a real server (SPEC area B, OWASP
 * GraphQL Cheat Sheet, graphql-cop checks) with the exact rejection it must get.
 */

let strict: RunningServer; // defaults: POST JSON only, introspection off
let open: RunningServer; // GET and form transports on, introspection still off

beforeAll(async () => {
  strict = await startServer();
  open = await startServer({ graphql: { ...catalogGraphql(), transports: { get: true, form: true } } });
});
afterAll(async () => {
  await strict.close();
  await open.close();
});

interface Sent {
  status: number;
  headers: Headers;
  text: string;
  json?: { data?: unknown; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> };
}

async function send(url: string, init: RequestInit): Promise<Sent> {
  const res = await fetch(url, init);
  const text = await res.text();
  let json: Sent['json'];
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}
const postJson =
  (srv: () => RunningServer, body: unknown, headers: Record<string, string> = {}) =>
  () =>
    send(srv().graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
const post = (query: string, variables?: Record<string, unknown>) => postJson(() => strict, { query, variables });
const get = (query: string) => () => send(`${open.graphqlUrl}?${new URLSearchParams({ query })}`, { method: 'GET' });
async function csrfToken(srv: RunningServer): Promise<{ token: string; cookie: string }> {
  const res = await fetch(`${srv.graphqlUrl}/csrf-token`);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  return { token: ((await res.json()) as { csrf_token: string }).csrf_token, cookie };
}
const form = (query: string, variables?: Record<string, unknown>) => async () => {
  const { token, cookie } = await csrfToken(open);
  const fields = new URLSearchParams({
    query,
    csrf_token: token,
    ...(variables ? { variables: JSON.stringify(variables) } : {}),
  });
  return send(open.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: fields.toString(),
  });
};

/** A form POST of `{__typename}` with its CSRF token and cookie, and `extra` (raw `name=value` pairs) appended. */
const formWith = (extra: string) => async () => {
  const { token, cookie } = await csrfToken(open);
  const fields = `${new URLSearchParams({ query: '{__typename}', csrf_token: token })}&${extra}`;
  return send(open.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: fields,
  });
};
const ONLY_THESE_FIELDS =
  'A form may hold only the fields query, variables (JSON), operationName and csrf_token, each once.';

const aliases = (n: number, field = 'product(id: 1) { id }') =>
  `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(' ')} }`;
const fragmentBomb = (n = 24) =>
  `query { ...F${n} }\nfragment F0 on Query { products { id } }\n${Array.from({ length: n }, (_, i) => `fragment F${i + 1} on Query { ...F${i} ...F${i} }`).join('\n')}`;
const nested = (depth: number) => `{ products { ${'related { '.repeat(depth)}id${' }'.repeat(depth)} } }`;

type Expect = { status: number; code?: string; codes?: string[]; allow?: string; message?: string };
const rows: Array<[string, () => Promise<Sent>, Expect]> = [
  // Introspection, decided on the parsed document (SPEC rule 7)
  [
    'introspection probe {__schema{queryType{name}}}',
    post('{__schema{queryType{name}}}'),
    { status: 400, code: 'INTROSPECTION_DISABLED' },
  ],
  [
    '__schema followed by a space',
    post('{__schema {queryType{name}}}'),
    { status: 400, code: 'INTROSPECTION_DISABLED' },
  ],
  [
    '__schema followed by a newline',
    post('{__schema\n{queryType{name}}}'),
    { status: 400, code: 'INTROSPECTION_DISABLED' },
  ],
  [
    '__schema followed by a comma',
    post('{__schema,{queryType{name}}}'),
    { status: 400, code: 'INTROSPECTION_DISABLED' },
  ],
  [
    '__schema followed by a comment',
    post('{__schema #x\n{queryType{name}}}'),
    { status: 400, code: 'INTROSPECTION_DISABLED' },
  ],
  [
    '__schema behind an alias',
    post('{ s: __schema { types { name } } }'),
    { status: 400, code: 'INTROSPECTION_DISABLED' },
  ],
  [
    '__schema inside a fragment',
    post('{ ...F } fragment F on Query { __schema { types { name } } }'),
    { status: 400, code: 'INTROSPECTION_DISABLED' },
  ],
  [
    '__type probe',
    post('{ __type(name: "Product") { fields { name } } }'),
    { status: 400, code: 'INTROSPECTION_DISABLED' },
  ],
  ['full introspection query', post(getIntrospectionQuery()), { status: 400, code: 'INTROSPECTION_DISABLED' }],
  ['introspection over GET', get('{__schema{queryType{name}}}'), { status: 400, code: 'INTROSPECTION_DISABLED' }],
  [
    'introspection over a form POST',
    form('{__schema{queryType{name}}}'),
    { status: 400, code: 'INTROSPECTION_DISABLED' },
  ],
  // Suggestions (SPEC rule 9)
  ['misspelt field', post('{ prodcts { id } }'), { status: 400, code: 'GRAPHQL_VALIDATION_FAILED' }],
  ['misspelt argument', post('{ product(idd: 1) { id } }'), { status: 400, code: 'GRAPHQL_VALIDATION_FAILED' }],
  [
    'misspelt type in a fragment',
    post('{ ...F } fragment F on Prodct { id }'),
    { status: 400, code: 'GRAPHQL_VALIDATION_FAILED' },
  ],
  ['misspelt enum literal', post('{ products(sort: NAM) { id } }'), { status: 400, code: 'GRAPHQL_VALIDATION_FAILED' }],
  [
    'misspelt enum value as a variable',
    post('query($s: ProductSort) { products(sort: $s) { id } }', { s: 'NAM' }),
    { status: 400, code: 'BAD_USER_INPUT' },
  ],
  [
    'misspelt enum value as a variable over GET',
    () =>
      send(
        `${open.graphqlUrl}?${new URLSearchParams({ query: 'query($s: ProductSort) { products(sort: $s) { id } }', variables: '{"s":"NEWES"}' })}`,
        { method: 'GET' },
      ),
    { status: 400, code: 'BAD_USER_INPUT' },
  ],
  [
    'misspelt enum value as a variable over a form POST',
    form('query($s: ProductSort) { products(sort: $s) { id } }', { s: 'NAMES' }),
    { status: 400, code: 'BAD_USER_INPUT' },
  ],
  ['misspelt field over GET', get('{ prodcts { id } }'), { status: 400, code: 'GRAPHQL_VALIDATION_FAILED' }],
  [
    'misspelt variable type',
    post('query($s: ProductSrt) { products(sort: $s) { id } }'),
    { status: 400, code: 'GRAPHQL_VALIDATION_FAILED' },
  ],
  // Limits
  [
    'alias overloading inside one field (16 aliases)',
    post(`{ products { ${Array.from({ length: 16 }, (_, i) => `n${i}: name`).join(' ')} } }`),
    { status: 400, codes: ['MAX_ALIASES_EXCEEDED'] },
  ],
  [
    'alias overloading at the root (60 aliases)',
    post(aliases(60)),
    { status: 400, codes: ['MAX_ROOT_FIELDS_EXCEEDED', 'MAX_ALIASES_EXCEEDED'] },
  ],
  [
    '__typename alias overloading',
    post(`{ products { ${Array.from({ length: 16 }, (_, i) => `t${i}: __typename`).join(' ')} } }`),
    { status: 400, codes: ['MAX_ALIASES_EXCEEDED'] },
  ],
  [
    'directive overloading (one error, not one per directive)',
    post(`{ __typename ${'@aa '.repeat(60)}}`),
    { status: 400, codes: ['MAX_DIRECTIVES_EXCEEDED'] },
  ],
  ['depth attack (related × 6)', post(nested(6)), { status: 400, codes: ['MAX_DEPTH_EXCEEDED', 'MAX_COST_EXCEEDED'] }],
  [
    'fragment bomb (24 fragments, ~1 kB)',
    post(fragmentBomb()),
    { status: 400, code: 'MAX_RECURSIVE_SELECTIONS_EXCEEDED' },
  ],
  [
    'root field overloading (16 root fields)',
    post(`{ ${Array.from({ length: 16 }, () => 'products { id }').join(' ')} }`),
    { status: 400, code: 'MAX_ROOT_FIELDS_EXCEEDED' },
  ],
  [
    'field duplication beyond the token limit',
    post(`{ products { ${'id '.repeat(1200)}} }`),
    { status: 400, code: 'MAX_TOKENS_EXCEEDED' },
  ],
  ['query over 16 kB', post(`{ products { id } } # ${'x'.repeat(17000)}`), { status: 413, code: 'QUERY_TOO_LARGE' }],
  ['1 MB alias bomb', post(aliases(40000)), { status: 413, code: 'PAYLOAD_TOO_LARGE' }],
  [
    'cost attack with literal list sizes',
    post('{ products(first: 1000) { related(first: 1000) { id } } }'),
    { status: 400, code: 'MAX_COST_EXCEEDED' },
  ],
  [
    'cost attack through a variable',
    post('query($n: Int) { products(first: $n) { related(first: $n) { id } } }', { n: 1000 }),
    { status: 400, code: 'MAX_COST_EXCEEDED' },
  ],
  [
    'batched array request',
    postJson(() => strict, [{ query: '{__typename}' }, { query: '{__typename}' }]),
    { status: 400, code: 'BATCHING_DISABLED' },
  ],
  [
    'automatic persisted query',
    postJson(() => strict, {
      query: '{__typename}',
      extensions: {
        persistedQuery: { version: 1, sha256Hash: 'ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38' },
      },
    }),
    { status: 400, code: 'PERSISTED_QUERY_NOT_SUPPORTED' },
  ],
  // Transport and CSRF (SPEC rule 4)
  [
    'GET on the default endpoint',
    () => send(`${strict.graphqlUrl}?query=%7B__typename%7D`, { method: 'GET' }),
    { status: 405, code: 'METHOD_NOT_ALLOWED', allow: 'POST' },
  ],
  [
    'text/plain POST (CSRF simple request)',
    postJson(() => strict, '{"query":"{__typename}"}', { 'content-type': 'text/plain' }),
    { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  ],
  [
    'form POST on the default endpoint',
    postJson(() => strict, 'query=%7B__typename%7D', { 'content-type': 'application/x-www-form-urlencoded' }),
    { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  ],
  [
    'multipart POST',
    postJson(() => strict, '--x\r\n\r\n', { 'content-type': 'multipart/form-data; boundary=x' }),
    { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  ],
  [
    'body that is not the declared JSON',
    postJson(() => strict, 'query={__typename}'),
    { status: 400, code: 'BAD_REQUEST' },
  ],
  [
    'GET with two query parameters (check one, run another)',
    () =>
      send(`${open.graphqlUrl}?query=%7B__typename%7D&query=%7B__schema%7Btypes%7Bname%7D%7D%7D`, { method: 'GET' }),
    { status: 400, code: 'BAD_REQUEST' },
  ],
  [
    'APQ hash over GET',
    () =>
      send(
        `${open.graphqlUrl}?${new URLSearchParams({ query: '{__typename}', extensions: '{"persistedQuery":{"version":1,"sha256Hash":"x"}}' })}`,
        { method: 'GET' },
      ),
    { status: 400, code: 'PERSISTED_QUERY_NOT_SUPPORTED' },
  ],
  // An APQ client (Apollo Client's PersistedQueryLink) first sends the hash alone and falls back to the full text
  // only on PERSISTED_QUERY_NOT_SUPPORTED: QUERY_MISSING here left it failing every operation.
  [
    "APQ hash without the query (an APQ client's first request)",
    postJson(() => strict, {
      variables: {},
      extensions: {
        persistedQuery: { version: 1, sha256Hash: 'ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38' },
      },
    }),
    { status: 400, code: 'PERSISTED_QUERY_NOT_SUPPORTED' },
  ],
  [
    'APQ hash without the query over GET',
    () =>
      send(
        `${open.graphqlUrl}?${new URLSearchParams({ extensions: '{"persistedQuery":{"version":1,"sha256Hash":"x"}}' })}`,
        { method: 'GET' },
      ),
    { status: 400, code: 'PERSISTED_QUERY_NOT_SUPPORTED' },
  ],
  ['mutation over GET', get('mutation { __typename }'), { status: 405, code: 'METHOD_NOT_ALLOWED', allow: 'POST' }],
  [
    'form POST without a CSRF token',
    () =>
      send(open.graphqlUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'query=%7B__typename%7D',
      }),
    { status: 403, code: 'CSRF_TOKEN_INVALID' },
  ],
  [
    'form POST with a token but without its cookie (cross-site)',
    async () => {
      const { token } = await csrfToken(open);
      return send(open.graphqlUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ query: '{__typename}', csrf_token: token }).toString(),
      });
    },
    { status: 403, code: 'CSRF_TOKEN_INVALID' },
  ],
  // The form parser (qs) drops names of Object.prototype before anything sees them: read from the raw body instead.
  [
    'form with a constructor field',
    formWith('constructor=1'),
    { status: 400, code: 'BAD_REQUEST', message: ONLY_THESE_FIELDS },
  ],
  [
    'form with a toString field',
    formWith('toString=1'),
    { status: 400, code: 'BAD_REQUEST', message: ONLY_THESE_FIELDS },
  ],
  [
    'form with a __proto__ field',
    formWith('__proto__=1'),
    { status: 400, code: 'BAD_REQUEST', message: ONLY_THESE_FIELDS },
  ],
  [
    'form with a __proto__[x] field',
    formWith('__proto__%5Bx%5D=1'),
    { status: 400, code: 'BAD_REQUEST', message: ONLY_THESE_FIELDS },
  ],
  [
    'form with an extensions field',
    formWith('extensions=%7B%7D'),
    { status: 400, code: 'BAD_REQUEST', message: ONLY_THESE_FIELDS },
  ],
  [
    'CSRF token endpoint while the form transport is off',
    () => send(`${strict.graphqlUrl}/csrf-token`, { method: 'GET' }),
    { status: 404, code: 'NOT_FOUND' },
  ],
  ['non-GraphQL request', postJson(() => strict, { hello: 'world' }), { status: 400, code: 'QUERY_MISSING' }],
  // Authorization
  ['scope-protected field without a token', post('{ delistedProducts { id } }'), { status: 200, code: 'FORBIDDEN' }],
  [
    'forged bearer token',
    postJson(
      () => strict,
      { query: '{__typename}' },
      { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.' },
    ),
    { status: 401, code: 'UNAUTHENTICATED' },
  ],
];

describe('attack table over HTTP', () => {
  test('has at least 30 rows', () => expect(rows.length).toBeGreaterThanOrEqual(30));

  test.each(rows)('%s', async (_name, request, expected) => {
    const res = await request();
    expect(res.status).toBe(expected.status);
    if (expected.code) expect(res.json?.errors?.[0]?.extensions?.code).toBe(expected.code);
    if (expected.codes) expect(res.json?.errors?.map((e) => e.extensions?.code)).toEqual(expected.codes);
    if (expected.allow) expect(res.headers.get('allow')).toBe(expected.allow);
    if (expected.message) expect(res.json?.errors?.[0]?.message).toBe(expected.message);
    if (expected.status !== 200) expect(res.json?.data ?? null).toBeNull();
    expect(res.text).not.toMatch(/did you mean|stacktrace|__schema\s*\{|<html/i);
  });
});

describe('what must keep working', () => {
  test.each([
    ['POST JSON', post('query{__typename}')],
    ['GET', get('query{__typename}')],
    ['form POST with its CSRF token', form('query{__typename}')],
  ])('query{__typename} over %s', async (_name, request) => {
    const res = await request();
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { __typename: 'Query' } });
  });

  test('limits at their maximum pass: 15 aliases, depth 6, variables', async () => {
    expect((await post(aliases(15))()).json).toEqual({
      data: Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`a${i}`, { id: 1 }])),
    });
    const deep = await post(
      '{ products(first: 1) { related(first: 1) { related(first: 1) { related(first: 1) { related(first: 1) { id } } } } } }',
    )();
    expect(deep.status).toBe(200);
    const vars = await post('query getProduct($id: Int!) { product(id: $id) { name } }', { id: 2 })();
    expect(vars.json).toEqual({ data: { product: { name: 'Office Chair' } } });
  });

  test('a document checked once is still measured per request: its variables and its operationName', async () => {
    const query = 'query Cached($n: Int) { products(first: $n) { related(first: $n) { id } } }';
    expect((await post(query, { n: 1 })()).status).toBe(200);
    const costly = await post(query, { n: 1000 })();
    expect([costly.status, costly.json?.errors?.[0]?.extensions?.code]).toEqual([400, 'MAX_COST_EXCEEDED']);
    const badInput = await post(query, { n: 'many' })();
    expect([badInput.status, badInput.json?.errors?.[0]?.extensions?.code]).toEqual([400, 'BAD_USER_INPUT']);
    expect((await post(query, { n: 1 })()).status).toBe(200);
    const two = 'query A { products(first: 1) { id } } query B { product(id: 1) { id } }';
    const named = (operationName?: string) => postJson(() => strict, { query: two, operationName })();
    expect((await named('A')).json).toEqual({ data: { products: [{ id: 1 }] } });
    for (const operationName of ['C', undefined]) {
      const res = await named(operationName);
      expect([res.status, res.json?.errors?.[0]?.extensions?.code]).toEqual([400, 'OPERATION_RESOLUTION_FAILURE']);
    }
    expect((await named('B')).json).toEqual({ data: { product: { id: 1 } } });
  });

  // docs/guides/graphql-security.md says so: with introspection off, graphql-js' own messages still name types and tell a
  // declared directive from an unknown one. An upgrade that changes them shows here.
  test('what validation messages still tell with introspection off (README)', async () => {
    const messages = async (query: string) => (await post(query)()).json?.errors?.map((e) => e.message);
    expect(await messages('{ product(id: 1) { nope } }')).toEqual(['Cannot query field "nope" on type "Product".']);
    expect(await messages('{ products(sort: 1) { id } }')).toEqual([
      'Enum "ProductSort" cannot represent non-enum value: 1.',
    ]);
    expect(await messages('{ product(id: "x") { id } }')).toEqual(['Int cannot represent non-integer value: "x"']);
    expect(await messages('{ products @requiresScopes(scopes: []) { id } }')).toEqual([
      'Directive "@requiresScopes" may not be used on FIELD.',
    ]);
    expect(await messages('{ products @aa { id } }')).toEqual(['Unknown directive "@aa".']);
  });

  test('the fragment bomb is refused by the limits in milliseconds (no graphql-depth-limit walk)', async () => {
    const res = await post(fragmentBomb(30))();
    expect(res.json?.errors?.map((e) => e.extensions?.code)).toEqual([
      'MAX_RECURSIVE_SELECTIONS_EXCEEDED',
      'MAX_ROOT_FIELDS_EXCEEDED',
      'MAX_COST_EXCEEDED',
    ]);
  });

  test('CORS: only configured origins get CORS headers', async () => {
    const local = await startServer({ graphql: { ...catalogGraphql(), corsOrigins: ['http://localhost:8080'] } });
    try {
      const preflight = (origin: string) =>
        fetch(local.graphqlUrl, {
          method: 'OPTIONS',
          headers: {
            origin,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'content-type,authorization',
          },
        });
      const good = await preflight('http://localhost:8080');
      expect(good.status).toBe(204);
      expect(good.headers.get('access-control-allow-origin')).toBe('http://localhost:8080');
      expect(good.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
      const evil = await preflight('https://evil.example');
      expect(evil.status).toBe(405);
      expect(evil.headers.get('access-control-allow-origin')).toBeNull();
      const byDefault = await fetch(strict.graphqlUrl, {
        method: 'OPTIONS',
        headers: { origin: 'http://localhost:8080', 'access-control-request-method': 'POST' },
      });
      expect(byDefault.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await local.close();
    }
  });
});
