import { ConfigError, loadConfig, type ConfigProblem, type PortcullisConfig } from '../../lib/index.js';
import { errorOf } from '../helpers/errors.js';

/**
 * The option schema reports every problem of a configuration in one ConfigError (`problems`, `path` of the first),
 * so that an operator fixes them in one restart; alternatives (`string | object`, `false | { … }`) give the one
 * message that applies, not one per alternative.
 */
const issuer = 'http://localhost:4351';
const graphql = { typeDefs: 'type Query { a: Int }' };

test.each<[string, Record<string, unknown>, ConfigProblem[]]>([
  [
    'three missing things',
    { clients: [{ client_id: 'a' }], accounts: [{ email: 'alice@example.com' }] },
    [
      { path: 'issuer', message: 'is required' },
      { path: 'clients[0].redirect_uris', message: 'is required' },
      { path: 'accounts[0].password', message: 'is required' },
    ],
  ],
  [
    'unknown options beside wrong values',
    { issuer, issure: 'x', ttl: { accessToken: '3600', idToken: 0 }, storage: { type: 'postgres' } },
    [
      { path: 'issure', message: 'unknown option' },
      { path: 'ttl.accessToken', message: 'must be integer' },
      { path: 'ttl.idToken', message: 'must be >= 1' },
      { path: 'storage.type', message: 'must be one of "memory", "redis", "custom"' },
    ],
  ],
  [
    'two rules broken by one value: one problem, both messages',
    { issuer: 'x' },
    [
      {
        path: 'issuer',
        message:
          'must start with https:// (or http:// in development); must be an absolute URL such as https://id.example.com',
      },
    ],
  ],
  [
    'a value of none of the accepted types',
    { issuer, keys: { signing: 42 }, graphql: { typeDefs: 5 } },
    [
      { path: 'keys.signing', message: 'must be a string or an object' },
      { path: 'graphql.typeDefs', message: 'must be a string, an object or an array' },
    ],
  ],
  [
    "a value of an accepted type breaking that type's rules",
    { issuer, keys: { signing: '' }, mail: { smtp: 'http://mail.example' } },
    [
      { path: 'keys.signing', message: 'must NOT have fewer than 1 characters' },
      { path: 'mail.smtp', message: 'must match pattern "^smtps?://"' },
    ],
  ],
  [
    "false | { points, durationSeconds }: an object is held to the object's rules",
    { issuer, graphql: { ...graphql, rateLimit: { points: 0 } } },
    [
      { path: 'graphql.rateLimit.durationSeconds', message: 'is required' },
      { path: 'graphql.rateLimit.points', message: 'must be >= 1' },
    ],
  ],
  [
    'false | { points, durationSeconds }: true is neither',
    { issuer, graphql: { ...graphql, rateLimit: true } },
    [{ path: 'graphql.rateLimit', message: 'must be false or an object' }],
  ],
  [
    'a map key breaking the name rule is named once',
    { issuer, scopes: { 'bad name': { description: 'x' }, ok: {} } },
    [
      { path: 'scopes', message: 'the name "bad name" must match pattern "^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$"' },
      { path: 'scopes.ok.description', message: 'is required' },
    ],
  ],
])('%s: every problem in one ConfigError', (_name, input, problems) => {
  const err = errorOf(() => loadConfig(input as unknown as PortcullisConfig, {}));
  expect(err).toBeInstanceOf(ConfigError);
  expect(err.code).toBe('ERR_CONFIG_INVALID');
  expect(err.problems).toEqual(problems);
  expect(err.path).toBe(problems[0]!.path);
  expect(err.message).toBe(
    problems.length === 1
      ? `Invalid configuration at "${problems[0]!.path}": ${problems[0]!.message}`
      : `Invalid configuration (${problems.length} problems):\n${problems.map((p) => `  - "${p.path}": ${p.message}`).join('\n')}`,
  );
});
