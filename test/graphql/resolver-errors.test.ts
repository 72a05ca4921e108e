import { GraphQLError } from 'graphql';
import { graphql, startServer, type RunningServer } from '../helpers/server.js';

/**
 * Unexpected resolver errors (docs/guides/graphql.md "Resolvers and the auth context"): an error a resolver throws that is not a
 * `GraphQLError` reaches the client as `Unexpected error.` with `INTERNAL_SERVER_ERROR`, its path kept, and is
 * logged at `error` with the request id; `graphql.exposeResolverErrors: true` sends the message as it is. A
 * `GraphQLError` thrown on purpose, and Portcullis' own refusals, keep their messages either way. Over real HTTP.
 */

const SECRET = 'connect ECONNREFUSED 10.1.2.3:5432 (user app password hunter2)';
const typeDefs = `
  type Item { id: ID! detail: String @public(reason: "test") }
  type Query {
    thrown: String @public(reason: "test")
    rejected: String @public(reason: "test")
    typeError: String @public(reason: "test")
    onPurpose: String @public(reason: "test")
    onPurposeNoCode: String @public(reason: "test")
    items: [Item!] @public(reason: "test")
    fine: String @public(reason: "test")
  }`;
const resolvers = {
  Query: {
    thrown: () => {
      throw new Error(SECRET);
    },
    rejected: async () => {
      throw Object.assign(new Error(SECRET), { code: 'ECONNREFUSED' });
    },
    typeError: () => (undefined as unknown as { x: { y: string } }).x.y,
    onPurpose: () => {
      throw new GraphQLError('This product is out of stock.', { extensions: { code: 'OUT_OF_STOCK', productId: 7 } });
    },
    onPurposeNoCode: () => {
      throw new GraphQLError('Try again tomorrow.');
    },
    items: () => [{ id: '1' }, { id: '2' }],
    fine: () => 'ok',
  },
  Item: {
    detail: (item: { id: string }) => {
      if (item.id === '2') throw new Error(SECRET);
      return `detail ${item.id}`;
    },
  },
};

interface Logged {
  fields: Record<string, unknown>;
  msg: string;
}
let logged: Logged[] = [];
const logger = {
  info() {},
  warn() {},
  debug() {},
  error: (fields: Record<string, unknown>, msg: string) => {
    logged.push({ fields, msg });
  },
  child() {
    return logger;
  },
};

let masked: RunningServer;
let exposed: RunningServer;
beforeAll(async () => {
  [masked, exposed] = await Promise.all([
    startServer({ logger: logger as never, graphql: { path: '/graphql', typeDefs, resolvers } }),
    startServer({ graphql: { path: '/graphql', typeDefs, resolvers, exposeResolverErrors: true } }),
  ]);
});
afterAll(async () => {
  await Promise.all([masked.close(), exposed.close()]);
});
beforeEach(() => {
  logged = [];
});

const UNEXPECTED = { message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } };

describe('an unexpected resolver error is masked by default, and logged', () => {
  test.each<[string, string, string[]]>([
    ['a thrown Error', '{ thrown fine }', ['thrown']],
    ['a rejected promise with a driver code', '{ rejected fine }', ['rejected']],
    ["a TypeError of the resolver's own", '{ typeError fine }', ['typeError']],
  ])('%s: the client sees "Unexpected error." at its path, the other fields answer', async (_name, query, path) => {
    const res = await graphql(masked.graphqlUrl, query);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ [path[0]!]: null, fine: 'ok' });
    expect(res.body.errors).toEqual([{ ...UNEXPECTED, path, locations: [expect.any(Object)] }]);
    expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|hunter2|10\.1\.2\.3|undefined|reading/);
    // The operator's side: one error line with the request id of the response and the error itself.
    expect(logged).toHaveLength(1);
    expect(logged[0]!.msg).toBe('graphql: a resolver failed');
    expect(logged[0]!.fields).toMatchObject({ reqId: res.headers.get('x-request-id'), path });
    expect(logged[0]!.fields.err).toBeInstanceOf(Error);
  });

  test("an error in a list item: masked at the item's path, the other item answers", async () => {
    const res = await graphql(masked.graphqlUrl, '{ items { id detail } }');
    expect(res.body.data).toEqual({
      items: [
        { id: '1', detail: 'detail 1' },
        { id: '2', detail: null },
      ],
    });
    expect(res.body.errors).toEqual([{ ...UNEXPECTED, path: ['items', 1, 'detail'], locations: [expect.any(Object)] }]);
    expect(logged.map((l) => l.fields.path)).toEqual([['items', 1, 'detail']]);
  });
});

describe('what is meant for the client keeps its message', () => {
  test.each<[string, string, Record<string, unknown>]>([
    [
      'a GraphQLError with its own code and extensions',
      '{ onPurpose }',
      { message: 'This product is out of stock.', extensions: { code: 'OUT_OF_STOCK', productId: 7 } },
    ],
    ['a GraphQLError without a code', '{ onPurposeNoCode }', { message: 'Try again tomorrow.' }],
  ])('%s', async (_name, query, error) => {
    const res = await graphql(masked.graphqlUrl, query);
    expect(res.body.errors).toEqual([expect.objectContaining(error)]);
    expect(logged).toEqual([]);
  });

  test.each<[string, string, number, string]>([
    ['a validation error', '{ nope }', 400, 'GRAPHQL_VALIDATION_FAILED'],
    ['a syntax error', '{ fine', 400, 'GRAPHQL_PARSE_FAILED'],
  ])("%s: Portcullis' or graphql-js' message, not masked", async (_name, query, status, code) => {
    const res = await graphql(masked.graphqlUrl, query);
    expect(res.status).toBe(status);
    expect(res.body.errors?.[0]?.extensions?.code).toBe(code);
    expect(res.body.errors?.[0]?.message).not.toBe('Unexpected error.');
    expect(logged).toEqual([]);
  });
});

describe('graphql.exposeResolverErrors: true (opt-in)', () => {
  test.each<[string, string, string, string]>([
    ['a thrown Error', '{ thrown }', 'thrown', SECRET],
    ['a rejected promise', '{ rejected }', 'rejected', SECRET],
    ['a TypeError', '{ typeError }', 'typeError', "Cannot read properties of undefined (reading 'x')"],
  ])('%s: the message as thrown, still no stack trace', async (_name, query, field, message) => {
    const res = await graphql(exposed.graphqlUrl, query);
    expect(res.body.data).toEqual({ [field]: null });
    expect(res.body.errors).toEqual([
      { message, path: [field], locations: [expect.any(Object)], extensions: { code: 'INTERNAL_SERVER_ERROR' } },
    ]);
  });
});
