import { standaloneSettings } from '../../examples/standalone/config.js';
import { freePort, startServer, type RunningServer } from '../helpers/server.js';

/**
 * graphql-cop 1.15 (dolevf/graphql-cop, commit 2b7e086, its lib/tests/*.py) replayed without Python: one row
 * per check, each sending exactly what graphql-cop sends (python-requests: `json=` bodies with
 * `"operationName": "cop"`, `params=` for GET, `data=` for the form POST) to the `npm start` configuration, with
 * graphql-cop's own failure predicate (which must stay false) and our exact refusal.
 */

let srv: RunningServer;
beforeAll(async () => {
  const port = await freePort();
  srv = await startServer((issuer) => standaloneSettings({ PORT: String(port), PORTCULLIS_ISSUER: issuer }).config);
});
afterAll(() => srv.close());

const HEADERS = { 'User-Agent': 'graphql-cop/1.15' };
interface Answer {
  status: number;
  text: string;
  json: any;
} // eslint-disable-line @typescript-eslint/no-explicit-any

async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}
/** lib/utils.py graph_query: POST `{query, operationName: 'cop'}`, or a list of ten `{query}` when batching. */
const graphQuery =
  (payload: string, batch = false) =>
  async () =>
    answer(
      await fetch(srv.graphqlUrl, {
        method: 'POST',
        headers: { ...HEADERS, 'Content-Type': 'application/json' },
        body: JSON.stringify(
          batch ? Array.from({ length: 10 }, () => ({ query: payload })) : { query: payload, operationName: 'cop' },
        ),
      }),
    );
/** lib/utils.py request: GET with `params`, or a POST with `data=` (form-encoded). */
const request =
  (opts: { params?: Record<string, string>; data?: Record<string, string>; accept?: string }) => async () =>
    answer(
      await fetch(
        `${srv.graphqlUrl}${opts.params ? `?${new URLSearchParams(opts.params)}` : ''}`,
        opts.data
          ? {
              method: 'POST',
              headers: { ...HEADERS, 'Content-Type': 'application/x-www-form-urlencoded' },
              body: new URLSearchParams(opts.data).toString(),
            }
          : { method: 'GET', headers: { ...HEADERS, ...(opts.accept ? { Accept: opts.accept } : {}) } },
      ),
    );

/** graphql-cop's `try: … except: pass`: a predicate that throws counts as "not vulnerable". */
const flagged = (predicate: (a: Answer) => unknown, a: Answer) => {
  try {
    return Boolean(predicate(a));
  } catch {
    return false;
  }
};

const aliases = Array.from({ length: 101 }, (_, i) => `alias${i}:__typename \n`).join('');
type Row = [string, () => Promise<Answer>, (a: Answer) => unknown, { status: number; codes: string[] }];
const rows: Row[] = [
  [
    'alias_overloading (101 aliases)',
    graphQuery(`query cop { ${aliases} }`),
    (a) => a.json.data.alias100,
    { status: 400, codes: ['MAX_ROOT_FIELDS_EXCEEDED', 'MAX_ALIASES_EXCEEDED'] },
  ],
  [
    'batch_query (10 queries in an array)',
    graphQuery('query cop { __typename }', true),
    (a) => a.json.length >= 10,
    { status: 400, codes: ['BATCHING_DISABLED'] },
  ],
  [
    'directive_overloading (10 × @aa)',
    graphQuery('query cop { __typename @aa@aa@aa@aa@aa@aa@aa@aa@aa@aa }'),
    (a) => a.json.errors.length === 10,
    { status: 400, codes: ['GRAPHQL_VALIDATION_FAILED'] },
  ],
  [
    'field_suggestions',
    graphQuery('query cop { __schema { directive } }'),
    (a) => a.json.errors[0].message.includes('Did you mean'),
    { status: 400, codes: ['INTROSPECTION_DISABLED'] },
  ],
  [
    'introspection',
    graphQuery('query cop { __schema { types { name fields { name } } } }'),
    (a) => a.json.data.__schema.types,
    { status: 400, codes: ['INTROSPECTION_DISABLED'] },
  ],
  [
    'detect_graphiql (GET, Accept: text/html)',
    request({ accept: 'text/html' }),
    (a) => ['graphiql.min.css', 'GraphQL Playground', 'GraphiQL', 'graphql-playground'].some((w) => a.text.includes(w)),
    { status: 405, codes: ['METHOD_NOT_ALLOWED'] },
  ],
  [
    'get_method_support',
    request({ params: { query: 'query cop {__typename}' } }),
    (a) => a.json.data.__typename,
    { status: 405, codes: ['METHOD_NOT_ALLOWED'] },
  ],
  [
    'trace_mode',
    graphQuery('query cop { __typename }'),
    (a) => a.json.errors[0].extensions.tracing || /"extensions":\{"tracing":/i.test(a.text),
    { status: 200, codes: [] },
  ],
  [
    'circular_query_introspection',
    graphQuery(
      'query cop { __schema { types { fields { type { fields { type { fields { type { fields { type { name } } } } } } } } } } }',
    ),
    (a) => a.json.data.__schema.types.length > 25,
    { status: 400, codes: ['INTROSPECTION_DISABLED'] },
  ],
  [
    'get_based_mutation',
    request({ params: { query: 'mutation cop {__typename}' } }),
    (a) => a.json.data.__typename,
    { status: 405, codes: ['METHOD_NOT_ALLOWED'] },
  ],
  [
    'post_based_csrf (form-encoded POST)',
    request({ data: { query: 'query cop { __typename }' } }),
    (a) => a.json.data.__typename,
    { status: 415, codes: ['UNSUPPORTED_MEDIA_TYPE'] },
  ],
  [
    'unhandled_error_detection',
    graphQuery('qwerty cop { abc }'),
    (a) => a.json.errors[0].extensions.exception || /"extensions":\{"exception":/i.test(a.text),
    { status: 400, codes: ['GRAPHQL_PARSE_FAILED'] },
  ],
];

describe('graphql-cop 1.15, its 12 checks replayed against the npm start configuration', () => {
  test('graphql-cop recognises the endpoint (is_graphql), so its checks do run', async () => {
    const res = await graphQuery('\n    query cop {\n      __typename\n    }\n  ')();
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { __typename: 'Query' } });
  });

  test('one row per check graphql-cop runs', () => expect(rows).toHaveLength(12));

  test.each(rows)('%s: not flagged, refused exactly', async (_name, send, vulnerable, expected) => {
    const res = await send();
    expect(flagged(vulnerable, res)).toBe(false);
    expect(res.status).toBe(expected.status);
    expect((res.json?.errors ?? []).map((e: { extensions?: { code?: string } }) => e.extensions?.code)).toEqual(
      expected.codes,
    );
    expect(res.text).not.toMatch(/Cannot read propert|stacktrace|INTERNAL_SERVER_ERROR|undefined/);
  });
});
