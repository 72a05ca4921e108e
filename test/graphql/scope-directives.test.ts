import { createServer } from '../../lib/index.js';
import { relyingParty, signIn } from '../helpers/flow.js';
import { graphql, startServer, type RunningServer } from '../helpers/server.js';
import { runSigningKeys } from '../helpers/run-resources.js';

/**
 * `@requiresScopes` wherever the directive may stand (`FIELD_DEFINITION | OBJECT | INTERFACE`), over real HTTP with
 * tokens from the code flow: admin's token carries `catalog:admin`, alice's (who asked for it) does not.
 */

const ADMIN = '@requiresScopes(scopes: ["catalog:admin"])';
const typeDefs = /* GraphQL */ `
  interface Account ${ADMIN} { secretNote: String }
  interface Named { label: String ${ADMIN} }
  type User implements Account & Named { secretNote: String label: String }

  interface Node { code: String ${ADMIN} }
  interface Resource implements Node { code: String }
  type Item implements Resource & Node { code: String title: String }

  interface Owned ${ADMIN} { ownerNote: String }
  interface Asset implements Owned { ownerNote: String }
  type Crate implements Asset & Owned { ownerNote: String }

  type Vault ${ADMIN} { content: String }
  type Shelf { label: String ${ADMIN} }

  type Query { account: Account named: Named user: User resource: Resource asset: Asset vault: Vault shelf: Shelf }
`;
const user = { __typename: 'User', secretNote: 'top secret', label: 'private label' };
const item = { __typename: 'Item', code: 'X-17', title: 'public title' };
const crate = { __typename: 'Crate', ownerNote: 'owner only' };
const resolvers = {
  Query: {
    account: () => user,
    named: () => user,
    user: () => user,
    resource: () => item,
    asset: () => crate,
    vault: () => ({ content: 'gold' }),
    shelf: () => ({ label: 'shelf label' }),
  },
  Account: { __resolveType: () => 'User' },
  Named: { __resolveType: () => 'User' },
  Node: { __resolveType: () => 'Item' },
  Resource: { __resolveType: () => 'Item' },
  Owned: { __resolveType: () => 'Crate' },
  Asset: { __resolveType: () => 'Crate' },
};

let srv: RunningServer;
let alice: string;
let admin: string;
beforeAll(async () => {
  srv = await startServer({ graphql: { path: '/graphql', typeDefs, resolvers } });
  const rp = await relyingParty(srv.issuer);
  alice = (await signIn(srv.issuer, rp, { params: { scope: 'openid catalog:admin' } })).tokens.access_token;
  admin = (
    await signIn(srv.issuer, rp, {
      email: 'admin@example.com',
      password: 'admin-demo-password',
      params: { scope: 'openid catalog:admin' },
    })
  ).tokens.access_token;
});
afterAll(() => srv.close());

describe('@requiresScopes on interfaces is enforced on every implementation', () => {
  test.each([
    [
      'interface-type mark, through the interface',
      '{ account { secretNote } }',
      ['account', 'secretNote'],
      'top secret',
    ],
    [
      'interface-type mark, on the implementing object',
      '{ user { secretNote } }',
      ['user', 'secretNote'],
      'top secret',
    ],
    ['interface-field mark, through the interface', '{ named { label } }', ['named', 'label'], 'private label'],
    ['interface-field mark, on the implementing object', '{ user { label } }', ['user', 'label'], 'private label'],
    [
      'field mark on an interface that another interface implements',
      '{ resource { code } }',
      ['resource', 'code'],
      'X-17',
    ],
    [
      'type mark on an interface that another interface implements',
      '{ asset { ownerNote } }',
      ['asset', 'ownerNote'],
      'owner only',
    ],
    ['object-type mark (unchanged)', '{ vault { content } }', ['vault', 'content'], 'gold'],
    ['object-field mark (unchanged)', '{ shelf { label } }', ['shelf', 'label'], 'shelf label'],
  ])('%s: FORBIDDEN and null without the scope, the data with it', async (_row, query, path, value) => {
    const [root, field] = path as [string, string];
    for (const token of [undefined, alice]) {
      const res = await graphql(srv.graphqlUrl, query, { token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: { [root]: { [field]: null } },
        errors: [
          expect.objectContaining({
            message: 'Not authorized to read this field.',
            path,
            extensions: { code: 'FORBIDDEN' },
          }),
        ],
      });
    }
    expect((await graphql(srv.graphqlUrl, query, { token: admin })).body).toEqual({
      data: { [root]: { [field]: value } },
    });
  });

  test('a field no interface marks stays open beside a marked one', async () => {
    expect((await graphql(srv.graphqlUrl, '{ resource { ... on Item { title } } }')).body).toEqual({
      data: { resource: { title: 'public title' } },
    });
  });
});

describe('the private-field check counts as protected what is enforced', () => {
  const quiet = {
    warn() {},
    info() {},
    error() {},
    debug() {},
    child() {
      return quiet;
    },
  };
  const start = (schema: string) =>
    createServer({
      issuer: 'http://localhost:3999',
      logger: quiet as never,
      keys: { signing: runSigningKeys(), cookies: ['x'.repeat(32)] },
      graphql: { typeDefs: schema, privateFieldCheck: 'refuse' },
    });

  test.each([
    [
      'a marked interface type',
      `interface Account ${ADMIN} { email: String } type User implements Account { email: String } type Query { me: Account }`,
    ],
    [
      'a marked interface field',
      `interface Account { email: String ${ADMIN} } type User implements Account { email: String } type Query { me: Account }`,
    ],
    [
      'a mark two interfaces up',
      `interface Node { email: String ${ADMIN} } interface Account implements Node { email: String }
      type User implements Account & Node { email: String } type Query { me: Account }`,
    ],
  ])('fields guarded through %s pass', async (_row, schema) => {
    await (await start(schema)).close();
  });

  test('an unmarked interface field is still reported, with the objects that leave it open', async () => {
    await expect(
      start(
        `interface Account { email: String } type User implements Account { email: String } type Query { me: Account }`,
      ),
    ).rejects.toMatchObject({
      path: 'graphql.typeDefs',
      message: expect.stringContaining('Account.email, User.email'),
    });
  });
});

describe('a mark naming a scope the server does not have is a start-up warning', () => {
  /** Starts a server with `schema` and the `catalog:admin` scope configured; returns the warnings about marks. */
  async function warningsFor(
    schema: string,
    graphql: Record<string, unknown> = {},
    about = '@requiresScopes',
  ): Promise<Array<{ marks?: unknown; msg: string }>> {
    const warnings: Array<{ marks?: unknown; msg: string }> = [];
    const logger = {
      warn: (o: { marks?: unknown }, msg?: string) => warnings.push({ marks: o?.marks, msg: String(msg ?? o) }),
      info() {},
      error() {},
      debug() {},
      child() {
        return logger;
      },
    };
    await (
      await createServer({
        issuer: 'http://localhost:3999',
        logger: logger as never,
        keys: { signing: runSigningKeys(), cookies: ['x'.repeat(32)] },
        scopes: { 'catalog:admin': { description: 'Manage the catalog' } },
        graphql: { typeDefs: schema, ...graphql },
      })
    ).close();
    return warnings.filter((w) => w.msg.includes(about));
  }

  test.each([
    [
      'a field mark',
      'type Query { secret: String @requiresScopes(scopes: ["admin"]) }',
      [{ at: 'Query.secret', scope: 'admin' }],
    ],
    [
      'an object-type mark',
      'type Vault @requiresScopes(scopes: ["admin"]) { content: String } type Query { vault: Vault }',
      [{ at: 'Vault', scope: 'admin' }],
    ],
    [
      'an interface-field mark',
      'interface Named { label: String @requiresScopes(scopes: ["admin"]) } type Shelf implements Named { label: String } type Query { named: Named }',
      [{ at: 'Named.label', scope: 'admin' }],
    ],
    [
      'a typo beside a known scope',
      'type Query { secret: String @requiresScopes(scopes: ["catalog:admin", "catalog:admn"]) }',
      [{ at: 'Query.secret', scope: 'catalog:admn' }],
    ],
  ])('%s is named with its scope', async (_row, schema, marks) => {
    const warnings = await warningsFor(schema);
    expect(warnings).toEqual([
      { marks, msg: expect.stringContaining(marks.map((m) => `${m.at} needs "${m.scope}"`).join(', ')) },
    ]);
    expect(warnings[0]!.msg).toMatch(/^graphql: .*config `scopes`/);
  });

  test.each([
    ['a configured scope', 'type Query { secret: String @requiresScopes(scopes: ["catalog:admin"]) }'],
    ['a standard OpenID Connect scope', 'type Query { mail: String @requiresScopes(scopes: ["email"]) }'],
  ])('%s gives no warning', async (_row, schema) => {
    expect(await warningsFor(schema)).toEqual([]);
  });
});

describe('introspection.requiredScope naming a scope the server does not have is a start-up warning', () => {
  const schema = 'type Query { hello: String }';
  /** Warnings about introspection's scope for these introspection options. */
  async function warningsFor(introspection: Record<string, unknown>) {
    const warnings: string[] = [];
    const logger = {
      warn: (_o: unknown, msg?: string) => warnings.push(String(msg)),
      info() {},
      error() {},
      debug() {},
      child() {
        return logger;
      },
    };
    await (
      await createServer({
        issuer: 'http://localhost:3999',
        logger: logger as never,
        keys: { signing: runSigningKeys(), cookies: ['x'.repeat(32)] },
        scopes: { 'catalog:admin': { description: 'Manage the catalog' } },
        graphql: { typeDefs: schema, introspection },
      })
    ).close();
    return warnings.filter((w) => w.includes('introspection.requiredScope'));
  }

  test.each<[string, Record<string, unknown>, string[]]>([
    [
      'an unknown scope, introspection on',
      { enabled: true, requiredScope: 'schema:read' },
      [
        'graphql: introspection.requiredScope "schema:read" is a scope this server does not have (add it to config `scopes`), so no token can introspect',
      ],
    ],
    ['a configured scope', { enabled: true, requiredScope: 'catalog:admin' }, []],
    ['a standard OpenID Connect scope', { enabled: true, requiredScope: 'profile' }, []],
    [
      'an unknown scope with introspection off (nothing to introspect)',
      { enabled: false, requiredScope: 'schema:read' },
      [],
    ],
  ])('%s', async (_row, introspection, expected) => {
    expect(await warningsFor(introspection)).toEqual(expected);
  });
});
