import { relyingParty, signIn } from '../helpers/flow.js';
import { rawLines } from '../helpers/raw-http.js';
import { catalogGraphql, startServer, type RunningServer } from '../helpers/server.js';

/**
 * An `Authorization` header that an endpoint cannot use gets the same answer and description at userinfo and at
 * GraphQL, saying what was wrong (issue 28: the README's walkthrough sent `Bearer ` with an unset variable and got
 * "invalid authorization header value format" and "Malformed access token request"). RFC 6750 §3.1: a malformed
 * header is `400 invalid_request` with an `error="invalid_request"` challenge; another scheme is `401` with a
 * challenge without error attributes. Each header line is written as it goes on the wire.
 */

let srv: RunningServer;
let token: string;
beforeAll(async () => {
  srv = await startServer({ graphql: catalogGraphql() });
  ({
    tokens: { access_token: token },
  } = await signIn(srv.issuer, await relyingParty(srv.issuer), {
    email: 'alice@example.com',
    password: 'alice-demo-password',
  }));
});
afterAll(() => srv.close());

interface Answer {
  status: number;
  challenge: string;
  error: string;
  description: string;
}

async function userinfo(authorization: string): Promise<Answer> {
  const { host } = new URL(srv.issuer);
  const res = await rawLines(srv.issuer, 'GET /userinfo', [`Host: ${host}`, 'Accept: application/json', authorization]);
  const json = JSON.parse(res.body) as { error?: string; error_description?: string; sub?: string };
  const challenge = /^www-authenticate: (.*)$/im.exec(res.head)?.[1] ?? '';
  return {
    status: res.status,
    challenge: challenge.replace(/ ?realm="[^"]*",?/, ''),
    error: json.error ?? `sub ${json.sub}`,
    description: json.error_description ?? '',
  };
}

async function graphql(authorization: string): Promise<Answer> {
  const url = new URL(srv.graphqlUrl);
  const body = '{"query":"{ products { id } }"}';
  const res = await rawLines(
    srv.issuer,
    `POST ${url.pathname}`,
    [`Host: ${url.host}`, 'Content-Type: application/json', authorization],
    body,
  );
  const json = JSON.parse(res.body) as { errors?: Array<{ message: string; extensions: { code: string } }> };
  const challenge = /^www-authenticate: (.*)$/im.exec(res.head)?.[1] ?? '';
  const error = json.errors?.[0];
  return { status: res.status, challenge, error: error?.extensions.code ?? 'data', description: error?.message ?? '' };
}

const SEND = 'send `Authorization: Bearer <access token>`';
const MALFORMED = { status: 400, userinfo: 'invalid_request', graphql: 'BAD_REQUEST' };
const OTHER = { status: 401, userinfo: 'invalid_token', graphql: 'UNAUTHENTICATED' };
type Row = [name: string, line: () => string, expected: typeof MALFORMED, description: string];
const rows: Row[] = [
  ['an empty header', () => 'Authorization:', MALFORMED, `the Authorization header is empty: ${SEND}`],
  [
    '"Bearer" alone',
    () => 'Authorization: Bearer',
    MALFORMED,
    `the Authorization header has the scheme 'Bearer' but no token: ${SEND}`,
  ],
  [
    '"Bearer " (an unset variable)',
    () => 'Authorization: Bearer ',
    MALFORMED,
    `the Authorization header has the scheme 'Bearer' but no token: ${SEND}`,
  ],
  [
    '"bearer" in lower case alone',
    () => 'Authorization: bearer',
    MALFORMED,
    `the Authorization header has the scheme 'bearer' but no token: ${SEND}`,
  ],
  [
    'a token with a space inside',
    () => `Authorization: Bearer ${token.slice(0, 10)} ${token.slice(10)}`,
    MALFORMED,
    "the Authorization header has more than one value after the scheme 'Bearer': send one access token, without spaces or commas",
  ],
  [
    'a tab after the scheme',
    () => `Authorization: Bearer\t${token}`,
    MALFORMED,
    "the Authorization header must separate the scheme 'Bearer' from the token with a space",
  ],
  [
    'a character outside token68',
    () => `Authorization: Bearer ${token}!`,
    MALFORMED,
    'the Authorization header has a token with a character no access token has: RFC 6750 section 2.1 allows letters, digits, - . _ ~ + / and trailing =',
  ],
  [
    'the Basic scheme',
    () => 'Authorization: Basic YWxpY2U6cHc=',
    OTHER,
    `the Authorization header uses the scheme 'Basic', which this endpoint does not take: ${SEND}`,
  ],
  [
    'a scheme too odd to repeat',
    () => 'Authorization: X"y abc',
    OTHER,
    `the Authorization header uses an unknown scheme, which this endpoint does not take: ${SEND}`,
  ],
];

describe.each([
  ['userinfo', userinfo],
  ['GraphQL', graphql],
] as const)('refused at %s', (endpoint, send) => {
  test.each(rows)('%s', async (_name, line, expected, description) => {
    const res = await send(line());
    const error = endpoint === 'userinfo' ? expected.userinfo : expected.graphql;
    expect({ status: res.status, error: res.error }).toEqual({ status: expected.status, error });
    expect(res.description).toContain(description);
    // RFC 6750 §3: invalid_request names its error in the challenge; another scheme gets none (§3.1).
    if (expected === MALFORMED)
      expect(res.challenge).toBe(`Bearer error="invalid_request", error_description="${description}"`);
    else expect(res.challenge).toMatch(/^Bearer(?:$|, DPoP algs="[^"]+"$)/);
    expect(res.description).not.toContain(token);
  });
});

describe.each([
  ['userinfo', userinfo, 'sub '],
  ['GraphQL', graphql, 'data'],
] as const)('accepted at %s', (_endpoint, send, success) => {
  test.each([
    ['Bearer and the token', (t: string) => `Authorization: Bearer ${t}`],
    ['two spaces after the scheme (RFC 6750 §2.1: 1*SP)', (t: string) => `Authorization: Bearer  ${t}`],
    [
      '"bearer" in lower case (RFC 9110 §11.1: schemes are case-insensitive)',
      (t: string) => `Authorization: bearer ${t}`,
    ],
  ])('%s', async (_name, line) => {
    const res = await send(line(token));
    expect({ status: res.status, error: res.error.slice(0, success.length) }).toEqual({ status: 200, error: success });
  });
});
