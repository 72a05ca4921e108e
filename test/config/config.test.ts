import { errorOf } from '../helpers/errors.js';
import { loadConfig, ConfigError, createServer, type PortcullisConfig } from '../../lib/index.js';
import { standaloneSettings } from '../../examples/standalone/config.js';
import { settingsFromEnvironment } from '../../lib/cli/environment.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';
import { generateCookieKey, generateSigningKeys } from '../../lib/index.js';
import { testSigningKeys } from '../helpers/run-resources.js';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const base: PortcullisConfig = { issuer: 'http://localhost:3000' };

describe('configuration is validated when the server is built', () => {
  test.each<[string, Record<string, unknown>, string, RegExp]>([
    ['unknown top-level key', { ...base, issure: 'x' }, 'issure', /unknown option/],
    ['unknown nested key', { ...base, ttl: { accessTokn: 5 } }, 'ttl.accessTokn', /unknown option/],
    ['ttl not an integer', { ...base, ttl: { accessToken: 1.5 } }, 'ttl.accessToken', /integer/],
    ['ttl as a string', { ...base, ttl: { accessToken: '3600' } }, 'ttl.accessToken', /integer/],
    ['negative ttl', { ...base, ttl: { refreshToken: -1 } }, 'ttl.refreshToken', />= 1/],
    ['code ttl over 10 minutes', { ...base, ttl: { authorizationCode: 3600 } }, 'ttl.authorizationCode', /<= 600/],
    ['missing issuer', {}, 'issuer', /required/],
    [
      'issuer with a query',
      { issuer: 'https://id.example/?a=b' },
      'issuer',
      /^Invalid configuration at "issuer": must have no query \("\?"\) or fragment \("#"\) \(OpenID Connect Discovery 1\.0 §3, RFC 8414 §2\)$/,
    ],
    [
      'issuer with a fragment',
      { issuer: 'https://id.example#top' },
      'issuer',
      /: must have no query \("\?"\) or fragment \("#"\)/,
    ],
    [
      'issuer not http(s)',
      { issuer: 'ftp://id.example' },
      'issuer',
      /: must start with https:\/\/ \(or http:\/\/ in development\)$/,
    ],
    [
      'issuer without a scheme',
      { issuer: 'id.example' },
      'issuer',
      /must start with https:\/\/.*; must be an absolute URL such as https:\/\/id\.example\.com$/,
    ],
    [
      'issuer with a port past 65535 (a TypeError "Invalid URL" before)',
      { issuer: 'https://id.example:99999' },
      'issuer',
      /is not a URL Node can parse \(check the host and that the port is 1–65535\)/,
    ],
    [
      'client without redirect_uris',
      { ...base, clients: [{ client_id: 'a', client_secret: 'aaaaaaaaaaaaaaaa' }] },
      'clients[0].redirect_uris',
      /required/,
    ],
    [
      'bad auth method',
      {
        ...base,
        clients: [
          {
            client_id: 'a',
            client_secret: 'aaaaaaaaaaaaaaaa',
            redirect_uris: ['https://a.example/cb'],
            token_endpoint_auth_method: 'tls_client_auth',
          },
        ],
      },
      'clients[0].token_endpoint_auth_method',
      /one of/,
    ],
    [
      'confidential client without secret',
      { ...base, clients: [{ client_id: 'a', redirect_uris: ['https://a.example/cb'] }] },
      'clients[0].client_secret',
      /required for a confidential client/,
    ],
    [
      'public client with a secret',
      {
        ...base,
        clients: [
          {
            client_id: 'a',
            client_secret: 'aaaaaaaaaaaaaaaa',
            token_endpoint_auth_method: 'none',
            redirect_uris: ['https://a.example/cb'],
          },
        ],
      },
      'clients[0].client_secret',
      /public client/,
    ],
    [
      'duplicate client ids',
      {
        ...base,
        clients: [
          { client_id: 'a', client_secret: 'aaaaaaaaaaaaaaaa', redirect_uris: ['https://a.example/cb'] },
          { client_id: 'a', client_secret: 'aaaaaaaaaaaaaaaa', redirect_uris: ['https://a.example/cb'] },
        ],
      },
      'clients[1]',
      /duplicate/,
    ],
    [
      'account with a bad e-mail',
      { ...base, accounts: [{ email: 'not-an-email', password: 'long-enough-password' }] },
      'accounts[0].email',
      /format "email"/,
    ],
    [
      'account with an invalid IDN domain',
      { ...base, accounts: [{ email: 'admin@xn--zz.example', password: 'long-enough-password' }] },
      'accounts[0].email',
      /not an accepted e-mail address/,
    ],
    [
      'two accounts with one address in two cases',
      {
        ...base,
        accounts: [
          { email: 'ann@example.com', password: 'long-enough-password' },
          { email: 'Ann@EXAMPLE.com', password: 'long-enough-password' },
        ],
      },
      'accounts[1]',
      /duplicate "ann@example.com"/,
    ],
    [
      'account store missing a method',
      { ...base, accountStore: { findById() {}, findByEmail() {} } },
      'accountStore.verifyPassword',
      /must be a function/,
    ],
    [
      'short initial access token',
      { ...base, registration: { initialAccessToken: 'short' } },
      'registration.initialAccessToken',
      /fewer than 16/,
    ],
    [
      'graphql path not absolute',
      { ...base, graphql: { path: 'graphql', typeDefs: 'type Query { a: Int }' } },
      'graphql.path',
      /pattern/,
    ],
    ['storage type unknown', { ...base, storage: { type: 'postgres' } }, 'storage.type', /one of/],
  ])('%s is refused naming its option path', (_name, input, path, message) => {
    const err = errorOf(() => loadConfig(input as unknown as PortcullisConfig, {}));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.code).toBe('ERR_CONFIG_INVALID');
    expect(err.path).toBe(path);
    expect(err.message).toMatch(message);
    expect(err.message).toContain(`"${path}"`);
  });

  test('defaults are applied, the result is frozen and the input is not mutated', () => {
    const input = { ...base, ttl: { accessToken: 600 } };
    const snapshot = JSON.stringify(input);
    const config = loadConfig(input, {});
    expect(config.ttl).toEqual({
      authorizationCode: 60,
      accessToken: 600,
      idToken: 3600,
      refreshToken: 1209600,
      interaction: 3600,
      session: 1209600,
      grant: 1209600,
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.ttl)).toBe(true);
    expect(JSON.stringify(input)).toBe(snapshot);
  });

  test('an invalid redirect URI of a configured client stops createServer', async () => {
    await expect(
      createServer({
        ...base,
        clients: [{ client_id: 'a', client_secret: 'aaaaaaaaaaaaaaaa', redirect_uris: ['https://a.example/cb#frag'] }],
      }),
    ).rejects.toMatchObject({ code: 'ERR_CONFIG_INVALID', path: 'clients[0].redirect_uris' });
  });

  test('a graphql path that collides with a provider route is refused', async () => {
    await expect(
      createServer({ ...base, graphql: { path: '/token', typeDefs: 'type Query { a: Int }' } }),
    ).rejects.toMatchObject({ code: 'ERR_CONFIG_INVALID', path: 'graphql.path' });
  });
});

describe('production guards (NODE_ENV=production)', () => {
  const prod = { NODE_ENV: 'production' };
  const secure = async () => ({
    issuer: 'https://id.example',
    storage: { type: 'memory' as const },
    keys: { signing: await testSigningKeys(), cookies: [generateCookieKey()] },
    mfa: { encryptionKey: generateCookieKey() },
  });

  test('without signing keys', async () => {
    const err = errorOf(() =>
      loadConfig({ issuer: 'https://id.example', keys: { cookies: [generateCookieKey()] } }, prod),
    );
    expect(err.code).toBe('ERR_CONFIG_INSECURE');
    expect(err.path).toBe('keys.signing');
    expect(err.message).toMatch(/PORTCULLIS_SIGNING_KEYS/);
  });

  test('without cookie keys', async () => {
    const signing = await generateSigningKeys(['ES256']);
    const err = errorOf(() => loadConfig({ issuer: 'https://id.example', keys: { signing } }, prod));
    expect(err.code).toBe('ERR_CONFIG_INSECURE');
    expect(err.path).toBe('keys.cookies');
  });

  test('with the demo fixtures', async () => {
    const config = { ...(await secure()), ...demoFixtures() };
    const refused = errorOf(() => loadConfig(config, prod));
    expect(refused.code).toBe('ERR_CONFIG_INSECURE');
    expect(refused.message).toMatch(/demo fixtures/);
  });

  test('a demo secret copied into a real config is refused too', async () => {
    const config = {
      ...(await secure()),
      clients: [{ client_id: 'x', client_secret: 'demo-web-secret', redirect_uris: ['https://x.example/cb'] }],
    };
    const refused = errorOf(() => loadConfig(config, prod));
    expect(refused.path).toBe('clients[0].client_secret');
  });

  test('with an http issuer', async () => {
    const config = { ...(await secure()), issuer: 'http://id.example' };
    expect(errorOf(() => loadConfig(config, prod)).path).toBe('issuer');
  });

  test('an unset storage type is refused and the message names both choices', async () => {
    const { storage: _omit, ...config } = await secure();
    const refused = errorOf(() => loadConfig(config, prod));
    expect(refused.path).toBe('storage.type');
    expect(refused.message).toMatch(/"redis".*"memory"/);
  });

  test('redis storage needs exactly one of url or client', () => {
    expect(errorOf(() => loadConfig({ ...base, storage: { type: 'redis' } }, {})).path).toBe('storage');
    expect(errorOf(() => loadConfig({ ...base, storage: { type: 'redis', url: 'http://x' } }, {})).path).toBe(
      'storage.url',
    );
    expect(errorOf(() => loadConfig({ ...base, storage: { url: 'redis://127.0.0.1:6379' } }, {})).path).toBe(
      'storage.type',
    );
  });

  test('every production refusal is reported at once, each with its path and the variable the standalone server reads', () => {
    const refused = errorOf(() => loadConfig({ issuer: 'http://id.example', selfService: { signup: true } }, prod));
    expect(refused.code).toBe('ERR_CONFIG_INSECURE');
    expect(refused.problems.map((p) => p.path)).toEqual([
      'keys.signing',
      'keys.cookies',
      'storage.type',
      'issuer',
      'mfa.encryptionKey',
      'selfService.signup',
    ]);
    for (const variable of [
      'PORTCULLIS_SIGNING_KEYS',
      'PORTCULLIS_COOKIE_KEYS',
      'PORTCULLIS_STORAGE',
      'PORTCULLIS_ISSUER',
      'PORTCULLIS_MFA_KEY',
      'PORTCULLIS_SMTP_URL',
    ]) {
      expect(refused.message).toContain(variable);
    }
  });

  test('a complete production config loads', async () => {
    expect(loadConfig(await secure(), prod).production).toBe(true);
  });

  const MFA_ROWS: Array<[string, Record<string, unknown>, Record<string, string>, boolean]> = [
    ['production, MFA on (the default), no key: refused', {}, prod, false],
    ['production, MFA on, a key: loads', { encryptionKey: 'k'.repeat(32) }, prod, true],
    ['production, MFA off, no key: loads', { enabled: false }, prod, true],
    ['development, MFA on, no key: loads (a start-up warning instead)', {}, {}, true],
  ];
  test.each(MFA_ROWS)('mfa.encryptionKey: %s', async (_name, mfa, env, loads) => {
    const config = { ...(await secure()), mfa };
    if (loads)
      return expect(loadConfig(config, env).mfa.encryptionKey).toBe((mfa as { encryptionKey?: string }).encryptionKey);
    const refused = errorOf(() => loadConfig(config, env));
    expect([refused.code, refused.path]).toEqual(['ERR_CONFIG_INSECURE', 'mfa.encryptionKey']);
    expect(refused.message).toMatch(
      /mfa\.encryptionKey.*PORTCULLIS_MFA_KEY.*npx portcullis cookie-key.*mfa\.enabled: false/,
    );
  });

  test('PORTCULLIS_MFA_KEY is mfa.encryptionKey for the standalone server and portcullis start, over the file', () => {
    const key = generateCookieKey();
    const settings = settingsFromEnvironment(
      { PORTCULLIS_MFA_KEY: key },
      { file: { mfa: { enabled: true, encryptionKey: 'f'.repeat(32) } } },
    );
    expect(settings.config.mfa).toEqual({ enabled: true, encryptionKey: key });
    expect(settingsFromEnvironment({}).config.mfa).toBeUndefined();
  });

  test('PORTCULLIS_PROXY_HOPS is proxyHops: a whole number from 1, else a configuration error naming it', () => {
    expect(settingsFromEnvironment({ PORTCULLIS_PROXY: 'true', PORTCULLIS_PROXY_HOPS: '2' }).config).toMatchObject({
      proxy: true,
      proxyHops: 2,
    });
    expect(settingsFromEnvironment({}).config.proxyHops).toBeUndefined();
    for (const bad of ['0', '-1', '1.5', 'two']) {
      expect(errorOf(() => settingsFromEnvironment({ PORTCULLIS_PROXY_HOPS: bad }))).toMatchObject({
        path: 'PORTCULLIS_PROXY_HOPS',
      });
    }
    expect(errorOf(() => loadConfig({ issuer: 'http://localhost:3000', proxyHops: 0 }))).toMatchObject({
      code: 'ERR_CONFIG_INVALID',
      path: 'proxyHops',
    });
  });
});

describe('PORT and allowedHosts are read as written, or refused by name', () => {
  test.each([
    ['0x10', 'hexadecimal, which Number() reads as 16'],
    ['1e3', 'an exponent, read as 1000'],
    [' 80', 'a leading space'],
    ['80 ', 'a trailing space'],
    ['8080.0', 'a decimal point'],
    ['+80', 'a sign'],
    ['65536', 'past the last port'],
  ])('PORT=%j (%s) is a ConfigError at PORT', (value) => {
    expect(errorOf(() => settingsFromEnvironment({ PORT: value }))).toMatchObject({
      code: 'ERR_CONFIG_INVALID',
      path: 'PORT',
      message: expect.stringContaining('must be a TCP port number'),
    });
  });

  test('PORT in decimal digits is the port', () => {
    expect(settingsFromEnvironment({ PORT: '4100' }).port).toBe(4100);
    expect(settingsFromEnvironment({ PORT: '0' }).port).toBe(0);
  });

  test.each([
    ['https://alias.example', 'a URL'],
    ['alias.example/auth', 'a path'],
    ['*.example.com', 'a wildcard'],
    ['user@alias.example', 'userinfo'],
    ['alias.example:port', 'a port that is not a number'],
    ['alias example', 'whitespace'],
  ])('allowedHosts entry %j (%s) is a ConfigError naming the entry, not a host that never matches', (host) => {
    const err = errorOf(() => loadConfig({ issuer: 'http://localhost:3000', allowedHosts: ['ok.example', host] }, {}));
    expect(err).toMatchObject({
      code: 'ERR_CONFIG_INVALID',
      path: 'allowedHosts[1]',
      message: expect.stringContaining('no scheme, path or wildcard'),
    });
  });

  test('allowedHosts entries as Host headers carry them are accepted', () => {
    const config = loadConfig(
      {
        issuer: 'http://localhost:3000',
        allowedHosts: ['alias.example', 'internal:8080', '10.0.0.5', '[::1]:3000', 'trailing.dot.'],
      },
      {},
    );
    expect(config.allowedHosts).toHaveLength(5);
  });
});

describe('configured clients meet the registration policy (as POST /registration would refuse them)', () => {
  const client = (over: Record<string, unknown>) => ({
    client_id: 'c',
    client_secret: 'a-long-enough-client-secret-0123456789',
    redirect_uris: ['https://rp.example/cb'],
    ...over,
  });
  const production = async () => ({
    issuer: 'https://id.example',
    storage: { type: 'memory' as const },
    keys: { signing: await testSigningKeys(), cookies: [generateCookieKey()] },
    mfa: { encryptionKey: generateCookieKey() },
  });
  const ROWS: Array<[string, Record<string, unknown>, string, RegExp, boolean]> = [
    [
      'an http redirect_uri on a public host',
      { redirect_uris: ['http://rp.example/cb'] },
      'clients[0].redirect_uris',
      /must use https/,
      true,
    ],
    [
      'a wildcard redirect_uri',
      { redirect_uris: ['https://*.example.com/cb'] },
      'clients[0].redirect_uris',
      /wildcard/,
      true,
    ],
    [
      'a redirect_uri with a fragment',
      { redirect_uris: ['https://rp.example/cb#x'] },
      'clients[0].redirect_uris',
      /fragment/,
      true,
    ],
    [
      'a redirect_uri with userinfo',
      { redirect_uris: ['https://user@rp.example/cb'] },
      'clients[0].redirect_uris',
      /userinfo/,
      true,
    ],
    [
      'a javascript: redirect_uri',
      { redirect_uris: ['javascript:alert(1)//'] },
      'clients[0].redirect_uris',
      /javascript|https/,
      true,
    ],
    [
      'an http loopback redirect_uri for a web client (production only)',
      { redirect_uris: ['http://127.0.0.1:8080/cb'] },
      'clients[0].redirect_uris',
      /native clients in production/,
      false,
    ],
    [
      'a redirect_uri with the default port :443, which the browser is sent to without',
      { redirect_uris: ['https://rp.example:443/cb'] },
      'clients[0].redirect_uris',
      /writes the port ":443", which a URL parser drops .*; write https:\/\/rp\.example\/cb$/,
      true,
    ],
    [
      'a post_logout_redirect_uri with the default port :443',
      { post_logout_redirect_uris: ['https://rp.example:443/bye'] },
      'clients[0].post_logout_redirect_uris',
      /writes the port ":443", which a URL parser drops/,
      true,
    ],
    [
      'an http post_logout_redirect_uri on a public host',
      { post_logout_redirect_uris: ['http://rp.example/bye'] },
      'clients[0].post_logout_redirect_uris',
      /https/,
      true,
    ],
    [
      'implicit in grant_types with no response type that uses it (registration refuses it, never drops it)',
      { grant_types: ['authorization_code', 'implicit'] },
      'clients[0].grant_types',
      /implicit/,
      true,
    ],
    [
      'a code response type without the authorization_code grant',
      { grant_types: ['implicit'], response_types: ['code', 'id_token'] },
      'clients[0].grant_types',
      /authorization_code/,
      true,
    ],
  ];
  test.each(ROWS)('%s is refused at start-up with the dotted path', async (_name, over, path, message, everywhere) => {
    const secure = await production();
    const prodErr = errorOf(() =>
      loadConfig({ ...secure, clients: [client(over)] } as PortcullisConfig, { NODE_ENV: 'production' }),
    );
    expect(prodErr.path).toBe(path);
    expect(prodErr.message).toMatch(message);
    if (everywhere) {
      const devErr = errorOf(() => loadConfig({ ...base, clients: [client(over)] } as PortcullisConfig, {}));
      expect(devErr.path).toBe(path);
    } else {
      expect(loadConfig({ ...base, clients: [client(over)] } as PortcullisConfig, {}).clients).toHaveLength(1);
    }
  });

  test('createServer refuses such a client in production too (it starts today)', async () => {
    const env = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      await expect(
        createServer({
          ...(await production()),
          clients: [client({ redirect_uris: ['https://*.example.com/cb', 'http://rp.example/cb'] })],
        }),
      ).rejects.toMatchObject({ path: 'clients[0].redirect_uris' });
    } finally {
      process.env.NODE_ENV = env;
    }
  });

  test('several bad clients are all listed in one error', async () => {
    const refused = errorOf(() =>
      loadConfig(
        {
          ...base,
          clients: [
            client({ redirect_uris: ['http://a.example/cb'] }),
            { ...client({ post_logout_redirect_uris: ['https://*.a.example/'] }), client_id: 'd' },
          ],
        } as PortcullisConfig,
        {},
      ),
    );
    expect(refused.problems.map((p) => p.path)).toEqual([
      'clients[0].redirect_uris',
      'clients[1].post_logout_redirect_uris',
    ]);
  });
});

describe('standalone server settings from the environment', () => {
  test('defaults: port 3000, host localhost, issuer http://localhost:3000, demo fixtures in development', () => {
    const s = standaloneSettings({});
    expect(s).toMatchObject({ port: 3000, host: 'localhost', demo: true });
    expect(s.config.issuer).toBe('http://localhost:3000');
    expect(s.config.clients?.[0]?.client_id).toBe('demo-web');
  });

  test('PORT, HOST and PORTCULLIS_ISSUER are honoured; production has no fixtures', () => {
    const s = standaloneSettings({
      PORT: '4100',
      HOST: '0.0.0.0',
      PORTCULLIS_ISSUER: 'https://id.example',
      NODE_ENV: 'production',
    });
    expect(s).toMatchObject({ port: 4100, host: '0.0.0.0', demo: false });
    expect(s.config.issuer).toBe('https://id.example');
    expect(s.config.clients).toBeUndefined();
  });

  test('a bad PORT is a clear error', () => {
    expect(errorOf(() => standaloneSettings({ PORT: 'eighty' })).path).toBe('PORT');
  });

  test('an unreadable PORTCULLIS_CONFIG is a clear error', () => {
    const err = errorOf(() => standaloneSettings({ PORTCULLIS_CONFIG: '/nonexistent/portcullis.json' }));
    expect(err.path).toBe('PORTCULLIS_CONFIG');
  });
});

describe('a configuration merges deeply over the defaults; arrays replace', () => {
  test('a partial section keeps the defaults of its other members, at every depth', () => {
    const config = loadConfig(
      {
        ...base,
        graphql: {
          typeDefs: 'type Query { a: Int }',
          limits: { maxDepth: 3 },
          introspection: { requiredScope: 'schema:read' },
        },
        accountLimits: { loginPerIp: { points: 5, durationSeconds: 60 } },
      },
      {},
    );
    expect(config.graphql).toMatchObject({
      path: '/graphql',
      resource: 'http://localhost:3000/graphql',
      corsOrigins: [],
      maxBatchSize: 0,
      privateFieldCheck: 'warn',
      transports: { get: false, form: false },
      introspection: { enabled: false, requiredScope: 'schema:read' },
      rateLimit: { points: 600, durationSeconds: 60 },
    });
    expect(config.graphql!.limits).toEqual({
      maxQueryBytes: 16384,
      maxTokens: 1000,
      maxDepth: 3,
      maxAliases: 15,
      maxRootFields: 15,
      maxUniqueFields: 50,
      maxDirectives: 50,
      maxRecursiveSelections: 1000,
      maxCost: 5000,
      defaultFieldCost: 1,
      fieldCosts: {},
      defaultListSize: 10,
    });
    expect(config.accountLimits).toEqual({
      loginPerAccount: { points: 10, durationSeconds: 900 },
      loginPerIp: { points: 5, durationSeconds: 60 },
      mailPerAddress: { points: 5, durationSeconds: 3600 },
      mailPerIp: { points: 30, durationSeconds: 3600 },
      secondFactorPerAccount: { points: 5, durationSeconds: 900 },
      secondFactorPerIp: { points: 50, durationSeconds: 900 },
    });
  });

  test('defaults derived from the environment or other options', async () => {
    expect(loadConfig(base, {}).selfService.signup).toBe(true);
    const secure = {
      issuer: 'https://id.example',
      storage: { type: 'memory' as const },
      keys: { signing: await testSigningKeys(), cookies: [generateCookieKey()] },
      mfa: { encryptionKey: generateCookieKey() },
    };
    expect(loadConfig(secure, { NODE_ENV: 'production' }).selfService.signup).toBe(false);
    expect(
      loadConfig({ ...base, registration: { initialAccessToken: 'a-long-initial-access-token' } }, {}).registration
        .enabled,
    ).toBe(true);
    expect(loadConfig(base, { PORTCULLIS_DEV_MAILBOX: '/tmp/box' }).mail.mailbox).toBe('/tmp/box');
    expect(
      loadConfig({ ...base, mail: { mailbox: '/srv/box' } }, { PORTCULLIS_DEV_MAILBOX: '/tmp/box' }).mail.mailbox,
    ).toBe('/srv/box');
    expect(loadConfig(base, {}).mail).toEqual({ from: 'Portcullis <no-reply@localhost>', mailbox: '.mailbox' });
    expect(loadConfig(base, {}).storage).toEqual({
      type: 'memory',
      maxEntries: 0,
      keyPrefix: 'portcullis:',
      explicitType: false,
    });
  });

  test('an error in a nested option still names its path after defaults are filled in', () => {
    const err = errorOf(() =>
      loadConfig({ ...base, graphql: { typeDefs: 'type Query { a: Int }', limits: { maxDepth: 0 } } }, {}),
    );
    expect(err).toMatchObject({ code: 'ERR_CONFIG_INVALID', path: 'graphql.limits.maxDepth' });
    expect(
      errorOf(() =>
        loadConfig({ ...base, graphql: { typeDefs: 'type Query { a: Int }', privateFieldCheck: 'loud' as never } }, {}),
      ).message,
    ).toMatch(/must be one of "warn", "refuse", "off"/);
  });
});

describe('PORTCULLIS_CONFIG merges deeply over the standalone configuration', () => {
  const file = (content: unknown) => {
    const dir = mkdtempSync(join(tmpdir(), 'portcullis-config-'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify(content));
    return join(dir, 'config.json');
  };

  test('a file that sets only graphql.introspection keeps the demo schema, resolvers, CORS origins and fixtures', () => {
    const plain = standaloneSettings({});
    const s = standaloneSettings({ PORTCULLIS_CONFIG: file({ graphql: { introspection: { enabled: true } } }) });
    expect(s.config.graphql?.introspection).toEqual({ enabled: true });
    expect(s.config.graphql?.typeDefs).toBe(plain.config.graphql?.typeDefs);
    expect(Object.keys(s.config.graphql?.resolvers ?? {})).toEqual(Object.keys(plain.config.graphql?.resolvers ?? {}));
    expect(s.config.graphql?.corsOrigins).toEqual(['http://localhost:8080']);
    expect(s.config.clients).toEqual(plain.config.clients);
    expect(loadConfig(s.config, {}).graphql).toMatchObject({
      path: '/graphql',
      introspection: { enabled: true },
      limits: { maxDepth: 6 },
    });
  });

  test('a file adding a client: its clients array replaces the list, every other setting stays', () => {
    const client = {
      client_id: 'my-app',
      client_secret: 'a-long-enough-client-secret',
      redirect_uris: ['https://app.example/cb'],
    };
    const production = { NODE_ENV: 'production', PORTCULLIS_ISSUER: 'https://id.example' };
    const s = standaloneSettings({
      ...production,
      PORTCULLIS_STORAGE: 'memory',
      PORTCULLIS_CONFIG: file({ clients: [client], ttl: { accessToken: 600 } }),
    });
    expect(s.config.clients).toEqual([client]);
    expect(s.config.storage).toEqual({ type: 'memory' });
    const resolved = loadConfig(s.config, {});
    expect(resolved.clients.map((c) => c.client_id)).toEqual(['my-app']);
    expect(resolved.ttl).toMatchObject({ accessToken: 600, refreshToken: 1209600 });

    const dev = standaloneSettings({ PORTCULLIS_CONFIG: file({ clients: [...demoFixtures().clients!, client] }) });
    expect(dev.config.clients!.map((c) => c.client_id)).toEqual(['demo-web', 'demo-spa', 'my-app']);
    expect(dev.config.accounts).toEqual(demoFixtures().accounts);
  });
});

test('the docs example of a PORTCULLIS_CONFIG file (a client added, introspection on) works as documented', () => {
  const readme = readFileSync(new URL('../../docs/guides/configuration.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('**How a configuration meets the defaults.**'));
  const example = /```json\n([\s\S]*?)\n```/.exec(section)![1]!;
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-readme-'));
  writeFileSync(join(dir, 'my-config.json'), example);
  const s = standaloneSettings({ PORTCULLIS_CONFIG: join(dir, 'my-config.json') });
  const config = loadConfig(s.config, {});
  expect(config.clients.map((c) => c.client_id)).toEqual(['demo-web', 'my-app']);
  expect(config.graphql).toMatchObject({ introspection: { enabled: true }, corsOrigins: ['http://localhost:8080'] });
  expect(config.graphql!.typeDefs).toBe(standaloneSettings({}).config.graphql!.typeDefs);
  expect(config.accounts.map((a) => a.email)).toEqual(demoFixtures().accounts!.map((a) => a.email));
});

describe('issuer with a path (mounting under a prefix)', () => {
  const base = { clients: [], accounts: [] };
  test.each([
    ['https://id.example.com/auth/', 'must not end with "/"'],
    ['https://id.example.com/a/../auth', 'not in normal form'],
    ['https://id.example.com/a//b', 'may only hold segments'],
    ['https://id.example.com/a%20b', 'may only hold segments'],
    ['https://id.example.com/.well-known/x', 'must not start with /.well-known'],
  ])('%s is refused: %s', (issuer, message) => {
    const err = errorOf(() => loadConfig({ ...base, issuer }));
    expect(err.problems[0]).toMatchObject({ path: 'issuer' });
    expect(err.message).toContain(message);
  });

  test('https://id.example.com/auth and a root issuer without "/" are accepted as written', () => {
    for (const issuer of [
      'https://id.example.com/auth',
      'https://id.example.com/a/b-c',
      'https://id.example.com',
      'http://localhost:4351',
    ]) {
      expect(loadConfig({ ...base, issuer }).issuer).toBe(issuer);
    }
  });

  const ROOT_SLASH =
    'must not end with "/" (every token\'s iss carries it as written, and relying parties compare it exactly): write it as';
  test.each([
    ['https://id.example.com/', `${ROOT_SLASH} https://id.example.com`],
    ['http://localhost:4351/', `${ROOT_SLASH} http://localhost:4351`],
    ['https://id.example.com:8443/', `${ROOT_SLASH} https://id.example.com:8443`],
    [
      'http://localhost:4351/auth/',
      'a path issuer must not end with "/" (clients append "/.well-known/…" to it): write it as http://localhost:4351/auth',
    ],
  ])('a trailing "/" is refused, on a root issuer as on a path issuer: %s', (issuer, message) => {
    const err = errorOf(() => loadConfig({ ...base, issuer }, {}));
    expect(err).toMatchObject({
      code: 'ERR_CONFIG_INVALID',
      path: 'issuer',
      message: `Invalid configuration at "issuer": ${message}`,
    });
  });

  test('PORTCULLIS_ISSUER with a trailing "/" is refused the same way by the standalone server and portcullis start', async () => {
    const settings = standaloneSettings({ PORTCULLIS_ISSUER: 'http://localhost:4351/' });
    expect(errorOf(() => loadConfig(settings.config, {}))).toMatchObject({
      path: 'issuer',
      message: `Invalid configuration at "issuer": ${ROOT_SLASH} http://localhost:4351`,
    });
    const fromCli = settingsFromEnvironment({ PORTCULLIS_ISSUER: 'https://id.example.com/' });
    await expect(createServer(fromCli.config)).rejects.toMatchObject({
      path: 'issuer',
      message: `Invalid configuration at "issuer": ${ROOT_SLASH} https://id.example.com`,
    });
  });

  test("graphql.resource defaults to the issuer's origin + graphql.path (graphql.path is absolute on the host)", () => {
    const config = loadConfig({
      ...base,
      issuer: 'https://id.example.com/auth',
      graphql: { path: '/api/graphql', typeDefs: 'type Query { a: Int }' },
    });
    expect(config.graphql?.resource).toBe('https://id.example.com/api/graphql');
  });
});

test('graphql.path under the issuer path must not shadow an authorization server route; outside it, anything goes', async () => {
  const graphqlAt = (path: string) => ({
    ...base,
    issuer: 'http://localhost:3000/auth',
    graphql: { path, typeDefs: 'type Query { a: Int }' },
  });
  await expect(createServer(graphqlAt('/auth/token'))).rejects.toMatchObject({ problems: [{ path: 'graphql.path' }] });
  await expect(createServer(graphqlAt('/auth/interaction/x'))).rejects.toMatchObject({
    problems: [{ path: 'graphql.path' }],
  });
  const server = await createServer(graphqlAt('/token'));
  await server.close();
});
