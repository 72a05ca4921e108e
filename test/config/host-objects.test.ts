import { GraphQLError, type ValidationRule } from 'graphql';
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import { MemoryStorage } from '../../adapters/memory.js';
import type { MailMessage, Mailer } from '../../lib/core/mailer.js';
import type { Storage } from '../../lib/core/storage.js';
import { loadConfig } from '../../lib/config/load.js';
import { TestBrowser } from '../helpers/browser.js';
import { errorOf } from '../helpers/errors.js';
import { oidc, relyingParty, signIn } from '../helpers/flow.js';
import { catalogGraphql, graphql, startServer, type RunningServer } from '../helpers/server.js';

/** Objects a host passes in through the configuration, each exercised over HTTP against a real server. */

let srv: RunningServer | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

/** A host's own storage: a plain object delegating to a MemoryStorage, recording which models it served. */
function hostStorage() {
  const inner = new MemoryStorage();
  const models = new Set<string>();
  const state = { down: false, closed: false };
  const storage: Storage = {
    adapter: (model) => {
      models.add(model);
      return inner.adapter(model);
    },
    ping: async () => {
      if (state.down) throw new Error('host storage is down');
    },
    close: async () => {
      state.closed = true;
      await inner.close();
    },
    accountStore: (seed) => inner.accountStore(seed),
    limiterBackend: () => inner.limiterBackend(),
  };
  return { storage, models, state };
}

describe('storage: { type: "custom", instance }', () => {
  test('codes, tokens and sessions of a sign-in live in the instance; /readyz asks it; close() leaves it open', async () => {
    const host = hostStorage();
    srv = await startServer({ storage: { type: 'custom', instance: host.storage } });
    const rp = await relyingParty(srv.issuer);
    const { tokens } = await signIn(srv.issuer, rp);
    await expect(oidc.fetchUserInfo(rp.config, tokens.access_token, 'alice')).resolves.toMatchObject({ sub: 'alice' });
    expect([...host.models]).toEqual(
      expect.arrayContaining(['Interaction', 'Session', 'AuthorizationCode', 'AccessToken', 'Grant']),
    );

    expect((await fetch(`${srv.issuer}/readyz`)).status).toBe(200);
    host.state.down = true;
    const unready = await fetch(`${srv.issuer}/readyz`);
    expect(unready.status).toBe(503);
    expect(await unready.json()).toEqual({ status: 'unavailable', storage: 'unreachable' });

    await srv.close();
    srv = undefined;
    expect(host.state.closed).toBe(false);
  });

  test('the instance must be there with "custom", only there, and have every method of the contract', () => {
    expect(
      errorOf(() => loadConfig({ issuer: 'http://localhost:1', storage: { type: 'custom' } }, {})).message,
    ).toMatch(/storage\.instance.*required/);
    const { storage } = hostStorage();
    expect(
      errorOf(() => loadConfig({ issuer: 'http://localhost:1', storage: { instance: storage } }, {})).message,
    ).toMatch(/storage\.instance.*only read with storage\.type "custom"/);
    const { limiterBackend: _missing, ...partial } = storage;
    expect(
      errorOf(() =>
        loadConfig({ issuer: 'http://localhost:1', storage: { type: 'custom', instance: partial as Storage } }, {}),
      ).message,
    ).toMatch(/storage\.instance\.limiterBackend.*must be a function/);
  });
});

describe('mail: { mailer }', () => {
  test('account mail goes to the host mailer (password reset requested over HTTP)', async () => {
    const sent: MailMessage[] = [];
    const mailer: Mailer = {
      kind: 'custom',
      send: async (m) => {
        sent.push(m);
      },
    };
    srv = await startServer({ mail: { mailer } });
    const browser = new TestBrowser(srv.issuer);
    const page = await browser.submit(await browser.go(`${srv.issuer}/account/reset`), { email: 'alice@example.com' });
    expect(page.dom.querySelector('h1')?.text).toBe('Check your e-mail');
    for (let i = 0; i < 50 && sent.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ to: 'alice@example.com', subject: 'Reset your password' });
    expect(sent[0]!.link).toMatch(new RegExp(`^${srv.issuer}/account/reset/confirm\\?token=[\\w-]{43}$`));
  });

  test('a mailer without send is refused, naming the path', () => {
    expect(
      errorOf(() =>
        loadConfig({ issuer: 'http://localhost:1', mail: { mailer: { kind: 'custom' } as unknown as Mailer } }, {}),
      ).message,
    ).toMatch(/mail\.mailer\.send.*must be a function/);
  });
});

describe('graphql: { plugins, validationRules }', () => {
  test('a host plugin runs on every request and sees the caller', async () => {
    const seen: string[] = [];
    const plugin: ApolloServerPlugin<BaseContext> = {
      async requestDidStart() {
        return {
          async willSendResponse({ response, contextValue }) {
            const auth = (contextValue as { auth?: unknown }).auth;
            seen.push(auth ? 'token' : 'anonymous');
            response.http.headers.set('x-host-plugin', 'ran');
          },
        };
      },
    };
    srv = await startServer({ graphql: { ...catalogGraphql(), plugins: [plugin] } });
    const res = await graphql(srv.graphqlUrl, '{ __typename }');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ __typename: 'Query' });
    expect(res.headers.get('x-host-plugin')).toBe('ran');
    expect(seen).toEqual(['anonymous']);
  });

  test('a host validation rule refuses documents with 400 GRAPHQL_VALIDATION_FAILED; other documents run', async () => {
    const noProductsList: ValidationRule = (context) => ({
      Field(node) {
        if (node.name.value === 'products')
          context.reportError(
            new GraphQLError('This API does not list products; ask for one by id.', { nodes: [node] }),
          );
      },
    });
    srv = await startServer({ graphql: { ...catalogGraphql(), validationRules: [noProductsList] } });
    const refused = await graphql(srv.graphqlUrl, '{ products(first: 2) { id } }');
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([
      expect.objectContaining({
        message: 'This API does not list products; ask for one by id.',
        extensions: expect.objectContaining({ code: 'GRAPHQL_VALIDATION_FAILED' }),
      }),
    ]);
    const allowed = await graphql(srv.graphqlUrl, '{ __typename }');
    expect(allowed.status).toBe(200);
    // Remembered documents are not re-validated, but a refused one is never remembered: still refused.
    expect((await graphql(srv.graphqlUrl, '{ products(first: 2) { id } }')).status).toBe(400);
  });

  test('a validation rule that is not a function is refused, naming its index', () => {
    expect(
      errorOf(() =>
        loadConfig(
          {
            issuer: 'http://localhost:1',
            graphql: { typeDefs: 'type Query { a: Int }', validationRules: ['nope' as unknown as ValidationRule] },
          },
          {},
        ),
      ).message,
    ).toMatch(/graphql\.validationRules\[0\].*ValidationRule/);
  });
});
