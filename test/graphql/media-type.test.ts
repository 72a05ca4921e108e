import type { LimiterBackend } from '../../lib/core/limiter.js';
import { MemoryStorage } from '../../adapters/memory.js';
import { rawRequest } from '../helpers/raw-http.js';
import { catalogGraphql, startServer, type RunningServer } from '../helpers/server.js';

/**
 * GraphQL over HTTP §Body: every answer of the GraphQL endpoint — data, each kind of refusal of the transport guard,
 * bearer auth and document gate, Apollo's own errors, the 429 of the rate limit and the 503 of a storage outage, by
 * both paths (Koa before Apollo for a batch, Apollo's plugin for one operation) — is labelled with the media type
 * the request's `Accept` prefers: `application/graphql-response+json` (the spec's type, also for no `Accept` and
 * `*`/`*`) unless the client ranks `application/json` first, 406 when it takes neither. The status codes do not
 * depend on the type. Requests go out over node:http, which adds no `Accept` of its own (fetch adds `*`/`*`).
 */

const GRAPHQL_RESPONSE = 'application/graphql-response+json; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
/** What Apollo Client 4's HttpLink sends (the spec's recommendation for a client that does not know the server). */
const APOLLO_CLIENT_ACCEPT = 'application/graphql-response+json,application/json;q=0.9';

const RESPONSE = 'application/graphql-response+json';
const JSON_ONLY = 'application/json';

let open: RunningServer;
let limited: RunningServer;
let down: RunningServer;

/** A MemoryStorage whose operation rate limiter cannot reach its storage: every spend fails (503). */
class OpsLimiterDown extends MemoryStorage {
  override limiterBackend(): LimiterBackend {
    const backend = super.limiterBackend();
    return (name, spec) => {
      const limiter = backend(name, spec);
      if (name !== 'graphql-ops') return limiter;
      const consume = () => Promise.reject(new Error('ECONNREFUSED'));
      return Object.assign(Object.create(limiter) as typeof limiter, { consume });
    };
  }
}

beforeAll(async () => {
  const graphql = { ...catalogGraphql(), maxBatchSize: 3 };
  [open, limited, down] = await Promise.all([
    startServer({ graphql }),
    startServer({ graphql: { ...graphql, rateLimit: { points: 1, durationSeconds: 600 } } }),
    startServer({ graphql, storage: { type: 'custom', instance: new OpsLimiterDown() } }),
  ]);
  // The limited server's one point (per IP: these requests carry no token) is spent before the rows run.
  await post(limited, body(PRODUCTS), undefined);
});
afterAll(async () => {
  await Promise.all([open?.close(), limited?.close(), down?.close()]);
});

type Headers = Record<string, string>;
type Answer = { status: number; type: unknown; varyAccept: boolean; code: unknown };

/** One request (`accept` undefined: no Accept header); its status, Content-Type, Vary and first code. */
async function send(srv: RunningServer, method: string, text: string, accept?: string, headers: Headers = {}) {
  const res = await rawRequest(srv.graphqlUrl, '/graphql', {
    method,
    body: text,
    headers: { 'content-type': 'application/json', ...(accept === undefined ? {} : { accept }), ...headers },
  });
  const parsed = res.text ? res.json<{ data?: unknown; errors?: Array<{ extensions?: { code?: string } }> }>() : {};
  return {
    status: res.status,
    type: res.headers['content-type'],
    varyAccept: String(res.headers.vary ?? '')
      .split(/,\s*/)
      .some((v) => v.toLowerCase() === 'accept'),
    code: parsed.errors?.[0]?.extensions?.code ?? (parsed.data ? 'data' : undefined),
  };
}
const post = (srv: RunningServer, text: string, accept?: string, headers?: Headers) =>
  send(srv, 'POST', text, accept, headers);
const body = (query: string, variables?: object) => JSON.stringify({ query, variables });
const PRODUCTS = '{ products(first: 1) { id } }';
const BATCH = JSON.stringify([{ query: '{ __typename }' }, { query: PRODUCTS }]);

type Kind = [string, (accept?: string) => Promise<Answer>, number, string];

/** Each kind of answer: how to get it, its status and its first `extensions.code` (`data`: data, no errors). */
const KINDS: Kind[] = [
  ['data (Apollo)', (a) => post(open, body(PRODUCTS), a), 200, 'data'],
  [
    'a field error during execution (Apollo, data null)',
    (a) => post(open, body('{ delistedProducts { id } }'), a),
    200,
    'FORBIDDEN',
  ],
  [
    'a misspelt field (document gate)',
    (a) => post(open, body('{ prodcts { id } }'), a),
    400,
    'GRAPHQL_VALIDATION_FAILED',
  ],
  [
    'a variable of the wrong type (document gate)',
    (a) => post(open, body('query($id: Int!) { product(id: $id) { id } }', { id: 'x' }), a),
    400,
    'BAD_USER_INPUT',
  ],
  ['a body that is not JSON (transport guard)', (a) => post(open, '{"query":', a), 400, 'BAD_REQUEST'],
  ['no query (transport guard)', (a) => post(open, '{}', a), 400, 'QUERY_MISSING'],
  [
    'an invalid access token (bearer auth)',
    (a) => post(open, body('{ __typename }'), a, { authorization: 'Bearer not-a-token' }),
    401,
    'UNAUTHENTICATED',
  ],
  [
    'a body over 100kb (transport guard)',
    (a) => post(open, body(`{ __typename } #${'x'.repeat(110_000)}`), a),
    413,
    'PAYLOAD_TOO_LARGE',
  ],
  ['rate limit spent, one operation (Apollo plugin)', (a) => post(limited, body(PRODUCTS), a), 429, 'RATE_LIMITED'],
  ['rate limit spent, a batch (document gate)', (a) => post(limited, BATCH, a), 429, 'RATE_LIMITED'],
  ['storage down, one operation (Apollo plugin)', (a) => post(down, body(PRODUCTS), a), 503, 'TEMPORARILY_UNAVAILABLE'],
  ['storage down, a batch (document gate)', (a) => post(down, BATCH, a), 503, 'TEMPORARILY_UNAVAILABLE'],
];

/** The Accept values every kind is tried with, and the type each must get. */
const ACCEPTS: Array<[string, string | undefined, string]> = [
  ['no Accept', undefined, GRAPHQL_RESPONSE],
  ['*/*', '*/*', GRAPHQL_RESPONSE],
  ["Apollo Client's", APOLLO_CLIENT_ACCEPT, GRAPHQL_RESPONSE],
  ['application/json only', JSON_ONLY, JSON_TYPE],
];
const NOT_ACCEPTABLE: Answer = { status: 406, type: JSON_TYPE, varyAccept: true, code: 'NOT_ACCEPTABLE' };

describe.each(KINDS)('%s', (_kind, request, status, code) => {
  test.each(ACCEPTS)('Accept: %s', async (_name, accept, type) => {
    expect(await request(accept)).toEqual({ status, type, varyAccept: true, code });
  });

  test('Accept: text/html (neither type): 406 NOT_ACCEPTABLE as application/json, nothing run', async () => {
    expect(await request('text/html')).toEqual(NOT_ACCEPTABLE);
  });
});

/** What was sent is judged before what is wanted back: these keep their status whatever the Accept. */
describe.each<Kind>([
  [
    'a method the endpoint does not answer',
    (a) => send(open, 'PUT', body('{ __typename }'), a),
    405,
    'METHOD_NOT_ALLOWED',
  ],
  [
    'text/plain',
    (a) => post(open, body('{ __typename }'), a, { 'content-type': 'text/plain' }),
    415,
    'UNSUPPORTED_MEDIA_TYPE',
  ],
  [
    'JSON declared in UTF-16',
    (a) => post(open, body('{ __typename }'), a, { 'content-type': `${JSON_ONLY}; charset=utf-16` }),
    415,
    'UNSUPPORTED_MEDIA_TYPE',
  ],
])('%s: checked before Accept', (_kind, request, status, code) => {
  const whenNeither: [string, string, string] = [
    'text/html (then application/json, as Apollo Server falls back)',
    'text/html',
    JSON_TYPE,
  ];
  test.each([...ACCEPTS, whenNeither])('Accept: %s', async (_name, accept, type) => {
    expect(await request(accept)).toEqual({ status, type, varyAccept: true, code });
  });
});

/** Accept values (RFC 9110 §12.5.1) and the type they get: q-values, exclusions, wildcards, order, charset. */
const NEGOTIATION: Array<[string, string, string | 406]> = [
  ['an empty Accept is none', '', GRAPHQL_RESPONSE],
  ['application/*', 'application/*', GRAPHQL_RESPONSE],
  ['the spec type alone', RESPONSE, GRAPHQL_RESPONSE],
  ['both at the same q, json first: the first listed', `${JSON_ONLY}, ${RESPONSE}`, JSON_TYPE],
  ['both at the same q, spec type first', `${RESPONSE}, ${JSON_ONLY}`, GRAPHQL_RESPONSE],
  ['json ranked lower but listed first: the q-value wins', `${JSON_ONLY};q=0.5, ${RESPONSE}`, GRAPHQL_RESPONSE],
  ['the spec type ranked lower', `${RESPONSE};q=0.5, ${JSON_ONLY}`, JSON_TYPE],
  ['the spec type excluded by q=0, anything else welcome', `${RESPONSE};q=0, */*`, JSON_TYPE],
  ['json excluded by q=0, anything else welcome', `${JSON_ONLY};q=0, */*`, GRAPHQL_RESPONSE],
  [
    "a browser's navigation (HTML first, */* at q=0.8)",
    'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    GRAPHQL_RESPONSE,
  ],
  ['json with charset=utf-8', `${JSON_ONLY}; charset=utf-8`, JSON_TYPE],
  ['json with charset=UTF-8 (values compared case-insensitively)', `${JSON_ONLY}; charset=UTF-8`, JSON_TYPE],
  [
    'json in UTF-16 is not what we send; the spec type is',
    `${JSON_ONLY}; charset=utf-16, ${RESPONSE};q=0.1`,
    GRAPHQL_RESPONSE,
  ],
  ['json in UTF-16 only', `${JSON_ONLY}; charset=utf-16`, 406],
  ['XML and plain text', 'application/xml, text/plain', 406],
  ['everything excluded', '*/*;q=0', 406],
  ['the superseded application/graphql+json', 'application/graphql+json', 406],
];

describe.each<Kind>([
  ['data', (a) => post(open, body('{ __typename }'), a), 200, 'data'],
  ['a misspelt field', (a) => post(open, body('{ prodcts { id } }'), a), 400, 'GRAPHQL_VALIDATION_FAILED'],
])('negotiation for %s', (_kind, request, status, code) => {
  test.each(NEGOTIATION)('%s (%s)', async (_name, accept, expected) => {
    const answer = expected === 406 ? NOT_ACCEPTABLE : { status, type: expected, varyAccept: true, code };
    expect(await request(accept)).toEqual(answer);
  });
});

test('GET (when enabled) is negotiated too, and a GET mutation gets its 405 under the negotiated type', async () => {
  const srv = await startServer({ graphql: { ...catalogGraphql(), transports: { get: true } } });
  try {
    const get = async (query: string, accept?: string) => {
      const target = `/graphql?query=${encodeURIComponent(query)}`;
      const res = await rawRequest(srv.graphqlUrl, target, { headers: accept ? { accept } : {} });
      return [res.status, res.headers['content-type']];
    };
    expect(await get('{ __typename }')).toEqual([200, GRAPHQL_RESPONSE]);
    expect(await get('{ __typename }', 'application/json')).toEqual([200, JSON_TYPE]);
    expect(await get('{ __typename }', 'text/html')).toEqual([406, JSON_TYPE]);
    expect(await get('mutation { __typename }', APOLLO_CLIENT_ACCEPT)).toEqual([405, GRAPHQL_RESPONSE]);
  } finally {
    await srv.close();
  }
});
