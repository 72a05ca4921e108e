import { ConfigError, createServer, type PortcullisConfig } from '../../lib/index.js';
import { startCommand } from '../../lib/cli/start.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Every start-up failure a configuration can cause is a ConfigError naming the option, with the message of the
 * library that found it kept in the text (docs/guides/using-in-your-code.md "Errors"), not a bare graphql-js, graphql-tools or oidc-provider
 * error, nor a TypeError half-way through start-up.
 */
const issuer = 'http://localhost:4351';
const client = (over: Record<string, unknown>) => ({
  client_id: 'my-app',
  client_secret: 'a-long-enough-client-secret',
  redirect_uris: ['https://app.example/cb'],
  ...over,
});
const LOGGER_ADVICE =
  "pass a pino logger, or an object with pino's info, warn, error and child(bindings, options) (console is not one)";

/** A logger that records every call, with some of pino's methods only. */
function recordingLogger(methods: readonly string[]) {
  const calls: string[] = [];
  return {
    calls,
    logger: Object.fromEntries(
      methods.map((m) => [
        m,
        (...args: unknown[]) => {
          calls.push(`${m} ${args.map(String).join(' ')}`);
        },
      ]),
    ),
  };
}

describe('start-up errors are ConfigErrors at the option that caused them', () => {
  test.each<[string, Record<string, unknown>, string, string]>([
    [
      'SDL that does not parse',
      { graphql: { typeDefs: 'type Query { a: Int' } },
      'graphql.typeDefs',
      'Syntax Error: Expected Name, found <EOF>. (line 1, column 20)',
    ],
    [
      'SDL naming an unknown type',
      { graphql: { typeDefs: 'type Query { a: Foo b: Bar }' } },
      'graphql.typeDefs',
      'Unknown type "Foo"; Unknown type "Bar".',
    ],
    [
      'a syntax error in the second of several SDL documents',
      { graphql: { typeDefs: ['type Query { a: Int }', 'type X {'] } },
      'graphql.typeDefs',
      'Syntax Error: Expected Name, found <EOF>. (line 1, column 9)',
    ],
    [
      'a resolver for a field not in the schema',
      { graphql: { typeDefs: 'type Query { a: Int }', resolvers: { Query: { b: () => 1 } } } },
      'graphql.resolvers',
      'Query.b defined in resolvers, but not in schema',
    ],
    [
      'resolvers for a type not in the schema, in an array of resolver maps',
      {
        graphql: {
          typeDefs: 'type Query { a: Int }',
          resolvers: [{ Query: { a: () => 1 } }, { Mutation: { b: () => 1 } }],
        },
      },
      'graphql.resolvers',
      '"Mutation" defined in resolvers, but not in schema',
    ],
    [
      "a configured client with the account page's client id",
      { clients: [client({}), client({ client_id: 'portcullis-account' })] },
      'clients[1].client_id',
      '"portcullis-account" is reserved for the account page\'s own client (oidc-provider: client_id must be unique amongst statically configured clients): choose another client_id',
    ],
  ])('%s', async (_name, over, path, message) => {
    const err = await createServer({ issuer, ...over } as PortcullisConfig).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).toMatchObject({
      code: 'ERR_CONFIG_INVALID',
      path,
      message: `Invalid configuration at "${path}": ${message}`,
    });
  });

  test.each<[string, readonly string[], string]>([
    ["without child (console's shape)", ['debug', 'info', 'warn', 'error', 'log'], 'lacks the method child'],
    ['without error and child', ['info', 'warn'], 'lacks the methods error, child'],
  ])('a logger %s is refused at "logger" before anything is logged through it', async (_name, methods, missing) => {
    const { calls, logger } = recordingLogger(methods);
    const err = await createServer({ issuer, logger: logger as never }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).toMatchObject({
      path: 'logger',
      message: `Invalid configuration at "logger": ${missing}: ${LOGGER_ADVICE}`,
    });
    expect(calls).toEqual([]);
  });

  test('console itself is refused the same way', async () => {
    await expect(createServer({ issuer, logger: console as never })).rejects.toMatchObject({
      path: 'logger',
      message: expect.stringContaining('lacks the method child'),
    });
  });

  test("portcullis start prints the reserved client id and its option path, not oidc-provider's bare error code", async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'portcullis-reserved-')), 'portcullis.config.json');
    writeFileSync(file, JSON.stringify({ clients: [client({ client_id: 'portcullis-account' })] }));
    const stderr: string[] = [];
    const status = await startCommand(
      ['--config', file],
      {
        stdout: () => undefined,
        stderr: (text) => {
          stderr.push(text);
        },
      },
      { PORTCULLIS_ISSUER: issuer },
    );
    expect(status).toBe(1);
    expect(stderr.join('')).toBe(
      'Portcullis failed to start: Invalid configuration at "clients[0].client_id": "portcullis-account" is reserved for the account page\'s own client (oidc-provider: client_id must be unique amongst statically configured clients): choose another client_id (ERR_CONFIG_INVALID)\n',
    );
  });
});
