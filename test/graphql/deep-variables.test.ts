import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * A variable value nested thousands of levels deep in a recursive input type exhausts graphql-js' recursive coercion.
 * graphql-js returns the RangeError as one of the coercion errors, so the client was told V8's "Maximum call stack
 * size exceeded" (400 BAD_USER_INPUT); it now gets a message that says what to change. Found by an outside-style
 * review over HTTP (8000 levels of `{"and": [...]}`, 80 kB).
 */

const typeDefs = /* GraphQL */ `
  input Filter { and: [Filter!] or: [Filter!] name: String }
  type Query { count(filter: Filter): Int! }
`;
const resolvers = { Query: { count: () => 1 } };

let srv: RunningServer;
beforeAll(async () => {
  srv = await startServer({ graphql: { path: '/graphql', typeDefs, resolvers } });
});
afterAll(() => srv.close());

const nested = (member: 'and' | 'or', levels: number) => {
  let value = '{"name":"x"}';
  for (let i = 0; i < levels; i++) value = `{"${member}":[${value}]}`;
  return value;
};
const post = async (variables: string) => {
  const res = await fetch(srv.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: `{"query":"query($f: Filter) { count(filter: $f) }","variables":{"f":${variables}}}`,
  });
  return { status: res.status, body: (await res.json()) as unknown };
};

test.each([
  ['8000 levels of and', nested('and', 8000)],
  ['8000 levels of or', nested('or', 8000)],
])('%s: 400 BAD_USER_INPUT saying the values are nested too deeply', async (_name, variables) => {
  expect(await post(variables)).toEqual({
    status: 400,
    body: {
      errors: [
        {
          message:
            'The variable values are nested too deeply to be read: send input objects and lists nested a few levels deep.',
          extensions: { code: 'BAD_USER_INPUT' },
        },
      ],
    },
  });
});

test('50 levels still run', async () => {
  expect(await post(nested('and', 50))).toEqual({ status: 200, body: { data: { count: 1 } } });
});
