/**
 * What a resolver sees in `context.auth` (RFC 7662 member names): `null` without a token; `sub`, `client_id`,
 * `scope` and `scopes` from a token obtained through the real forms with openid-client.
 */
import type { AuthInfo } from '../../lib/index.js';
import { relyingParty, signIn } from '../helpers/flow.js';
import { graphql, startServer, type RunningServer } from '../helpers/server.js';

let srv: RunningServer;
beforeAll(async () => {
  srv = await startServer({
    graphql: {
      typeDefs: 'type Query { auth: String @public(reason: "echoes the caller") }',
      resolvers: {
        Query: { auth: (_: unknown, __: unknown, ctx: { auth: AuthInfo | null }) => JSON.stringify(ctx.auth) },
      },
    },
  });
});
afterAll(() => srv.close());

test('anonymous: context.auth is null', async () => {
  expect((await graphql(srv.graphqlUrl, '{ auth }')).body).toEqual({ data: { auth: 'null' } });
});

test('with an access token: sub, client_id, scope (space-separated) and scopes (the same as a list)', async () => {
  const rp = await relyingParty(srv.issuer);
  const { tokens } = await signIn(srv.issuer, rp, { params: { scope: 'openid email' } });
  const body = (await graphql(srv.graphqlUrl, '{ auth }', { token: tokens.access_token })).body as {
    data: { auth: string };
  };
  const auth = JSON.parse(body.data.auth) as AuthInfo;
  expect(auth).toEqual({
    sub: tokens.claims()!.sub,
    client_id: 'demo-web',
    scope: 'openid email',
    scopes: ['openid', 'email'],
  });
});
