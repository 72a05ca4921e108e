import { ApolloServer } from '@apollo/server';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { createLimiter } from '../../lib/core/limiter.js';
import type { GraphqlContext } from '../../lib/graphql/auth-context.js';
import { operationLimitsPlugin } from '../../lib/graphql/plugins/operation-limits.js';
import { relyingParty, signIn } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { opsResolvers, opsTypeDefs } from './ops-schema.js';

/**
 * A batch is charged to the rate limit as a whole, before anything in it runs: Apollo runs the operations of a
 * batch concurrently and they share one response status, so a batch that ran out of points part-way answered 429
 * for the whole batch although its earlier operations (mutations included) had run; a client that takes a 429 as
 * "nothing happened" then lost their results or sent the mutations again.
 */

const BUDGET = 5;
const aliases = (n: number) =>
  `{ ${Array.from({ length: n }, (_, i) => `a${i}: product(id: ${i + 1}) { id }`).join(' ')} }`;
const products = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`a${i}`, { id: i + 1 }]));
const ADD = 'mutation { addProduct(input: { name: "lamp" }) { id } }';
const TYPENAMES = [{ query: '{ __typename }' }, { query: '{ t: __typename }' }];
const TYPENAMES_RUN = {
  status: 200,
  retryAfter: null,
  body: [{ data: { __typename: 'Query' } }, { data: { t: 'Query' } }],
};

/** The ops schema on a server of its own (a fresh budget), with `addProduct` recording what it added. */
async function batchServer(added: string[]): Promise<RunningServer> {
  const resolvers = {
    ...opsResolvers,
    Mutation: {
      addProduct: (_: unknown, { input }: { input: { name: string } }) => {
        added.push(input.name);
        return { id: 99, name: input.name };
      },
    },
  };
  return startServer({
    graphql: {
      path: '/graphql',
      typeDefs: opsTypeDefs,
      resolvers,
      maxBatchSize: 3,
      rateLimit: { points: BUDGET, durationSeconds: 60 },
    },
  });
}

async function post(srv: RunningServer, body: unknown, token?: string) {
  const res = await fetch(srv.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as unknown };
}

const refusedBatch = (points: number, operations: number) => ({
  status: 429,
  retryAfter: expect.stringMatching(/^(59|60)$/),
  body: {
    errors: [
      {
        message: expect.stringMatching(
          new RegExp(
            `^Rate limit exceeded: this batch of ${operations} operations would spend ${points} point\\(s\\) \\(one per root field and per alias, weighted by field cost\\); none of them was run; retry in (59|60) s\\.$`,
          ),
        ),
        extensions: { code: 'RATE_LIMITED' },
      },
    ],
  },
});

/** Each row: the requests sent in order (an array is a batch), what each is answered, and what the mutation added. */
test.each<[string, unknown[], unknown[], string[]]>([
  [
    'a mutation and two 3-alias queries (7 points) against 5: refused whole, the mutation not run',
    [[{ query: ADD }, { query: aliases(3) }, { query: aliases(3) }]],
    [[429, 7, 3]],
    [],
  ],
  [
    'two 3-alias queries (6 points) against 5: refused whole, no data for the first',
    [[{ query: aliases(3) }, { query: aliases(3) }]],
    [[429, 6, 2]],
    [],
  ],
  [
    'the mutation last, after queries that spend the budget: refused whole, the mutation not run',
    [[{ query: aliases(3) }, { query: aliases(2) }, { query: ADD }]],
    [[429, 6, 3]],
    [],
  ],
  [
    'a mutation and a 3-alias query (4 points) within 5: 200 with every result',
    [[{ query: ADD }, { query: aliases(3) }]],
    [{ status: 200, retryAfter: null, body: [{ data: { addProduct: { id: 99 } } }, { data: products(3) }] }],
    ['lamp'],
  ],
  // Its documents known (reading a new one spends points before the operations are counted: parse-charge.test.ts).
  [
    'a 5-point batch runs (spent once, not once by the batch and once per operation); the next batch is refused',
    [
      [{ query: aliases(3) }, { query: aliases(2) }],
      [{ query: aliases(2) }, { query: aliases(3) }],
    ],
    [{ status: 200, retryAfter: null, body: [{ data: products(3) }, { data: products(2) }] }, [429, 5, 2]],
    [],
  ],
  [
    'a batch and a single request share one budget (the same key): the single request is refused',
    [[{ query: aliases(2) }, { query: aliases(2) }], { query: aliases(2) }],
    [{ status: 200, retryAfter: null, body: [{ data: products(2) }, { data: products(2) }] }, 'single 429'],
    [],
  ],
  // Reading its two new documents spends 2 points the first time; once known, it spends nothing.
  [
    'a batch of __typename only, its documents known, spends nothing and runs once the budget is spent',
    [TYPENAMES, [{ query: aliases(2) }, { query: aliases(1) }], { query: aliases(2) }, TYPENAMES],
    [
      TYPENAMES_RUN,
      { status: 200, retryAfter: null, body: [{ data: products(2) }, { data: products(1) }] },
      'single 429',
      TYPENAMES_RUN,
    ],
    [],
  ],
])('%s', async (_name, requests, answers, added) => {
  const seen: string[] = [];
  const srv = await batchServer(seen);
  try {
    const got = [];
    for (const request of requests) got.push(await post(srv, request));
    const expected = answers.map((a) => {
      if (Array.isArray(a)) return refusedBatch(a[1] as number, a[2] as number);
      if (a === 'single 429') {
        return {
          status: 429,
          retryAfter: expect.stringMatching(/^(59|60)$/),
          body: {
            errors: [
              {
                message: expect.stringMatching(/^Rate limit exceeded: this operation would spend 2 point\(s\)/),
                extensions: { code: 'RATE_LIMITED' },
              },
            ],
          },
        };
      }
      return a;
    });
    expect({ got, added: seen }).toEqual({ got: expected, added });
  } finally {
    await srv.close();
  }
});

test("a token holder's batch is charged to its own budget (subject + client), not the IP's", async () => {
  const seen: string[] = [];
  const srv = await batchServer(seen);
  try {
    const batch = [{ query: aliases(3) }, { query: aliases(2) }];
    expect((await post(srv, batch)).status).toBe(200);
    expect((await post(srv, batch)).status).toBe(429);
    const token = (await signIn(srv.issuer, await relyingParty(srv.issuer))).tokens.access_token;
    expect(await post(srv, [{ query: ADD }, { query: aliases(3) }], token)).toEqual({
      status: 200,
      retryAfter: null,
      body: [{ data: { addProduct: { id: 99 } } }, { data: products(3) }],
    });
    expect(await post(srv, [{ query: ADD }, { query: aliases(1) }], token)).toEqual(refusedBatch(2, 2));
    expect(seen).toEqual(['lamp']);
  } finally {
    await srv.close();
  }
});

test("without the document gate (the plugin alone, as in a host's own Apollo Server) operations are charged one by one", async () => {
  const schema = makeExecutableSchema({ typeDefs: opsTypeDefs, resolvers: opsResolvers });
  const limiter = createLimiter('graphql-ops', { points: BUDGET, durationSeconds: 60 });
  const apollo = new ApolloServer<GraphqlContext>({
    schema,
    plugins: [operationLimitsPlugin({ schema, maxCost: 5000, cost: {}, limiter })],
  });
  await apollo.start();
  try {
    const run = async (query: string) => {
      const res = await apollo.executeOperation({ query }, { contextValue: { auth: null, ip: '192.0.2.1' } });
      return res.body.kind === 'single'
        ? { status: res.http.status ?? 200, errors: res.body.singleResult.errors?.map((e) => e.extensions?.code) }
        : undefined;
    };
    expect([await run(aliases(3)), await run(aliases(2)), await run(aliases(1))]).toEqual([
      { status: 200, errors: undefined },
      { status: 200, errors: undefined },
      { status: 429, errors: ['RATE_LIMITED'] },
    ]);
  } finally {
    await apollo.stop();
  }
});
