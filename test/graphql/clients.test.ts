import { readFileSync } from 'node:fs';
import * as apolloClient from '@apollo/client';
import * as urql from '@urql/core';
import * as graphqlRequest from 'graphql-request';
import { relyingParty, signIn } from '../helpers/flow.js';
import { catalogGraphql, startServer, type RunningServer } from '../helpers/server.js';

/**
 * The mainstream GraphQL clients against a real server, each set up exactly as docs/guides/graphql-clients.md says:
 * the page's snippets are read from the page and run as written (their `import` lines name what they get), with
 * `GRAPHQL_URL` and `accessToken` given. Each client must see the data of a query, and for a refusal the GraphQL
 * error with its `extensions.code`: Apollo Client 4 reads the `errors` of a non-2xx answer only when it is labelled
 * `application/graphql-response+json` (lib/graphql/media-type.ts).
 */

const PAGE_PATH = 'docs/guides/graphql-clients.md';
const PAGE = readFileSync(new URL(`../../${PAGE_PATH}`, import.meta.url), 'utf8');
const MODULES: Record<string, Record<string, unknown>> = {
  '@apollo/client': apolloClient,
  '@urql/core': urql,
  'graphql-request': graphqlRequest,
};

/** The first ```js block of the page's section `## <heading>`. */
function snippet(heading: string): string {
  const section = PAGE.split(/^## /m).find((s) => s.startsWith(heading));
  const code = section && /```js\n([^]*?)```/.exec(section)?.[1];
  if (!code) throw new Error(`${PAGE_PATH} has no js snippet under "## ${heading}"`);
  return code;
}

/**
 * Runs a snippet of the page with `GRAPHQL_URL` and `accessToken` and returns the value it names `returned`. Its
 * imports become parameters bound to the named exports of the real packages (an import of anything else fails).
 */
function run<T>(code: string, returned: string, GRAPHQL_URL: string, accessToken: string): T {
  const names: string[] = [];
  const values: unknown[] = [];
  const body = code.replace(/^import \{([^}]+)\} from '([^']+)';\n/gm, (_line, list: string, from: string) => {
    for (const name of list.split(',').map((n) => n.trim())) {
      if (!MODULES[from] || !(name in MODULES[from])) throw new Error(`${PAGE_PATH} imports ${name} from ${from}`);
      names.push(name);
      values.push(MODULES[from][name]);
    }
    return '';
  });
  // The page's own snippet, run as written.
  const build = new Function(...names, 'GRAPHQL_URL', 'accessToken', `${body}\nreturn ${returned};`);
  return build(...values, GRAPHQL_URL, accessToken) as T;
}

/**
 * What a client made of an answer: its data, or the first GraphQL error's code (and the HTTP status, from the clients
 * whose error carries it, as the page says), or (neither) its error message.
 */
type Seen = { data: unknown } | { code: unknown; status?: number } | { error: string };

/** Leaves out the `__typename` Apollo Client adds to every selection set. */
const withoutTypename = (data: unknown) =>
  JSON.parse(JSON.stringify(data, (key, value: unknown) => (key === '__typename' ? undefined : value))) as unknown;

type RelayPayload = { data?: unknown; errors?: Array<{ extensions?: { code?: unknown } }> };
type RelayFetch = (params: { text: string; name: string }, variables: object) => Promise<RelayPayload>;

interface Client {
  /** The page's section (`## <heading>`). */
  heading: string;
  /** Whether the client's error carries the HTTP status (the page names where). */
  reportsStatus?: true;
  /** Builds the client from (a variant of) its snippet and asks it `query`. */
  ask(code: string, url: string, token: string, query: string): Promise<Seen>;
}

const CLIENTS: Record<string, Client> = {
  'Apollo Client': {
    heading: 'Apollo Client 4',
    async ask(code, url, token, query) {
      const client = run<apolloClient.ApolloClient>(code, 'client', url, token);
      try {
        const result = await client.query({ query: apolloClient.gql(query), fetchPolicy: 'no-cache' });
        return { data: withoutTypename(result.data) };
      } catch (error) {
        if (apolloClient.CombinedGraphQLErrors.is(error)) return { code: error.errors[0]?.extensions?.code };
        return { error: (error as Error).message };
      } finally {
        client.stop();
      }
    },
  },
  urql: {
    heading: 'urql 6',
    reportsStatus: true,
    async ask(code, url, token, query) {
      const { data, error } = await run<urql.Client>(code, 'client', url, token).query(query, {}).toPromise();
      if (!error) return { data };
      const status = (error.response as Response | undefined)?.status;
      const first = error.graphQLErrors[0];
      return first ? { code: first.extensions.code, status } : { error: error.message };
    },
  },
  'graphql-request': {
    heading: 'graphql-request',
    reportsStatus: true,
    async ask(code, url, token, query) {
      try {
        return { data: await run<graphqlRequest.GraphQLClient>(code, 'client', url, token).request(query) };
      } catch (error) {
        if (!(error instanceof graphqlRequest.ClientError)) return { error: (error as Error).message };
        return { code: error.response.errors?.[0]?.extensions?.code, status: error.response.status };
      }
    },
  },
  "Relay's fetch function": {
    heading: 'Relay',
    async ask(code, url, token, query) {
      // What Relay's network layer hands the function: the operation's text (and name), and the variables.
      const payload = await run<RelayFetch>(code, 'fetchGraphQL', url, token)({ text: query, name: 'Q' }, {});
      if (payload.data) return { data: payload.data };
      return payload.errors?.[0] ? { code: payload.errors[0].extensions?.code } : { error: JSON.stringify(payload) };
    },
  },
};

let main: RunningServer;
let limited: RunningServer;
let getOn: RunningServer;
/** An access token of each server (the demo user through the real code flow). */
const tokens = new Map<RunningServer, string>();

async function tokenOf(srv: RunningServer): Promise<string> {
  const { tokens: set } = await signIn(srv.issuer, await relyingParty(srv.issuer));
  return set.access_token;
}

beforeAll(async () => {
  [main, limited, getOn] = await Promise.all([
    startServer(),
    // One point per token holder for 10 minutes, spent below (by a root field: `__typename` is free).
    startServer({ graphql: { ...catalogGraphql(), rateLimit: { points: 1, durationSeconds: 600 } } }),
    startServer({ graphql: { ...catalogGraphql(), transports: { get: true } } }),
  ]);
  for (const srv of [main, limited, getOn]) tokens.set(srv, await tokenOf(srv));
  const spend = await fetch(limited.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.get(limited)}` },
    body: '{"query":"{ product(id: 2) { name } }"}',
  });
  expect(spend.status).toBe(200);
});
afterAll(async () => {
  await Promise.all([main?.close(), limited?.close(), getOn?.close()]);
});

const PRODUCT = '{ product(id: 1) { name } }';
const LAMP = { data: { product: { name: 'Desk Lamp' } } };

/** A refusal as a client sees it: the code, and the status where the client's error carries it. */
const refused =
  (code: string, status: number) =>
  (client: Client): Seen =>
    client.reportsStatus ? { code, status } : { code };

/** Each row: what is asked, of which server, with which token, and what every client must see. */
const ROWS: Array<[string, () => RunningServer, string | undefined, string, (client: Client) => Seen]> = [
  ['a query that succeeds', () => main, undefined, PRODUCT, () => LAMP],
  [
    'a misspelt field (400)',
    () => main,
    undefined,
    '{ prodct(id: 1) { name } }',
    refused('GRAPHQL_VALIDATION_FAILED', 400),
  ],
  ['an invalid access token (401)', () => main, 'not-a-valid-token', PRODUCT, refused('UNAUTHENTICATED', 401)],
  ['the operation rate limit spent (429)', () => limited, undefined, PRODUCT, refused('RATE_LIMITED', 429)],
];

describe.each(Object.entries(CLIENTS))(`%s, set up as ${PAGE_PATH} says`, (_name, client) => {
  test.each(ROWS)('%s', async (_row, srv, token, query, seen) => {
    const url = srv().graphqlUrl;
    expect(await client.ask(snippet(client.heading), url, token ?? tokens.get(srv())!, query)).toEqual(seen(client));
  });
});

/**
 * The page's "GET enabled by the operator" settings, each snippet changed as the page says: the query runs over GET
 * where the operator enabled it, and the same client gets 405 `METHOD_NOT_ALLOWED` from the default endpoint (so the
 * variant really sends a GET; for urql that is its default, which is why the page sets `preferGetMethod: false`).
 */
describe.each<[string, string, (code: string) => string]>([
  [
    'Apollo Client with useGETForQueries: true',
    'Apollo Client',
    (code) => code.replace('uri: GRAPHQL_URL,', 'uri: GRAPHQL_URL, useGETForQueries: true,'),
  ],
  [
    "urql without preferGetMethod: false (its default, 'within-url-limit')",
    'urql',
    (code) => code.replace(/^ {2}preferGetMethod: false,\n/m, ''),
  ],
  [
    "graphql-request with method: 'GET'",
    'graphql-request',
    (code) => code.replace('headers: () =>', "method: 'GET', headers: () =>"),
  ],
])('%s', (_name, which, variant) => {
  const client = () => CLIENTS[which]!;
  test.each<[string, () => RunningServer, (client: Client) => Seen]>([
    ['with GET enabled (graphql.transports.get): the query runs', () => getOn, () => LAMP],
    ['on the default endpoint (GET off): 405 METHOD_NOT_ALLOWED', () => main, refused('METHOD_NOT_ALLOWED', 405)],
  ])('%s', async (_row, srv, seen) => {
    const code = variant(snippet(client().heading));
    expect(code).not.toBe(snippet(client().heading));
    expect(await client().ask(code, srv().graphqlUrl, tokens.get(srv())!, PRODUCT)).toEqual(seen(client()));
  });
});
