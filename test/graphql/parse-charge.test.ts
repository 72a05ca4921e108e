import type { PortcullisConfig } from '../../lib/index.js';
import { relyingParty, signIn } from '../helpers/flow.js';
import { countCommands, deletePrefix, REDIS_URL, redisAvailable, uniquePrefix } from '../helpers/redis.js';
import { catalogGraphql, startServer, type RunningServer } from '../helpers/server.js';
import { suiteIf } from '../helpers/skip.js';

/**
 * Refused documents spend rate-limit points (issue 28): before, a refusal (a syntax error, a broken limit, a
 * validation error, 413) spent nothing, so one address could have the server parse and validate 16 kB documents
 * without end. Now a document not in the document cache spends one point per started `parseBytesPerPoint` bytes
 * before it is parsed, and a request refused with every document cached spends 1 point; both draw on the operation
 * budget (one key per address or token), so a flood of refusals is answered 429 like a flood of operations.
 */

const BUDGET = 6;
const available = await redisAvailable();

interface Row {
  /** The JSON body sent. */
  body: unknown;
  /** The refusal while under budget. */
  status: number;
  code: string;
  /** Points each request spends. */
  spends: number;
  /** Its documents are in the cache from the second request on: charged REFUSAL_POINTS, not by size. */
  cached?: boolean;
}

const q = (query: string, more: Record<string, unknown> = {}) => ({ query, ...more });
const nested = (depth: number) => `{ products { ${'related { '.repeat(depth)}id${' }'.repeat(depth)} } }`;
const VARIABLES = 'query($n: Int) { products(first: $n) { related(first: $n) { id } } }';

/** One row per kind of refusal: each must spend its points (every row kept answering its refusal before). */
const ALIASES_16 = `{ product(id: 1) { ${Array.from({ length: 16 }, (_, i) => `a${i}: id`).join(' ')} } }`;
/** A row: `body` refused with 400 (or `status`) and `code`, each request spending `spends` points. */
const row = (body: unknown, code: string, spends = 1, more: Partial<Row> = {}): Row => ({
  body,
  status: 400,
  code,
  spends,
  ...more,
});
const ROWS: Array<[string, Row]> = [
  ['syntax error', row(q('{ products { id }'), 'GRAPHQL_PARSE_FAILED')],
  ['validation error', row(q('{ nope }'), 'GRAPHQL_VALIDATION_FAILED')],
  ['depth over maxDepth', row(q(nested(6)), 'MAX_DEPTH_EXCEEDED')],
  ['aliases over maxAliases', row(q(ALIASES_16), 'MAX_ALIASES_EXCEEDED')],
  [
    'cost over maxCost (literal sizes)',
    row(q('{ products(first: 1000) { related(first: 1000) { id } } }'), 'MAX_COST_EXCEEDED'),
  ],
  ['tokens over maxTokens', row(q(`{ products { ${'id '.repeat(120)}} }`), 'MAX_TOKENS_EXCEEDED')],
  ['introspection while off', row(q('{ __schema { queryType { name } } }'), 'INTROSPECTION_DISABLED')],
  [
    'a 2.5 kB document: 3 points (one per started 1024 bytes)',
    row(q(`{ ${'x'.repeat(2500)} }`), 'GRAPHQL_VALIDATION_FAILED', 3),
  ],
  [
    'size over maxQueryBytes (5000 bytes: 5 points)',
    row(q(`{ products { id } } # ${'x'.repeat(4978)}`), 'QUERY_TOO_LARGE', 5, { status: 413 }),
  ],
  ['a batch of two refused documents: 2 points', row([q('{ nope1 }'), q('{ nope2 }')], 'GRAPHQL_VALIDATION_FAILED', 2)],
  // Valid documents, refused for this request's values: cached after the first request, each refusal 1 point.
  [
    'cost over maxCost through a variable (document cached)',
    row(q(VARIABLES, { variables: { n: 1000 } }), 'MAX_COST_EXCEEDED', 1, { cached: true }),
  ],
  [
    'a bad variable (document cached)',
    row(q(VARIABLES, { variables: { n: 'many' } }), 'BAD_USER_INPUT', 1, { cached: true }),
  ],
  [
    'an operationName the document lacks (document cached)',
    row(q('query A { products { id } }', { operationName: 'B' }), 'OPERATION_RESOLUTION_FAILURE', 1, { cached: true }),
  ],
];

/** A valid document made known before the rows run (the cache is shared by every caller). */
const KNOWN = '{ products(first: 1) { id } }';

let lastAddress = 0;
/** A client address of its own (the server trusts X-Forwarded-For): a budget of its own. */
const newAddress = () => `203.0.113.${++lastAddress}`;

async function send(srv: RunningServer, address: string, body: unknown, token?: string) {
  const res = await fetch(srv.graphqlUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-forwarded-for': address,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as
    | { errors?: Array<{ message: string; extensions?: { code?: string } }> }
    | unknown[];
  const first = Array.isArray(json) ? undefined : json.errors?.[0];
  return {
    status: res.status,
    code: first?.extensions?.code,
    retryAfter: res.headers.get('retry-after'),
    message: first?.message,
  };
}

const refusal = (row: Row) => ({ status: row.status, code: row.code, retryAfter: null, message: expect.any(String) });
const ok = { status: 200, code: undefined, retryAfter: null, message: undefined };
const limited = (message: RegExp = /^Rate limit exceeded: /) => ({
  status: 429,
  code: 'RATE_LIMITED',
  retryAfter: expect.stringMatching(/^(59|60)$/),
  message: expect.stringMatching(message),
});
/** The 429 of an operation's own charge (a known document), for `points`. */
const operationLimited = (points: number) =>
  limited(new RegExp(`^Rate limit exceeded: this operation would spend ${points} point`));

function config(storage?: PortcullisConfig['storage']): Partial<PortcullisConfig> {
  return {
    proxy: true,
    ...(storage ? { storage } : {}),
    graphql: {
      ...catalogGraphql(),
      maxBatchSize: 3,
      rateLimit: { points: BUDGET, durationSeconds: 60 },
      limits: { maxTokens: 100, maxQueryBytes: 4096 },
    } as never,
  };
}

describe.each<[string, string | undefined]>([
  ['memory limiter', undefined],
  ...(available ? [['Redis limiter', uniquePrefix('parse-charge')] as [string, string]] : []),
])('%s', (_backend, keyPrefix) => {
  let srv: RunningServer;
  beforeAll(async () => {
    srv = await startServer(config(keyPrefix ? { type: 'redis', url: REDIS_URL, keyPrefix } : undefined));
    expect(await send(srv, newAddress(), q(KNOWN))).toEqual(ok);
  });
  afterAll(async () => {
    await srv?.close();
    if (keyPrefix) await deletePrefix(keyPrefix);
  });

  test.each(ROWS)('%s: its refusal while under budget, then 429; one budget per address', async (_name, refused) => {
    const address = newAddress();
    const under = Math.floor(BUDGET / refused.spends);
    const answers = [];
    for (let i = 0; i <= under; i++) answers.push(await send(srv, address, refused.body));
    const spent = refused.cached
      ? /^Rate limit exceeded: a refused request spends 1 point\(s\) too; retry in (59|60) s\.$/
      : new RegExp(
          '^Rate limit exceeded: checking the new document\\(s\\) of this request would spend ' +
            `${refused.spends} point\\(s\\) ` +
            '\\(one per started 1024 bytes of query text not checked before\\); retry in (59|60) s\\.$',
        );
    expect(answers).toEqual([...Array.from({ length: under }, () => refusal(refused)), limited(spent)]);
    // One budget: a valid request from that address is refused too, its document known (the operation's charge) or new.
    expect(await send(srv, address, q(KNOWN))).toEqual(operationLimited(1));
    expect(await send(srv, address, q(`{ p${lastAddress}: products(first: 1) { id } }`))).toEqual(limited());
    // Another address has a budget of its own.
    expect(await send(srv, newAddress(), refused.body)).toEqual(refusal(refused));
  });

  test('a token holder at a flooded address has the budget of its subject and client', async () => {
    const address = newAddress();
    for (let i = 0; i < BUDGET; i++) expect(await send(srv, address, q('{ nope }'))).toEqual(refusal(ROWS[1]![1]));
    expect(await send(srv, address, q('{ nope }'))).toEqual(limited());
    const token = (await signIn(srv.issuer, await relyingParty(srv.issuer))).tokens.access_token;
    expect(await send(srv, address, q('{ nope }'), token)).toEqual(refusal(ROWS[1]![1]));
    expect(await send(srv, address, q(KNOWN), token)).toEqual(ok);
  });

  test('a request that runs spends the larger of its parse price and its points, not both', async () => {
    const address = newAddress();
    // New, 2.5 kB, one root field: 3 points for reading it cover its 1 point; 2 such requests spend the budget of 6.
    const big = q(`{ products(first: 1) { id } } # ${'x'.repeat(2500)}`);
    expect(await send(srv, address, big)).toEqual(ok);
    expect(await send(srv, address, q(`{ products(first: 1) { id } } # ${'y'.repeat(2500)}`))).toEqual(ok);
    // Known now: 1 point, and none left.
    expect(await send(srv, address, big)).toEqual(operationLimited(1));
    // New, small, 4 aliases: reading it (1 point) counts towards its 4 points.
    const other = newAddress();
    const aliases = q(`{ ${Array.from({ length: 4 }, (_, i) => `a${i}: product(id: 1) { id }`).join(' ')} }`);
    expect(await send(srv, other, aliases)).toEqual(ok);
    expect(await send(srv, other, q('{ a: product(id: 1) { id } b: product(id: 2) { id } }'))).toEqual(ok);
    expect(await send(srv, other, q(KNOWN))).toEqual(operationLimited(1));
  });
});

// Round trips to Redis for the operation limiter, counted with MONITOR (one consume is one EVALSHA).
suiteIf(available, 'no Redis at REDIS_URL')('limiter round trips per request (Redis)', () => {
  const keyPrefix = uniquePrefix('parse-charge-rt');
  let srv: RunningServer;
  beforeAll(async () => {
    const storage = { type: 'redis', url: REDIS_URL, keyPrefix } as const;
    srv = await startServer({ ...config(storage), graphql: { ...catalogGraphql(), maxBatchSize: 3 } } as never);
    // The limiter's script loaded and the known documents cached.
    const known = [q(KNOWN), q('query A { products { id } }'), [q(KNOWN), q('{ products { name } }')]];
    for (const body of known) await send(srv, newAddress(), body);
  });
  afterAll(async () => {
    await srv?.close();
    await deletePrefix(keyPrefix);
  });

  test.each<[string, number, number, unknown]>([
    ['a valid known document (the hot path: as before)', 1, 200, q(KNOWN)],
    ['a valid known batch (as before)', 1, 200, [q(KNOWN), q('{ products { name } }')]],
    [
      'a valid new document whose points its parse price covers (as before)',
      1,
      200,
      q('{ products(first: 2) { id } }'),
    ],
    [
      'a valid new document of more points than its parse price (one more than before)',
      2,
      200,
      q('{ a: product(id: 1) { id } b: product(id: 2) { id } }'),
    ],
    ['a new document refused (none before)', 1, 400, q('{ nope }')],
    ['a known document refused (none before)', 1, 400, q('query A { products { id } }', { operationName: 'B' })],
  ])('%s: %d', async (_name, roundTrips, status, body) => {
    const address = newAddress();
    let answer: Awaited<ReturnType<typeof send>> | undefined;
    const commands = await countCommands(`${keyPrefix}rl:graphql-ops`, async () => {
      answer = await send(srv, address, body);
    });
    expect({ status: answer?.status, commands }).toEqual({ status, commands: roundTrips });
  });
});
