import { buildHostApp } from '../../examples/mount-in-koa.js';
import { catalogResolvers, typeDefs } from '../../examples/catalog/schema.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';
import { relyingParty, signIn } from '../helpers/flow.js';
import { freePort, graphql } from '../helpers/server.js';

test('mounted into a host Koa app: host routes, discovery, the full flow and GraphQL all work', async () => {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const host = await buildHostApp({ issuer, graphql: { typeDefs, resolvers: catalogResolvers() }, ...demoFixtures() });
  const server = host.app.listen(port, '127.0.0.1');
  try {
    expect(await (await fetch(`${issuer}/`)).json()).toEqual({ hello: 'from the host app' });
    const rp = await relyingParty(issuer);
    const { tokens } = await signIn(issuer, rp, { email: 'admin@example.com', password: 'admin-demo-password', params: { scope: 'openid catalog:admin' } });
    const res = await graphql(`${issuer}/graphql`, '{ product(id: 3) { name } }', { token: tokens.access_token });
    expect(res.body).toEqual({ data: { product: { name: 'Prototype Drone' } } });
  } finally {
    server.close();
    server.closeAllConnections();
    await host.close();
  }
});
