import { request as httpRequest } from 'node:http';
import { relyingParty, signIn } from '../helpers/flow.js';
import { catalogGraphql, startServer, type RunningServer } from '../helpers/server.js';

/**
 * How an access token is presented at the GraphQL endpoint (RFC 6750 §2, §3.1): a malformed Bearer/DPoP header or a
 * token in the URL query is `400 invalid_request` (as oidc-provider answers at userinfo on the same server), another
 * scheme is `401` with a bare `Bearer` challenge, an unknown token `401 invalid_token`; a well-formed header works.
 */

let srv: RunningServer;
let token: string;
beforeAll(async () => {
  srv = await startServer({ graphql: { ...catalogGraphql(), transports: { get: true } } });
  const { tokens } = await signIn(srv.issuer, await relyingParty(srv.issuer), {
    email: 'admin@example.com',
    password: 'admin-demo-password',
    params: { scope: 'openid catalog:admin' },
  });
  token = tokens.access_token;
});
afterAll(() => srv.close());

const DELISTED = '{ product(id: 3) { name } }';

interface Answer {
  status: number;
  challenge: string | undefined;
  code: string | undefined;
  message: string;
  text: string;
}

/** A request with exactly these headers (Node's fetch would merge repeated ones). */
function send(method: 'GET' | 'POST', query: string, headers: Array<[string, string]>): Promise<Answer> {
  const url = new URL(srv.graphqlUrl);
  const body = method === 'POST' ? JSON.stringify({ query: DELISTED }) : undefined;
  const search =
    method === 'GET'
      ? `?${new URLSearchParams({ query: DELISTED })}${query ? `&${query}` : ''}`
      : query
        ? `?${query}`
        : '';
  const all: Array<[string, string]> = [
    ['host', url.host],
    ...(body ? [['content-type', 'application/json'] as [string, string]] : []),
    ...headers,
  ];
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method,
        path: `${url.pathname}${search}`,
        headers: all.flat() as unknown as Record<string, string>,
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => {
          const json = JSON.parse(text) as { errors?: Array<{ message: string; extensions: { code: string } }> };
          resolve({
            status: res.statusCode!,
            challenge: res.headers['www-authenticate'],
            code: json.errors?.[0]?.extensions.code,
            message: json.errors?.[0]?.message ?? '',
            text,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

type Expected = { status: number; challenge: RegExp; code: string; message: RegExp };
const INVALID_REQUEST: Expected = {
  status: 400,
  challenge: /^Bearer error="invalid_request", error_description="[^"]+"$/,
  code: 'BAD_REQUEST',
  message: /Authorization header/,
};
const IN_QUERY: Expected = { ...INVALID_REQUEST, message: /not accepted in the URL query/ };
const OTHER_SCHEME: Expected = {
  status: 401,
  challenge: /^Bearer$/,
  code: 'UNAUTHENTICATED',
  message: /uses the scheme '\w+', which this endpoint does not take/,
};

const refused: Array<[string, 'GET' | 'POST', () => string, () => Array<[string, string]>, Expected]> = [
  ['"Bearer" without a token', 'POST', () => '', () => [['authorization', 'Bearer']], INVALID_REQUEST],
  ['"Bearer " and a space', 'POST', () => '', () => [['authorization', 'Bearer ']], INVALID_REQUEST],
  ['a tab between scheme and token', 'POST', () => '', () => [['authorization', `Bearer\t${token}`]], INVALID_REQUEST],
  ['two tokens', 'POST', () => '', () => [['authorization', `Bearer ${token} ${token}`]], INVALID_REQUEST],
  [
    'two credentials in one header',
    'POST',
    () => '',
    () => [['authorization', `Bearer ${token}, Bearer ${token}`]],
    INVALID_REQUEST,
  ],
  [
    'a token with a character outside token68',
    'POST',
    () => '',
    () => [['authorization', `Bearer ${token}!`]],
    INVALID_REQUEST,
  ],
  ['"DPoP" without a token', 'POST', () => '', () => [['authorization', 'DPoP']], INVALID_REQUEST],
  ['lowercase "bearer" without a token', 'POST', () => '', () => [['authorization', 'bearer']], INVALID_REQUEST],
  ['the Basic scheme', 'POST', () => '', () => [['authorization', 'Basic YWxpY2U6cHc=']], OTHER_SCHEME],
  [
    'a scheme that merely begins with Bearer',
    'POST',
    () => '',
    () => [['authorization', `Bearerx ${token}`]],
    OTHER_SCHEME,
  ],
  ['access_token in the query string of a POST (alone)', 'POST', () => `access_token=${token}`, () => [], IN_QUERY],
  [
    'access_token in the query string of a POST, beside the header',
    'POST',
    () => `access_token=${token}`,
    () => [['authorization', `Bearer ${token}`]],
    IN_QUERY,
  ],
  ['access_token in the query string of a GET', 'GET', () => `access_token=${token}`, () => [], IN_QUERY],
  ['access_token percent-encoded in the name', 'GET', () => `access%5Ftoken=${token}`, () => [], IN_QUERY],
];

describe('refused token presentations', () => {
  test.each(refused)('%s', async (_name, method, query, headers, expected) => {
    const res = await send(method, query(), headers());
    expect({ status: res.status, code: res.code }).toEqual({ status: expected.status, code: expected.code });
    expect(res.challenge).toMatch(expected.challenge);
    expect(res.message).toMatch(expected.message);
    expect(res.text).not.toContain(token);
    expect(res.text).not.toContain('Prototype Drone');
  });
});

describe('accepted presentations (the rows above fail for their shape, not for the token)', () => {
  test.each([
    ['Bearer', 'POST', (t: string) => `Bearer ${t}`],
    ['lowercase bearer (schemes are case-insensitive, RFC 9110 §11.1)', 'POST', (t: string) => `bearer ${t}`],
    ['two spaces after the scheme', 'POST', (t: string) => `Bearer  ${t}`],
    ['over GET', 'GET', (t: string) => `Bearer ${t}`],
  ] as const)('%s', async (_name, method, header) => {
    const res = await send(method, '', [['authorization', header(token)]]);
    expect({ status: res.status, text: res.text }).toEqual({
      status: 200,
      text: '{"data":{"product":{"name":"Prototype Drone"}}}\n',
    });
  });

  test('an unknown but well-formed token stays 401 invalid_token', async () => {
    const res = await send('POST', '', [['authorization', 'Bearer not-a-real-token-123']]);
    expect({ status: res.status, code: res.code }).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
    expect(res.challenge).toMatch(/^Bearer error="invalid_token"/);
  });

  test('other query parameters of a GET are not taken for a token', async () => {
    const res = await send('GET', 'token=x&access_tokens=y', []);
    expect(res.status).toBe(200);
  });
});
