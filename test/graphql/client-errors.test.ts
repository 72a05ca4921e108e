import { gzipSync } from 'node:zlib';
import { buildSchema, parse, specifiedRules, validate } from 'graphql';
import { KnownOperationTypesRule } from '../../lib/graphql/rules/index.js';
import { catalogGraphql, startServer, type RunningServer } from '../helpers/server.js';
import { opsResolvers, opsTypeDefs } from './ops-schema.js';
import { AUTHORIZATION_TYPE_DEFS } from '../../lib/graphql/index.js';

/**
 * Issue 10, GraphQL correctness: every client mistake is a 4xx with a specific `extensions.code` and a message
 * that names the mistake, never a 5xx, a stack or an internal message. One row per graphql-js validation rule,
 * one row per transport or operation mistake, one row per way of hiding a list size from the cost limit.
 */

let ops: RunningServer; // the test schema with Query, Mutation and Subscription; introspection on (MaxIntrospectionDepthRule)
let catalog: RunningServer; // the demo catalog: Query only, defaults (POST JSON only)
let open: RunningServer; // the demo catalog with GET, forms and batches of 2

beforeAll(async () => {
  [ops, catalog, open] = await Promise.all([
    startServer({
      graphql: { path: '/graphql', typeDefs: opsTypeDefs, resolvers: opsResolvers, introspection: { enabled: true } },
    }),
    startServer(),
    startServer({ graphql: { ...catalogGraphql(), transports: { get: true, form: true }, maxBatchSize: 2 } }),
  ]);
});
afterAll(async () => {
  await Promise.all([ops.close(), catalog.close(), open.close()]);
});

interface Sent {
  status: number;
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
  return { status: res.status, text, json };
}
const body =
  (srv: () => RunningServer, raw: string, contentType = 'application/json') =>
  () =>
    send(srv().graphqlUrl, { method: 'POST', headers: { 'content-type': contentType }, body: raw });
const json = (srv: () => RunningServer, value: unknown) => body(srv, JSON.stringify(value));
const getQs = (srv: () => RunningServer, params: Record<string, string>) => () =>
  send(`${srv().graphqlUrl}?${new URLSearchParams(params)}`, { method: 'GET' });
const encoded = (encoding: string, raw: string | Uint8Array) => () =>
  send(catalog.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-encoding': encoding },
    body: typeof raw === 'string' ? raw : new Uint8Array(raw),
  });
/** A form POST to `open` (forms on) with a valid CSRF token and its cookie, plus `fields` and `more` (repeats). */
const form =
  (fields: Record<string, string>, more: Array<[string, string]> = []) =>
  async () => {
    const res = await fetch(`${open.graphqlUrl}/csrf-token`);
    const cookie = res.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const { csrf_token: token } = (await res.json()) as { csrf_token: string };
    const params = new URLSearchParams({ ...fields, csrf_token: token });
    for (const [name, value] of more) params.append(name, value);
    return send(open.graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: params.toString(),
    });
  };

/** What no answer to a client may contain: internal messages, stack frames, the word undefined, suggestions. */
const INTERNAL =
  /Cannot read propert|undefined|stacktrace|\n\s+at |\bat [\w.]+ \(|INTERNAL_SERVER_ERROR|TypeError|ReferenceError|did you mean|<html/i;

function expectClientError(res: Sent, status: number, code: string) {
  expect({ status: res.status, code: res.json?.errors?.[0]?.extensions?.code }).toEqual({ status, code });
  expect(res.json?.errors?.[0]?.message).toMatch(/\w{3,}/);
  expect(res.json?.data ?? null).toBeNull();
  expect(res.text).not.toMatch(INTERNAL);
}

// ---------------------------------------------------------------------------------------------------------
// One row per graphql-js validation rule (graphql 16 `specifiedRules`) and ours, each a document breaking it.

const opsSchema = buildSchema(`${AUTHORIZATION_TYPE_DEFS}\n${opsTypeDefs}`);
const catalogSchema = buildSchema(`${AUTHORIZATION_TYPE_DEFS}\n${catalogGraphql().typeDefs}`);

const ruleRows: Record<string, { query: string; operationName?: string; catalog?: boolean }> = {
  ExecutableDefinitionsRule: { query: '{ pageSize } type Extra { a: Int }' },
  UniqueOperationNamesRule: { query: 'query A { pageSize } query A { __typename }', operationName: 'A' },
  LoneAnonymousOperationRule: { query: '{ pageSize } query B { __typename }', operationName: 'B' },
  SingleFieldSubscriptionsRule: { query: 'subscription S { productAdded { id } reviewAdded { id } }' },
  KnownTypeNamesRule: { query: '{ product(id: 1) { ... on Prodct { id } } }' },
  FragmentsOnCompositeTypesRule: { query: '{ product(id: 1) { ... on Int { id } } }' },
  VariablesAreInputTypesRule: { query: 'query($p: Product) { product(id: $p) { id } }' },
  ScalarLeafsRule: { query: '{ product(id: 1) }' },
  FieldsOnCorrectTypeRule: { query: '{ product(id: 1) { nope } }' },
  UniqueFragmentNamesRule: {
    query: '{ product(id: 1) { ...F } } fragment F on Product { id } fragment F on Product { name }',
  },
  KnownFragmentNamesRule: { query: '{ product(id: 1) { ...Missing } }' },
  NoUnusedFragmentsRule: { query: '{ pageSize } fragment F on Product { id }' },
  PossibleFragmentSpreadsRule: { query: '{ product(id: 1) { ... on Review { stars } } }' },
  NoFragmentCyclesRule: {
    query:
      '{ product(id: 1) { ...A } } fragment A on Product { related { ...B } } fragment B on Product { related { ...A } }',
  },
  UniqueVariableNamesRule: { query: 'query($a: Int!, $a: Int!) { product(id: $a) { id } }' },
  NoUndefinedVariablesRule: { query: '{ product(id: $id) { id } }' },
  NoUnusedVariablesRule: { query: 'query($a: Int) { pageSize }' },
  KnownDirectivesRule: { query: '{ pageSize @aa }' },
  UniqueDirectivesPerLocationRule: { query: '{ pageSize @skip(if: false) @skip(if: false) }' },
  KnownArgumentNamesRule: { query: '{ product(id: 1, nope: 2) { id } }' },
  UniqueArgumentNamesRule: { query: '{ product(id: 1, id: 2) { id } }' },
  ValuesOfCorrectTypeRule: { query: '{ product(id: "one") { id } }' },
  ProvidedRequiredArgumentsRule: { query: '{ product { id } }' },
  VariablesInAllowedPositionRule: { query: 'query($id: Int) { product(id: $id) { id } }' },
  OverlappingFieldsCanBeMergedRule: { query: '{ product(id: 1) { x: id x: name } }' },
  UniqueInputFieldNamesRule: { query: 'mutation { addProduct(input: { name: "a", name: "b" }) { id } }' },
  MaxIntrospectionDepthRule: {
    query: '{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }',
  },
  KnownOperationTypesRule: { query: 'mutation { __typename }', catalog: true },
};
const allRules = [...specifiedRules, KnownOperationTypesRule];

describe('every validation rule: 400 GRAPHQL_VALIDATION_FAILED, no internal message', () => {
  test('the table has one row per rule of graphql-js specifiedRules (an upgrade adding a rule fails here)', () => {
    expect(Object.keys(ruleRows).sort()).toEqual(allRules.map((r) => r.name).sort());
  });

  test.each(allRules.map((rule) => [rule.name, rule] as const))(
    '%s: the row breaks this rule (validate())',
    (name, rule) => {
      const row = ruleRows[name]!;
      expect(validate(row.catalog ? catalogSchema : opsSchema, parse(row.query), [rule]).length).toBeGreaterThan(0);
    },
  );

  test.each(Object.entries(ruleRows))('%s over HTTP', async (_name, row) => {
    const res = await json(() => (row.catalog ? catalog : ops), {
      query: row.query,
      operationName: row.operationName,
    })();
    expectClientError(res, 400, 'GRAPHQL_VALIDATION_FAILED');
  });
});

describe('one error per kind of problem (directive overloading), capped', () => {
  test.each([
    ['10 × unknown @aa (graphql-cop)', `query cop { __typename ${'@aa'.repeat(10)} }`, ['Unknown directive "@aa".']],
    [
      '45 × @skip',
      `{ __typename ${'@skip(if: false) '.repeat(45)}}`,
      ['The directive "@skip" can only be used once at this location.'],
    ],
    [
      'two kinds, each repeated',
      `{ __typename ${'@aa @bb '.repeat(20)}}`,
      ['Unknown directive "@aa".', 'Unknown directive "@bb".'],
    ],
  ])('%s', async (_name, query, messages) => {
    const res = await json(() => catalog, { query })();
    expectClientError(res, 400, 'GRAPHQL_VALIDATION_FAILED');
    expect(res.json!.errors!.map((e) => e.message)).toEqual(messages);
  });

  test('40 different unknown fields: at most 10 errors', async () => {
    const res = await json(() => catalog, {
      query: `{ product(id: 1) { ${Array.from({ length: 40 }, (_, i) => `f${i}`).join(' ')} } }`,
    })();
    expectClientError(res, 400, 'GRAPHQL_VALIDATION_FAILED');
    expect(res.json!.errors).toHaveLength(10);
  });

  test('12 bad variables: at most 10 BAD_USER_INPUT errors', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `v${i}`);
    const query = `query(${names.map((n) => `$${n}: Int`).join(', ')}) { products(first: 1) { ${names.map((n, i) => `a${i}: related(first: $${n}) { id }`).join(' ')} } }`;
    const res = await json(() => catalog, { query, variables: Object.fromEntries(names.map((n) => [n, 'x'])) })();
    expectClientError(res, 400, 'BAD_USER_INPUT');
    expect(res.json!.errors!.every((e) => e.extensions?.code === 'BAD_USER_INPUT')).toBe(true);
    expect(res.json!.errors).toHaveLength(10);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Transport and operation mistakes: one row each, the exact refusal.

const big = (bytes: number) => JSON.stringify({ query: `{ __typename } # ${'x'.repeat(bytes)}` });
type Row = [string, () => Promise<Sent>, number, string];
const transportRows: Row[] = [
  ['body that is not JSON', body(() => catalog, '{"query": "{ __typename }"'), 400, 'BAD_REQUEST'],
  ['JSON with a trailing comma', body(() => catalog, '{"query": "{ __typename }",}'), 400, 'BAD_REQUEST'],
  ['empty body', body(() => catalog, ''), 400, 'QUERY_MISSING'],
  ['JSON null', body(() => catalog, 'null'), 400, 'QUERY_MISSING'],
  ['JSON number', body(() => catalog, '42'), 400, 'QUERY_MISSING'],
  ['JSON string', body(() => catalog, '"{ __typename }"'), 400, 'QUERY_MISSING'],
  ['empty JSON object', json(() => catalog, {}), 400, 'QUERY_MISSING'],
  ['empty query', json(() => catalog, { query: '' }), 400, 'QUERY_MISSING'],
  ['blank query', json(() => catalog, { query: '  \n ' }), 400, 'QUERY_MISSING'],
  ['query is a number', json(() => catalog, { query: 5 }), 400, 'QUERY_MISSING'],
  ['query is a list', json(() => catalog, { query: ['{ __typename }'] }), 400, 'QUERY_MISSING'],
  [
    'query is an object (a parsed document)',
    json(() => catalog, { query: { kind: 'Document' } }),
    400,
    'QUERY_MISSING',
  ],
  [
    'variables is a string (JSON-encoded twice)',
    json(() => catalog, { query: '{ __typename }', variables: '{"a":1}' }),
    400,
    'BAD_REQUEST',
  ],
  ['variables is a list', json(() => catalog, { query: '{ __typename }', variables: [1] }), 400, 'BAD_REQUEST'],
  ['variables is a number', json(() => catalog, { query: '{ __typename }', variables: 1 }), 400, 'BAD_REQUEST'],
  ['operationName is a number', json(() => catalog, { query: '{ __typename }', operationName: 5 }), 400, 'BAD_REQUEST'],
  [
    'operationName is a list',
    json(() => catalog, { query: 'query A { __typename }', operationName: ['A'] }),
    400,
    'BAD_REQUEST',
  ],
  ['extensions is a string', json(() => catalog, { query: '{ __typename }', extensions: 'x' }), 400, 'BAD_REQUEST'],
  ['extensions is a list', json(() => catalog, { query: '{ __typename }', extensions: [] }), 400, 'BAD_REQUEST'],
  [
    'extensions with a persisted query hash',
    json(() => catalog, { query: '{ __typename }', extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } }),
    400,
    'PERSISTED_QUERY_NOT_SUPPORTED',
  ],
  [
    'a persisted query hash without the query',
    json(() => catalog, { extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } }),
    400,
    'PERSISTED_QUERY_NOT_SUPPORTED',
  ],
  [
    'a batch whose second item is a persisted query hash alone',
    json(
      () => open,
      [{ query: '{ __typename }' }, { extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } }],
    ),
    400,
    'PERSISTED_QUERY_NOT_SUPPORTED',
  ],
  [
    'text/plain content type',
    body(() => catalog, '{"query":"{ __typename }"}', 'text/plain'),
    415,
    'UNSUPPORTED_MEDIA_TYPE',
  ],
  [
    'no content type',
    () => send(catalog.graphqlUrl, { method: 'POST', body: new Uint8Array(Buffer.from('{"query":"{ __typename }"}')) }),
    415,
    'UNSUPPORTED_MEDIA_TYPE',
  ],
  [
    'application/graphql body',
    body(() => catalog, '{ __typename }', 'application/graphql'),
    415,
    'UNSUPPORTED_MEDIA_TYPE',
  ],
  [
    'JSON declared charset=utf-16 (read as UTF-8 it is not what was sent)',
    body(() => catalog, '{"query":"{ __typename }"}', 'application/json; charset=utf-16'),
    415,
    'UNSUPPORTED_MEDIA_TYPE',
  ],
  [
    'JSON declared charset=iso-8859-1',
    body(() => catalog, '{"query":"{ __typename }"}', 'application/json; charset=iso-8859-1'),
    415,
    'UNSUPPORTED_MEDIA_TYPE',
  ],
  [
    'JSON declared CHARSET=utf-16 (parameter names are case-insensitive)',
    body(() => catalog, '{"query":"{ __typename }"}', 'application/json; CHARSET=utf-16'),
    415,
    'UNSUPPORTED_MEDIA_TYPE',
  ],
  [
    'JSON declared charset=utf-16, then charset=utf-8',
    body(() => catalog, '{"query":"{ __typename }"}', 'application/json; charset=utf-16; charset=utf-8'),
    415,
    'UNSUPPORTED_MEDIA_TYPE',
  ],
  ['Content-Encoding: compress', encoded('compress', '{"query":"{ __typename }"}'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
  ['Content-Encoding: zstd', encoded('zstd', '{"query":"{ __typename }"}'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
  [
    'Content-Encoding: gzip, gzip (twice)',
    encoded('gzip, gzip', gzipSync(gzipSync('{"query":"{ __typename }"}'))),
    415,
    'UNSUPPORTED_MEDIA_TYPE',
  ],
  [
    'a "__proto__" member (prototype pollution)',
    body(() => catalog, '{"query":"{ __typename }","__proto__":{"x":1}}'),
    400,
    'BAD_REQUEST',
  ],
  [
    'a "__proto__" member in variables',
    body(() => catalog, '{"query":"{ __typename }","variables":{"__proto__":{"x":1}}}'),
    400,
    'BAD_REQUEST',
  ],
  [
    'form with an extensions field (persisted query)',
    form({ query: '{ __typename }', extensions: '{"persistedQuery":{"version":1,"sha256Hash":"abc"}}' }),
    400,
    'BAD_REQUEST',
  ],
  [
    'form with bracketed variables (variables[id]=1)',
    form({ query: 'query($id: Int = 2) { product(id: $id) { id } }', 'variables[id]': '1' }),
    400,
    'BAD_REQUEST',
  ],
  [
    'form with variables twice',
    form({ query: 'query($id: Int = 2) { product(id: $id) { id } }' }, [
      ['variables', '{"id":1}'],
      ['variables', '{"id":3}'],
    ]),
    400,
    'BAD_REQUEST',
  ],
  ['form with an unknown field', form({ query: '{ __typename }', debug: '1' }), 400, 'BAD_REQUEST'],
  [
    'form POST while forms are off',
    body(() => catalog, 'query=%7B__typename%7D', 'application/x-www-form-urlencoded'),
    415,
    'UNSUPPORTED_MEDIA_TYPE',
  ],
  ['GET while GET is off', getQs(() => catalog, { query: '{ __typename }' }), 405, 'METHOD_NOT_ALLOWED'],
  [
    'PUT',
    () =>
      send(catalog.graphqlUrl, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: '{"query":"{ __typename }"}',
      }),
    405,
    'METHOD_NOT_ALLOWED',
  ],
  [
    'batch array while batching is off',
    json(() => catalog, [{ query: '{ __typename }' }, { query: '{ __typename }' }]),
    400,
    'BATCHING_DISABLED',
  ],
  ['empty batch array', json(() => open, []), 400, 'QUERY_MISSING'],
  [
    'batch larger than maxBatchSize',
    json(
      () => open,
      Array.from({ length: 3 }, () => ({ query: '{ __typename }' })),
    ),
    400,
    'BATCH_TOO_LARGE',
  ],
  ['batch with a non-object item', json(() => open, [{ query: '{ __typename }' }, 5]), 400, 'QUERY_MISSING'],
  [
    'batch with variables of the wrong type',
    json(() => open, [{ query: '{ __typename }' }, { query: '{ __typename }', variables: 'x' }]),
    400,
    'BAD_REQUEST',
  ],
  [
    'batch whose second operation is ambiguous',
    json(() => open, [{ query: '{ __typename }' }, { query: 'query A { __typename } query B { __typename }' }]),
    400,
    'OPERATION_RESOLUTION_FAILURE',
  ],
  ['body over 100 kB', body(() => catalog, big(120_000)), 413, 'PAYLOAD_TOO_LARGE'],
  ['query over 16 kB', body(() => catalog, big(20_000)), 413, 'QUERY_TOO_LARGE'],
  [
    'GET with variables that are not JSON',
    getQs(() => open, { query: '{ __typename }', variables: '{a' }),
    400,
    'BAD_REQUEST',
  ],
  [
    'GET with variables that are a list',
    getQs(() => open, { query: '{ __typename }', variables: '[1]' }),
    400,
    'BAD_REQUEST',
  ],
  [
    'GET with extensions that are not JSON',
    getQs(() => open, { query: '{ __typename }', extensions: 'x' }),
    400,
    'BAD_REQUEST',
  ],
  ['GET without a query', getQs(() => open, { variables: '{}' }), 400, 'QUERY_MISSING'],
  // The document and the operation
  ['syntax error', json(() => catalog, { query: '{ __typename ' }), 400, 'GRAPHQL_PARSE_FAILED'],
  ['unknown keyword (graphql-cop)', json(() => catalog, { query: 'qwerty cop { abc }' }), 400, 'GRAPHQL_PARSE_FAILED'],
  [
    'lone fragment, no operation',
    json(() => catalog, { query: 'fragment F on Query { __typename }' }),
    400,
    'GRAPHQL_VALIDATION_FAILED',
  ],
  [
    'two operations, no operationName',
    json(() => catalog, { query: 'query A { __typename } query B { __typename }' }),
    400,
    'OPERATION_RESOLUTION_FAILURE',
  ],
  [
    'two operations, unknown operationName',
    json(() => catalog, { query: 'query A { __typename } query B { __typename }', operationName: 'C' }),
    400,
    'OPERATION_RESOLUTION_FAILURE',
  ],
  [
    'one anonymous operation, an operationName',
    json(() => catalog, { query: '{ __typename }', operationName: 'A' }),
    400,
    'OPERATION_RESOLUTION_FAILURE',
  ],
  [
    'two operations over GET, no operationName',
    getQs(() => open, { query: 'query A { __typename } query B { __typename }' }),
    400,
    'OPERATION_RESOLUTION_FAILURE',
  ],
  [
    'mutation, schema without a Mutation type',
    json(() => catalog, { query: 'mutation { __typename }' }),
    400,
    'GRAPHQL_VALIDATION_FAILED',
  ],
  [
    'subscription, schema without a Subscription type',
    json(() => catalog, { query: 'subscription { __typename }' }),
    400,
    'GRAPHQL_VALIDATION_FAILED',
  ],
  [
    'subscription, schema with a Subscription type',
    json(() => ops, { query: 'subscription { productAdded { id } }' }),
    400,
    'SUBSCRIPTIONS_NOT_SUPPORTED',
  ],
  [
    'mutation over GET, schema with a Mutation type',
    getQs(() => open, { query: 'mutation { __typename }' }),
    405,
    'METHOD_NOT_ALLOWED',
  ],
  [
    'variable of the wrong type',
    json(() => catalog, { query: 'query($id: Int!) { product(id: $id) { id } }', variables: { id: 'one' } }),
    400,
    'BAD_USER_INPUT',
  ],
  [
    'required variable missing',
    json(() => catalog, { query: 'query($id: Int!) { product(id: $id) { id } }' }),
    400,
    'BAD_USER_INPUT',
  ],
  [
    'required variable null',
    json(() => catalog, { query: 'query($id: Int!) { product(id: $id) { id } }', variables: { id: null } }),
    400,
    'BAD_USER_INPUT',
  ],
  [
    'Int variable beyond 32 bits',
    json(() => catalog, { query: 'query($id: Int!) { product(id: $id) { id } }', variables: { id: 2 ** 40 } }),
    400,
    'BAD_USER_INPUT',
  ],
  [
    'input object with an unknown field',
    json(() => ops, {
      query: 'mutation($p: ProductInput!) { addProduct(input: $p) { id } }',
      variables: { p: { name: 'a', evil: 1 } },
    }),
    400,
    'BAD_USER_INPUT',
  ],
  [
    'enum variable misspelt (no suggestion)',
    json(() => ops, {
      query: 'query($c: Currency) { product(id: 1) { price(currency: $c) } }',
      variables: { c: 'EURO' },
    }),
    400,
    'BAD_USER_INPUT',
  ],
  // A nullable variable with a default may stand where a value is required (GraphQL spec §5.8.5); an explicit null
  // replaces the default and would fail during execution (graphql-js' message, INTERNAL_SERVER_ERROR in Apollo).
  [
    'null over a default, in a required argument',
    json(() => catalog, { query: 'query($id: Int = 1) { product(id: $id) { id } }', variables: { id: null } }),
    400,
    'BAD_USER_INPUT',
  ],
  [
    'null over a default, in @include(if:)',
    json(() => catalog, {
      query: 'query($t: Boolean = true) { products @include(if: $t) { id } }',
      variables: { t: null },
    }),
    400,
    'BAD_USER_INPUT',
  ],
  [
    'null over a default, in @skip(if:) inside a fragment',
    json(() => catalog, {
      query: 'query($t: Boolean = false) { ...F } fragment F on Query { products { id name @skip(if: $t) } }',
      variables: { t: null },
    }),
    400,
    'BAD_USER_INPUT',
  ],
  [
    'null over a default, the chosen one of two operations',
    json(() => catalog, {
      query: 'query A { __typename } query B($id: Int = 1) { product(id: $id) { id } }',
      operationName: 'B',
      variables: { id: null },
    }),
    400,
    'BAD_USER_INPUT',
  ],
];

describe('transport and operation mistakes: 4xx, a specific code, no internal message', () => {
  test.each(transportRows)('%s', async (_name, request, status, code) => {
    expectClientError(await request(), status, code);
  });
});

// ---------------------------------------------------------------------------------------------------------
// GET and the form read their JSON-encoded parameters as a POST body's members are read: `null` (and, in a URL, the
// empty string: GraphQL over HTTP §GET) is no parameter, and a "__proto__" member is refused at any depth. Apollo
// reads the URL again after the guard, so what the guard accepts must be what Apollo accepts.

const refusal = (message: string) => ({
  status: 400,
  json: { errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] },
});
const typename = { status: 200, json: { data: { __typename: 'Query' } } };
const withDefault = 'query($id: Int = 2) { product(id: $id) { id } }';
const jsonParameterRows: Array<[string, () => Promise<Sent>, { status: number; json: unknown }]> = [
  [
    'GET variables=null (POST accepts "variables": null)',
    getQs(() => open, { query: withDefault, variables: 'null' }),
    { status: 200, json: { data: { product: { id: 2 } } } },
  ],
  [
    'GET variables= (empty: no variables)',
    getQs(() => open, { query: withDefault, variables: '' }),
    { status: 200, json: { data: { product: { id: 2 } } } },
  ],
  ['GET extensions=null', getQs(() => open, { query: '{ __typename }', extensions: 'null' }), typename],
  ['GET extensions= (empty: no extensions)', getQs(() => open, { query: '{ __typename }', extensions: '' }), typename],
  [
    'GET variables with a "__proto__" member',
    getQs(() => open, { query: '{ __typename }', variables: '{"__proto__":{}}' }),
    refusal('The variables parameter holds a "__proto__" member, which is refused.'),
  ],
  [
    'GET variables with a nested "__proto__" member',
    getQs(() => open, { query: withDefault, variables: '{"id":{"__proto__":{"x":1}}}' }),
    refusal('The variables parameter holds a "__proto__" member, which is refused.'),
  ],
  [
    'GET extensions with a "__proto__" member',
    getQs(() => open, { query: '{ __typename }', extensions: '{"__proto__":{"x":1}}' }),
    refusal('The extensions parameter holds a "__proto__" member, which is refused.'),
  ],
  [
    'form variables with a "__proto__" member',
    form({ query: '{ __typename }', variables: '{"__proto__":{}}' }),
    refusal('The variables field holds a "__proto__" member, which is refused.'),
  ],
  [
    'POST variables with a "__proto__" member (the answer the others match)',
    body(() => open, '{"query":"{ __typename }","variables":{"__proto__":{}}}'),
    refusal('The request body holds a "__proto__" member, which is refused.'),
  ],
];

describe('GET and form parameters are read as the members of a JSON body', () => {
  test.each(jsonParameterRows)('%s', async (_name, request, expected) => {
    const res = await request();
    expect({ status: res.status, json: res.json }).toEqual(expected);
  });
});

// ---------------------------------------------------------------------------------------------------------
// An empty operationName is none, in every transport: GraphQL over HTTP §GET says so of the URL parameter, an HTML
// form sends its empty field the same way, and in JSON no operation can be named "".

const twoOperations = 'query A { __typename } query B { __typename }';
const ambiguous = {
  status: 400,
  json: {
    errors: [
      {
        message: 'The document has 2 operations: name the one to run in operationName.',
        extensions: { code: 'OPERATION_RESOLUTION_FAILURE' },
      },
    ],
  },
};
const emptyNameRows: Array<[string, () => Promise<Sent>, { status: number; json: unknown }]> = [
  ['JSON "operationName": ""', json(() => open, { query: '{ __typename }', operationName: '' }), typename],
  ['GET operationName=', getQs(() => open, { query: '{ __typename }', operationName: '' }), typename],
  ['form with an empty operationName field', form({ query: '{ __typename }', operationName: '' }), typename],
  [
    'a batch item with "operationName": ""',
    json(
      () => open,
      [
        { query: '{ __typename }', operationName: '' },
        { query: twoOperations, operationName: 'B' },
      ],
    ),
    { status: 200, json: [{ data: { __typename: 'Query' } }, { data: { __typename: 'Query' } }] },
  ],
  [
    'JSON "operationName": "" with two operations (as without one)',
    json(() => open, { query: twoOperations, operationName: '' }),
    ambiguous,
  ],
  [
    'form with an empty operationName field and two operations',
    form({ query: twoOperations, operationName: '' }),
    ambiguous,
  ],
];

describe('an empty operationName is none', () => {
  test.each(emptyNameRows)('%s', async (_name, request, expected) => {
    const res = await request();
    expect({ status: res.status, json: res.json }).toEqual(expected);
  });
});

// ---------------------------------------------------------------------------------------------------------
// A syntax error is GRAPHQL_PARSE_FAILED with graphql-js' message, whatever names the document holds; only graphql-js'
// own token-limit message is MAX_TOKENS_EXCEEDED (default limit 1000: `{`, 998 fields and `}` are 1000 tokens).

describe('syntax errors are not taken for the token limit', () => {
  test.each([
    ['{ __typename } tokens', 'Syntax Error: Unexpected Name "tokens".'],
    ['{ __typename } Document', 'Syntax Error: Unexpected Name "Document".'],
    ['{ __typename } more', 'Syntax Error: Unexpected Name "more".'],
    ['{ __typename } more_tokens', 'Syntax Error: Unexpected Name "more_tokens".'],
    ['query tokens { __typename } tokens { __typename }', 'Syntax Error: Unexpected Name "tokens".'],
  ])('%s: 400 GRAPHQL_PARSE_FAILED with the syntax error', async (query, message) => {
    const res = await json(() => catalog, { query })();
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      errors: [{ message, locations: [expect.any(Object)], extensions: { code: 'GRAPHQL_PARSE_FAILED' } }],
    });
  });

  test('1000 tokens parse (a later limit refuses these); 1001 are MAX_TOKENS_EXCEEDED', async () => {
    const at = await json(() => catalog, { query: `{ ${'__typename '.repeat(998)}}` })();
    expect(at.json!.errors!.map((e) => e.extensions)).toEqual([{ code: 'MAX_ROOT_FIELDS_EXCEEDED', limit: 15 }]);
    const over = await json(() => catalog, { query: `{ ${'__typename '.repeat(999)}}` })();
    expect(over.status).toBe(400);
    expect(over.json!.errors).toEqual([
      {
        message: 'The query has more than the limit of 1000 tokens.',
        extensions: { code: 'MAX_TOKENS_EXCEEDED', limit: 1000 },
      },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// graphql-js stops OverlappingFieldsCanBeMergedRule after a fixed budget of comparisons (500,000 in 16.15): about
// 1000 repeats of one field, still under maxTokens and maxRecursiveSelections. Its bare "Validation aborted." is
// explained.

describe("graphql-js' own validation budget", () => {
  test('990 repeats of one field: 400 GRAPHQL_VALIDATION_FAILED saying why', async () => {
    const res = await json(() => catalog, { query: `{product(id:1){${'id '.repeat(990)}}}` })();
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      errors: [
        {
          message:
            'The query needs more validation work than allowed (graphql-js stopped comparing the fields selected under the same name, or following fragment spreads): select each field once and spread fewer fragments.',
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        },
      ],
    });
  });

  test('500 repeats stay within it and run', async () => {
    expect((await json(() => catalog, { query: `{product(id:1){${'id '.repeat(500)}}}` })()).json).toEqual({
      data: { product: { id: 1 } },
    });
  });
});

// ---------------------------------------------------------------------------------------------------------
// The cost limit (5000, default list size 10) measures the values the executor will use.

const costRows: Array<[string, () => RunningServer, unknown]> = [
  [
    'variable default, no variables sent',
    () => catalog,
    { query: 'query($n: Int = 2147483647) { products(first: $n) { id } }' },
  ],
  [
    'variable default, variables {}',
    () => catalog,
    { query: 'query($n: Int = 2147483647) { products(first: $n) { id } }', variables: {} },
  ],
  [
    'variable default, variables null',
    () => catalog,
    { query: 'query($n: Int = 2147483647) { products(first: $n) { id } }', variables: null },
  ],
  [
    'variable default used in a nested field',
    () => catalog,
    { query: 'query($n: Int = 100000) { products(first: 1) { related(first: $n) { id } } }' },
  ],
  [
    'variable default used inside a fragment',
    () => catalog,
    { query: 'query($n: Int = 100000) { ...F } fragment F on Query { products(first: $n) { id } }' },
  ],
  [
    'variable default inside an inline fragment of a fragment',
    () => catalog,
    {
      query:
        'query($n: Int = 100000) { ...F } fragment F on Query { ... on Query { products(first: 1) { ... on Product { related(first: $n) { id } } } } }',
    },
  ],
  [
    'literal inside a fragment',
    () => catalog,
    { query: '{ ...F } fragment F on Query { products(first: 100000) { id } }' },
  ],
  [
    'JSON 1e5 for an Int variable (coerces to 100000)',
    () => catalog,
    { query: 'query($n: Int) { products(first: $n) { id } }', variables: { n: 1e5 } },
  ],
  ["the schema's argument default (bulk(first: Int = 100000))", () => ops, { query: '{ bulk { id } }' }],
  ['a list size typed ID, as a string literal', () => ops, { query: '{ page(limit: "100000") { id } }' }],
  [
    'a list size typed ID, an Int variable coerced to "100000"',
    () => ops,
    { query: 'query($l: ID) { page(limit: $l) { id } }', variables: { l: 100000 } },
  ],
  [
    'a zero first beside a large last (the resolver reads last)',
    () => ops,
    { query: '{ messages(first: 0, last: 100000) { id } }' },
  ],
  [
    'a small first beside a large last, through variables',
    () => ops,
    { query: 'query($f: Int, $l: Int) { messages(first: $f, last: $l) { id } }', variables: { f: 1, l: 100000 } },
  ],
];

describe("cost uses the executor's values: defaults, coercion, fragments, nested fields", () => {
  test.each(costRows)('%s: 400 MAX_COST_EXCEEDED', async (_name, srv, request) => {
    const res = await json(srv, request)();
    expectClientError(res, 400, 'MAX_COST_EXCEEDED');
    expect(res.json!.errors![0]!.extensions!.limit).toBe(5000);
  });
});

describe('what must keep working', () => {
  test.each<[string, () => RunningServer, unknown, unknown]>([
    [
      'a small variable over a huge default',
      () => catalog,
      { query: 'query($n: Int = 2147483647) { products(first: $n) { id } }', variables: { n: 2 } },
      { products: [{ id: 1 }, { id: 2 }] },
    ],
    [
      'null over a default: the resolver gets null (the whole list)',
      () => catalog,
      { query: 'query($n: Int = 1) { products(first: $n) { id } }', variables: { n: null } },
      { products: [{ id: 1 }, { id: 2 }, { id: 4 }] },
    ],
    [
      'two operations and an operationName',
      () => catalog,
      { query: 'query A { products(first: 1) { id } } query B { __typename }', operationName: 'B' },
      { __typename: 'Query' },
    ],
    [
      'a mutation where the schema has one',
      () => ops,
      {
        query: 'mutation($p: ProductInput!) { addProduct(input: $p) { id name } }',
        variables: { p: { name: 'Lamp' } },
      },
      { addProduct: { id: 99, name: 'Lamp' } },
    ],
    [
      'first and last both small',
      () => ops,
      { query: '{ messages(first: 1, last: 2) { id } }' },
      { messages: [{ id: 1 }, { id: 2 }] },
    ],
    [
      'extensions that are not a persisted query',
      () => catalog,
      { query: '{ __typename }', extensions: { tracing: false } },
      { __typename: 'Query' },
    ],
    [
      'a variable with a default where a value is required, omitted: the default',
      () => catalog,
      { query: 'query($t: Boolean = false, $id: Int = 2) { product(id: $id) { id name @include(if: $t) } }' },
      { product: { id: 2 } },
    ],
    [
      'the same, sent with values',
      () => catalog,
      {
        query: 'query($t: Boolean = false, $id: Int = 2) { product(id: $id) { id name @include(if: $t) } }',
        variables: { t: true, id: 1 },
      },
      { product: { id: 1, name: 'Desk Lamp' } },
    ],
  ])('%s', async (_name, srv, request, data) => {
    const res = await json(srv, request)();
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data });
  });

  test.each<[string, () => Promise<Sent>]>([
    ['charset=utf-8', body(() => catalog, '{"query":"{ __typename }"}', 'application/json; charset=utf-8')],
    ['charset=UTF-8', body(() => catalog, '{"query":"{ __typename }"}', 'application/json;charset=UTF-8')],
    ['charset=utf8', body(() => catalog, '{"query":"{ __typename }"}', 'application/json; charset="utf8"')],
    [
      'Charset=UTF-8 (parameter names are case-insensitive)',
      body(() => catalog, '{"query":"{ __typename }"}', 'application/json; Charset=UTF-8'),
    ],
    [
      'a parameter whose value is the word charset',
      body(() => catalog, '{"query":"{ __typename }"}', 'application/json; profile=charset'),
    ],
    [
      'an empty parameter before charset=utf-8',
      body(() => catalog, '{"query":"{ __typename }"}', 'application/json;; charset=utf-8'),
    ],
    ['a gzip body', encoded('gzip', gzipSync('{"query":"{ __typename }"}'))],
    [
      'a form with query, variables and operationName',
      form({
        query: 'query Q($t: Boolean = false) { __typename @include(if: $t) } query R { __typename }',
        variables: '{"t":true}',
        operationName: 'Q',
      }),
    ],
  ])('transport: %s', async (_name, request) => {
    const res = await request();
    expect({ status: res.status, json: res.json }).toEqual({ status: 200, json: { data: { __typename: 'Query' } } });
  });
});
