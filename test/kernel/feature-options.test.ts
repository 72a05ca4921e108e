import { Type } from '@sinclair/typebox';
import {
  ConfigError,
  createServer,
  defaultFeatures,
  loadConfig,
  type Feature,
  type PortcullisConfig,
} from '../../lib/index.js';
import { ConfigSchema, DefaultKind } from '../../config/options.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';
import { errorOf } from '../helpers/errors.js';
import { rawRequest } from '../helpers/raw-http.js';
import { freePort } from '../helpers/server.js';
import { help } from './example-defaults-feature.js';
import { banner, config as documented } from './example-options-feature.js';

/**
 * A feature's options (`options` of the contract): the server's own are slices of the one option schema; a host
 * feature's are validated by loadConfig with the rest, their defaults filled in, and read by the feature.
 */
const issuer = 'http://localhost:4390';
const load = (input: Record<string, unknown>, features: readonly Feature[], env: NodeJS.ProcessEnv = {}) =>
  loadConfig({ issuer, ...input } as PortcullisConfig, env, features) as ReturnType<typeof loadConfig> & {
    banner?: unknown;
  };
const withBanner = [...defaultFeatures, banner];

test("the server's own features: each slice is the one composed into the option schema, each key owned once", () => {
  const owners = new Map<string, string>();
  for (const feature of defaultFeatures) {
    for (const [key, schema] of Object.entries(feature.options ?? {})) {
      expect([
        feature.id,
        key,
        ConfigSchema.properties[key as keyof typeof ConfigSchema.properties] === schema,
      ]).toEqual([feature.id, key, true]);
      expect(owners.get(key)).toBeUndefined();
      owners.set(key, feature.id);
    }
  }
  expect(Object.fromEntries(owners)).toEqual({
    ui: 'branding',
    passkeys: 'passkeys',
    mfa: 'mfa',
    selfService: 'self-service',
    registration: 'registration',
    graphql: 'graphql',
  });
});

test("a host feature's options: defaults filled in, given values kept, beside the server's own", () => {
  expect(load({}, withBanner)).toMatchObject({
    banner: { text: 'Welcome', maxAgeSeconds: 60 },
    mfa: { enabled: true },
  });
  expect(load({ banner: { text: 'Hi' } }, withBanner)).toMatchObject({ banner: { text: 'Hi', maxAgeSeconds: 60 } });
  expect(Object.isFrozen(load({}, withBanner).banner as object)).toBe(true);
});

test.each<[string, Record<string, unknown>, readonly Feature[], Array<{ path: string; message: string }>]>([
  [
    'a wrong value',
    { banner: { maxAgeSeconds: -1 } },
    withBanner,
    [{ path: 'banner.maxAgeSeconds', message: 'must be >= 0' }],
  ],
  [
    'an unknown member',
    { banner: { colour: 'red' } },
    withBanner,
    [{ path: 'banner.colour', message: 'unknown option' }],
  ],
  [
    'beside a core problem',
    { banner: { text: '' }, ttl: { accessToken: 0 } },
    withBanner,
    [
      { path: 'ttl.accessToken', message: 'must be >= 1' },
      { path: 'banner.text', message: 'must NOT have fewer than 1 characters' },
    ],
  ],
  [
    'without the feature, its key is unknown',
    { banner: {} },
    defaultFeatures,
    [{ path: 'banner', message: 'unknown option' }],
  ],
])('%s: ERR_CONFIG_INVALID at the dotted path', (_name, input, features, problems) => {
  const err = errorOf(() => load(input, features));
  expect(err).toBeInstanceOf(ConfigError);
  expect([err.code, err.problems]).toEqual(['ERR_CONFIG_INVALID', problems]);
});

test.each<[string, readonly Feature[], RegExp]>([
  [
    'a key of the core',
    [...defaultFeatures, { ...banner, options: { issuer: Type.String() } }],
    /feature "banner" declares the option "issuer", which the server declares already/,
  ],
  [
    'a key of a feature of the server',
    [...defaultFeatures, { ...banner, options: { mfa: Type.Object({}) } }],
    /feature "banner" declares the option "mfa", which the server declares already/,
  ],
  [
    'a key of another host feature',
    [...withBanner, { ...banner, id: 'banner2', options: { banner: Type.Object({}) } }],
    /feature "banner2" declares the option "banner", which feature "banner" declares already/,
  ],
])('an option declared twice (%s) is refused at features', (_name, features, message) => {
  const err = errorOf(() => load({}, features));
  expect([err.code, err.path, err.message]).toEqual(['ERR_CONFIG_INVALID', 'features', expect.stringMatching(message)]);
});

test("a feature's check and production problems run in loadConfig, only while it is on", () => {
  const strict: Feature = {
    ...banner,
    enabled: (config) => (config as unknown as { banner: { text: string } }).banner.text !== 'off',
    check: (config) => {
      if ((config as unknown as { banner: { text: string } }).banner.text === 'bad')
        throw new ConfigError('banner.text', 'is bad');
    },
    insecure: () => [{ path: 'banner', message: 'not in production' }],
  };
  expect(errorOf(() => load({ banner: { text: 'bad' } }, [...defaultFeatures, strict]))).toMatchObject({
    code: 'ERR_CONFIG_INVALID',
    path: 'banner.text',
  });
  expect(load({ banner: { text: 'off' } }, [...defaultFeatures, strict]).banner).toEqual({
    text: 'off',
    maxAgeSeconds: 60,
  });
  const production = errorOf(() =>
    load({ banner: { text: 'x' }, selfService: { signup: true } }, [...defaultFeatures, strict], {
      NODE_ENV: 'production',
    }),
  );
  expect(production.code).toBe('ERR_CONFIG_INSECURE');
  // After the core's and the server's features' (mfa, self-service) problems, in one error.
  expect(production.problems.map((p) => p.path)).toEqual([
    'keys.signing',
    'keys.cookies',
    'storage.type',
    'issuer',
    'mfa.encryptionKey',
    'selfService.signup',
    'banner',
  ]);
});

test('the documented example serves its option over HTTP, defaults filled in', async () => {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const server = await createServer({ ...documented, ...demoFixtures(), issuer: origin }, withBanner);
  try {
    await server.listen(port, '127.0.0.1');
    const res = await rawRequest(origin, '/banner');
    expect([res.status, JSON.parse(res.text), res.headers['cache-control']]).toEqual([
      200,
      { text: 'Maintenance on Sunday' },
      'public, max-age=60',
    ]);
  } finally {
    await server.close();
  }
});

test("createServer refuses a host feature's wrong option before anything opens", async () => {
  await expect(
    createServer({ ...documented, banner: { maxAgeSeconds: 'soon' } } as never, withBanner),
  ).rejects.toMatchObject({ code: 'ERR_CONFIG_INVALID', path: 'banner.maxAgeSeconds' });
});

test("a feature's derived defaults (`defaults`): computed from other options after validation, a given value kept", () => {
  const withHelp = [...defaultFeatures, help];
  expect(load({}, withHelp)).toMatchObject({ help: { url: 'http://localhost:4390/help' } });
  expect(load({ help: { url: 'https://example.com/faq' } }, withHelp)).toMatchObject({
    help: { url: 'https://example.com/faq' },
  });
  // Before `enabled` and the checks, which see the completed values.
  const seen: unknown[] = [];
  const watcher: Feature = {
    id: 'watcher',
    enabled: (config) => (seen.push((config as { help?: unknown }).help), false),
    setup: () => ({}),
  };
  load({}, [...withHelp, watcher]);
  expect(seen).toEqual([{ url: 'http://localhost:4390/help' }]);
});

test("the server's own derived defaults apply whatever the list: their options are in the schema", () => {
  const config = load(
    {
      graphql: { path: '/graphql', typeDefs: 'type Query { a: Int }' },
      registration: { initialAccessToken: 'a'.repeat(32) },
    },
    [defaultFeatures.find((feature) => feature.id === 'health')!],
    { NODE_ENV: 'development' },
  );
  expect(config.graphql?.resource).toBe('http://localhost:4390/graphql');
  expect(config.registration.enabled).toBe(true);
  expect(config.selfService.signup).toBe(true);
  expect(typeof config.passkeys.enabled).toBe('boolean');
  expect(config.passkeys.secondFactor).toBe(config.mfa.enabled);
});

/** The dotted paths of the schema's `derived` options (object members only: no derived option is in an array). */
function derivedPaths(node: { properties?: Record<string, unknown> }, path = ''): string[] {
  return Object.entries(node.properties ?? {}).flatMap(([key, child]) => {
    const at = path ? `${path}.${key}` : key;
    const kind = (child as { [DefaultKind]?: string })[DefaultKind];
    return [...(kind === 'derived' ? [at] : []), ...derivedPaths(child as typeof node, at)];
  });
}

test("every derived option of the schema is set once loaded: some feature's `defaults` completes it", () => {
  const paths = derivedPaths(ConfigSchema);
  expect(paths.sort()).toEqual([
    'graphql.resource',
    'passkeys.enabled',
    'passkeys.secondFactor',
    'registration.enabled',
    'selfService.signup',
  ]);
  const config = load({ graphql: { path: '/graphql', typeDefs: 'type Query { a: Int }' } }, defaultFeatures);
  const at = (path: string) => path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], config);
  for (const path of paths) expect([path, typeof at(path)]).toEqual([path, expect.stringMatching(/boolean|string/)]);
});
