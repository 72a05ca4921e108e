/**
 * `portcullis doctor`: configuration checks, a deployment behind a real TLS-terminating proxy (with and without
 * `proxy: true`), fake deployments with a skewed clock or endpoints on another origin, and Redis without
 * persistence. Most rows run the command in this process (`run` of lib/cli/run.ts, what the executable runs on its
 * arguments); the usage mistakes and the proxy rows run the built executable, dist/lib/cli/main.js, in a process.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer, generateCookieKey, generateSigningKeys, type PortcullisServer } from '../../lib/index.js';
import { run as runCommand } from '../../lib/cli/run.js';
import { freePort } from '../helpers/server.js';
import { suiteIf } from '../helpers/skip.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist/lib/cli/main.js');
const dir = mkdtempSync(join(tmpdir(), 'portcullis-doctor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ids: string[];
}
/**
 * Runs `portcullis doctor` with this process's environment and `env` on top, as a spawned CLI gets them: in this
 * process, or with `process: true` as the built executable in a node process of its own (asynchronously: the
 * servers under test live in this process). A process costs about 0.6 s of CPU to load the server's modules; it is
 * kept where the process itself is tested: the exit status the executable sets (0, 1 and 2 below) and
 * NODE_EXTRA_CA_CERTS, which Node reads at start-up.
 */
async function doctor(args: string[], env: NodeJS.ProcessEnv = {}, opts: { process?: boolean } = {}): Promise<Run> {
  const environment = { ...process.env, NODE_OPTIONS: '', ...env };
  let stdout = '',
    stderr = '';
  let code: number | null;
  if (opts.process) {
    const child = spawn(process.execPath, [CLI, 'doctor', ...args], { env: environment });
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    [code] = (await once(child, 'exit')) as [number | null];
  } else {
    const io = {
      stdout: (t: string) => {
        stdout += t;
      },
      stderr: (t: string) => {
        stderr += t;
      },
    };
    code = await runCommand(['doctor', ...args], io, environment);
  }
  const ids = [...stdout.matchAll(/^(✗|!) \[([a-z-]+)\]/gm)].map(
    (m) => `${m[1] === '✗' ? 'problem' : 'warning'}:${m[2]}`,
  );
  return { code, stdout, stderr, ids };
}
function configFile(name: string, config: object): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(config));
  return file;
}
const CLIENT = {
  client_id: 'rp',
  client_secret: 'a-secret-that-is-long-enough-0123456789',
  redirect_uris: ['https://rp.example/cb'],
};

describe('configuration checks', () => {
  test.each([
    [
      'production without keys, storage or https',
      { issuer: 'http://id.example.com' },
      { NODE_ENV: 'production' },
      ['problem:config-invalid', 'problem:issuer-not-https', 'problem:keys-ephemeral', 'problem:cookie-keys-ephemeral'],
    ],
    [
      'production with introspection and GET queries on',
      {
        issuer: 'https://id.example.com',
        proxy: true,
        storage: { type: 'memory' },
        graphql: { typeDefs: 'type Query { a: Int }', introspection: { enabled: true }, transports: { get: true } },
      },
      { NODE_ENV: 'production' },
      [
        'problem:config-invalid',
        'problem:keys-ephemeral',
        'problem:cookie-keys-ephemeral',
        'warning:memory-storage',
        'problem:graphql-introspection',
        'problem:graphql-get',
      ],
    ],
    [
      'development, https issuer without proxy',
      { issuer: 'https://id.example.com' },
      { NODE_ENV: 'development' },
      ['warning:proxy-unset', 'warning:keys-ephemeral', 'warning:cookie-keys-ephemeral'],
    ],
    [
      'a key without kid',
      {
        issuer: 'http://localhost:3000',
        keys: { signing: { keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'd' }] }, cookies: ['c'.repeat(32)] },
      },
      { NODE_ENV: 'development' },
      ['problem:keys-without-kid'],
    ],
  ])('%s', async (_name, config, env, expected) => {
    const run = await doctor(['--config', configFile('c.json', config)], env);
    expect(
      run.ids
        .filter((id) => id !== 'problem:config-invalid' || expected.includes(id))
        .filter((v, i, a) => a.indexOf(v) === i),
    ).toEqual(expected);
    expect(run.code).toBe(expected.some((id) => id.startsWith('problem:')) ? 1 : 0);
    expect(run.stdout).toMatch(/fix: /);
  });

  // Issue 28: the README's production file leaves storage.url to REDIS_URL; in a shell without it the finding named
  // "storage" in the file. It names the variable; with the variable set, storage is no problem.
  test('the README\'s production configuration in a shell without REDIS_URL names REDIS_URL, not the file\'s "storage"', async () => {
    const guide = readFileSync(join(ROOT, 'docs/guides/production.md'), 'utf8');
    const checklist = guide.slice(guide.indexOf('## Production checklist'));
    const json = checklist.slice(
      checklist.indexOf('```json\n') + 8,
      checklist.indexOf('\n```', checklist.indexOf('```json\n')),
    );
    const config = {
      ...(JSON.parse(json) as object),
      keys: { signing: await generateSigningKeys(['ES256']), cookies: [generateCookieKey()] },
    };
    const file = configFile('readme-production.json', config);
    const env = { NODE_ENV: 'production', PORTCULLIS_MFA_KEY: generateCookieKey() };
    const without = await doctor(['--config', file], { ...env, REDIS_URL: '' });
    expect(without.ids).toEqual(['problem:config-invalid']);
    expect(without.stdout).toContain(
      '✗ [config-invalid] "storage": type "redis" needs storage.url, which portcullis start takes from REDIS_URL, and REDIS_URL is not set in this environment',
    );
    expect(without.stdout).toContain(
      "fix: run doctor with the deployment's environment (REDIS_URL=redis://host:6379 portcullis doctor --config …)",
    );
    expect(without.stdout).not.toContain('change "storage" in the configuration file');
    const withUrl = await doctor(['--config', file], { ...env, REDIS_URL: 'redis://127.0.0.1:1' });
    expect(withUrl.stdout).not.toContain('config-invalid');
  });

  // Each fault once, by the check that states it best, with the change to make (never "as the message says").
  test.each([
    [
      'production, a local issuer, no keys, no storage type, an http redirect URI',
      { issuer: 'http://localhost:4340', clients: [{ ...CLIENT, redirect_uris: ['http://localhost:8080/cb'] }] },
      [
        [
          'config-invalid',
          'storage.type',
          'storage: { type: "redis", url: "redis://…" } (REDIS_URL) to share state between instances and keep it across restarts, or storage.type: "memory" (PORTCULLIS_STORAGE=memory) for one instance that may lose it',
        ],
        [
          'config-invalid',
          'issuer',
          'issuer: "https://id.example.com", the public https URL clients use (PORTCULLIS_ISSUER); behind a TLS-terminating proxy also proxy: true (PORTCULLIS_PROXY=true)',
        ],
        [
          'config-invalid',
          'mfa.encryptionKey',
          'mfa.encryptionKey: <32+ random characters, not a cookie key> (PORTCULLIS_MFA_KEY; npx portcullis cookie-key makes one), the same on every instance and kept across restarts; or mfa.enabled: false',
        ],
        [
          'config-invalid',
          'clients[0].redirect_uris',
          'a configured client meets the policy of dynamic registration: docs/guides/client-registration.md lists what it refuses and what to send instead (in production, https redirect URIs for web clients)',
        ],
        [
          'keys-ephemeral',
          undefined,
          'npx portcullis keys --out /etc/portcullis/jwks.json, then keys.signing: "/etc/portcullis/jwks.json" (PORTCULLIS_SIGNING_KEYS)',
        ],
        [
          'cookie-keys-ephemeral',
          undefined,
          'keys.cookies: [<32+ random characters>] (PORTCULLIS_COOKIE_KEYS; npx portcullis cookie-key)',
        ],
      ],
    ],
    [
      'production, a public http issuer, the demo client, memory storage, sign-up without mail',
      {
        issuer: 'http://id.example.com',
        storage: { type: 'memory' },
        mfa: { enabled: false },
        selfService: { signup: true },
        keys: { cookies: ['c'.repeat(32)] },
        clients: [{ ...CLIENT, redirect_uris: ['https://rp.example/cb'], client_secret: 'demo-web-secret' }],
      },
      [
        [
          'config-invalid',
          'clients[0].client_secret',
          'replace the demo clients, accounts and initial access token with your own (their secrets from your secret store)',
        ],
        [
          'config-invalid',
          'selfService.signup',
          'mail.smtp: "smtp://user:pass@host:587" (PORTCULLIS_SMTP_URL) so that sign-up can verify addresses, or selfService.signup: false',
        ],
        [
          'issuer-not-https',
          undefined,
          'serve the issuer over https (terminate TLS here or at a proxy with proxy: true)',
        ],
        [
          'keys-ephemeral',
          undefined,
          'npx portcullis keys --out /etc/portcullis/jwks.json, then keys.signing: "/etc/portcullis/jwks.json" (PORTCULLIS_SIGNING_KEYS)',
        ],
      ],
    ],
  ])('%s: each fault once, each with its fix', async (_name, config, expected) => {
    const run = await doctor(['--config', configFile('once.json', config)], { NODE_ENV: 'production' });
    const problems = [...run.stdout.matchAll(/^✗ \[([a-z-]+)\] (?:"([^"]+)": )?.*\n {4}fix: (.*)$/gm)].map((m) => [
      m[1],
      m[2],
      m[3],
    ]);
    expect(problems).toEqual(expected);
    expect(run.stdout).not.toMatch(/as the message says/);
    expect(run.code).toBe(1);
  });

  test('a refusal outside the production guards: the option and its row of the option reference', async () => {
    const run = await doctor(
      [
        '--config',
        configFile('secretless.json', {
          issuer: 'http://localhost:3000',
          clients: [{ client_id: 'rp', redirect_uris: ['https://rp.example/cb'] }],
        }),
      ],
      { NODE_ENV: 'development' },
    );
    expect(run.stdout).toMatch(
      /✗ \[config-invalid\] "clients\[0\]\.client_secret": is required for a confidential client.*\n {4}fix: change "clients\[0\]\.client_secret" in the configuration file: the `clients\[\]\.client_secret` row of docs\/reference\/options\.md says what it takes\n/,
    );
  });

  // The fix of a client-authentication mistake names the docs section that shows each method's members.
  const PUBLIC_KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
  const AUTH_SECTION =
    'docs/guides/client-registration.md "Configured clients: private_key_jwt, client_secret_jwt and DPoP"';
  test.each([
    [
      'private_key_jwt without keys',
      { token_endpoint_auth_method: 'private_key_jwt', client_secret: undefined },
      'clients[0].jwks',
    ],
    [
      'private_key_jwt with a secret',
      { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://rp.example/jwks' },
      'clients[0].client_secret',
    ],
    [
      'client_secret_jwt with a short secret',
      { token_endpoint_auth_method: 'client_secret_jwt', client_secret: 'short-secret' },
      'clients[0].client_secret',
    ],
    [
      'a signing alg with client_secret_basic',
      { token_endpoint_auth_signing_alg: 'RS256' },
      'clients[0].token_endpoint_auth_signing_alg',
    ],
    [
      'both jwks and jwks_uri',
      {
        token_endpoint_auth_method: 'private_key_jwt',
        client_secret: undefined,
        jwks: { keys: [PUBLIC_KEY] },
        jwks_uri: 'https://rp.example/jwks',
      },
      'clients[0].jwks_uri',
    ],
    [
      'an empty jwks',
      { token_endpoint_auth_method: 'private_key_jwt', client_secret: undefined, jwks: { keys: [] } },
      'clients[0].jwks.keys',
    ],
  ])('client authentication: %s → the fix names the docs section', async (_name, member, path) => {
    const run = await doctor(
      [
        '--config',
        configFile('client-auth.json', { issuer: 'http://localhost:3000', clients: [{ ...CLIENT, ...member }] }),
      ],
      { NODE_ENV: 'development' },
    );
    const line = new RegExp(`✗ \\[config-invalid\\] "${path.replace(/[[\].]/g, '\\$&')}": .*\\n {4}fix: (.*)`).exec(
      run.stdout,
    );
    expect(line?.[1] ?? run.stdout).toContain(AUTH_SECTION);
  });

  test('a clean development configuration: exit 0, no problem', async () => {
    const keys = join(dir, 'jwks.json');
    writeFileSync(keys, JSON.stringify(await generateSigningKeys()));
    const run = await doctor(
      [
        '--config',
        configFile('ok.json', {
          issuer: 'http://localhost:3000',
          keys: { signing: keys, cookies: [generateCookieKey()] },
        }),
      ],
      { NODE_ENV: 'development' },
    );
    expect(run.ids).toEqual([]);
    expect(run.stdout).toMatch(/✓ \[config-valid\]/);
    expect(run.code).toBe(0);
  });

  // `start` puts the PORTCULLIS_* variables (and REDIS_URL) over the file: doctor checks that same configuration.
  test('the environment variables start applies are checked with the file', async () => {
    const keys = join(dir, 'env-jwks.json');
    writeFileSync(keys, JSON.stringify(await generateSigningKeys()));
    const file = configFile('env.json', { issuer: 'http://id.example.com' });
    const env = {
      NODE_ENV: 'production',
      PORTCULLIS_ISSUER: 'https://id.example.com',
      PORTCULLIS_PROXY: 'true',
      PORTCULLIS_SIGNING_KEYS: keys,
      PORTCULLIS_COOKIE_KEYS: generateCookieKey(),
      PORTCULLIS_MFA_KEY: generateCookieKey(),
      PORTCULLIS_STORAGE: 'memory',
    };
    const run = await doctor(['--config', file], env);
    expect(run.ids).toEqual(['warning:memory-storage']);
    expect(run.stdout).toMatch(/✓ \[config-valid\] the configuration loads with NODE_ENV=production/);
    expect(run.code).toBe(0);
    // Without them, the file alone: an http issuer, no keys, no storage type.
    expect((await doctor(['--config', file], { NODE_ENV: 'production' })).ids).toEqual(
      expect.arrayContaining(['problem:issuer-not-https', 'problem:keys-ephemeral', 'problem:cookie-keys-ephemeral']),
    );
  });

  test.each([
    [['--bogus'], /unknown argument --bogus/],
    [[], /doctor needs --config, --url or both/],
    [['--config', join(dir, 'missing.json')], /cannot read .*missing\.json: ENOENT/],
  ])('usage mistake %j: exit 2 with a message', async (args, message) => {
    const run = await doctor(args, {}, { process: true });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });
});

describe('a deployment behind a TLS-terminating proxy', () => {
  let cert: string;
  let proxy: Server;
  let proxyPort: number;
  let upstreamPort: number;
  let server: PortcullisServer | undefined;
  let issuer: string;
  let configPath: string;

  beforeAll(async () => {
    const key = join(dir, 'tls.key');
    cert = join(dir, 'tls.crt');
    const r = spawnSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`openssl failed: ${r.stderr}`);
    upstreamPort = await freePort();
    // The proxy: TLS here, plain http to the server, X-Forwarded-Proto/For added, Host passed through.
    proxy = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
      const upstream = httpRequest(
        {
          host: '127.0.0.1',
          port: upstreamPort,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, 'x-forwarded-proto': 'https', 'x-forwarded-for': req.socket.remoteAddress },
        },
        (up) => {
          res.writeHead(up.statusCode!, up.headers);
          up.pipe(res);
        },
      );
      upstream.on('error', () => {
        res.writeHead(502).end();
      });
      req.pipe(upstream);
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    proxyPort = (proxy.address() as AddressInfo).port;
    issuer = `https://127.0.0.1:${proxyPort}`;
    const signing = join(dir, 'proxy-jwks.json');
    writeFileSync(signing, JSON.stringify(await generateSigningKeys()));
    configPath = configFile('deployment.json', {
      issuer,
      storage: { type: 'memory' },
      keys: { signing, cookies: [generateCookieKey()] },
      mfa: { encryptionKey: generateCookieKey() },
      clients: [CLIENT],
    });
  });
  afterAll(async () => {
    proxy?.close();
    proxy?.closeAllConnections();
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function start(proxySetting: boolean) {
    const env = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      const config = JSON.parse(readFileSync(configPath, 'utf8'));
      server = await createServer({ ...config, proxy: proxySetting });
    } finally {
      process.env.NODE_ENV = env;
    }
    await server.listen(upstreamPort, '127.0.0.1');
  }

  test('proxy unset: doctor names the TLS proxy misconfiguration and exits 1', async () => {
    await start(false);
    const run = await doctor(['--url', issuer], { NODE_EXTRA_CA_CERTS: cert }, { process: true });
    expect(run.ids).toContain('problem:proxy-unset');
    expect(run.stdout).toMatch(/fix: set proxy: true \(PORTCULLIS_PROXY=true\)/);
    expect(run.code).toBe(1);
  });

  test('proxy set: discovery, keys, HSTS, Secure cookies and the clock all check out (exit 0)', async () => {
    await start(true);
    const withProxy = configFile('deployment-proxy.json', {
      ...JSON.parse(readFileSync(configPath, 'utf8')),
      proxy: true,
    });
    const run = await doctor(
      ['--url', issuer, '--config', withProxy],
      { NODE_EXTRA_CA_CERTS: cert, NODE_ENV: 'production' },
      { process: true },
    );
    expect(run.ids).toEqual(['warning:memory-storage']);
    for (const id of ['config-valid', 'hsts', 'clock', 'discovery-origin', 'jwks', 'cookies-secure'])
      expect(run.stdout).toMatch(new RegExp(`✓ \\[${id}\\]`));
    expect(run.code).toBe(0);
  });
});

describe('the configuration against the deployment it is checked with', () => {
  let server: PortcullisServer;
  let deployed: string;
  beforeAll(async () => {
    const port = await freePort();
    deployed = `http://127.0.0.1:${port}/auth`;
    server = await createServer({ issuer: deployed });
    await server.listen(port, '127.0.0.1');
  });
  afterAll(() => server.close());

  test.each([
    ['another issuer (the file of another deployment)', () => 'http://localhost:4340', true],
    ['the same issuer without its path', () => deployed.replace('/auth', ''), true],
    ["the deployment's own issuer", () => deployed, false],
  ])('%s', async (_name, issuer, mismatch) => {
    const file = configFile('pair.json', { issuer: issuer() });
    const run = await doctor(['--config', file, '--url', deployed], { NODE_ENV: 'development' });
    if (!mismatch) {
      expect(run.ids).not.toContain('problem:config-issuer-mismatch');
      expect(run.code).toBe(0);
      return;
    }
    expect(run.ids).toContain('problem:config-issuer-mismatch');
    expect(run.stdout).toContain(
      `✗ [config-issuer-mismatch] the configuration's issuer ${issuer()} is not this deployment's (its discovery names "${deployed}"): the --config checked is not the one running at ${deployed}, or PORTCULLIS_ISSUER overrides it there\n` +
        `    fix: check a matching pair: the configuration ${deployed} runs with, or --url ${issuer()}; if this file is meant for ${deployed}, set its "issuer" to "${deployed}"\n`,
    );
    expect(run.stdout).toMatch(/^1 problem\(s\)/m);
    expect(run.code).toBe(1);
  });
});

describe('fake deployments', () => {
  let fake: Server;
  let base: string;
  let answer: { status: number; headers: Record<string, string>; body: object };
  beforeAll(async () => {
    fake = createHttpServer((req, res) => {
      if (req.url === '/jwks')
        return res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ keys: [{ kty: 'EC' }] }));
      res
        .writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
        .end(JSON.stringify(answer.body));
    });
    fake.listen(0, '127.0.0.1');
    await once(fake, 'listening');
    base = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    fake.close();
  });

  test.each([
    [
      'a clock 10 minutes fast',
      () => ({
        status: 200,
        headers: { date: new Date(Date.now() + 600_000).toUTCString() },
        body: { issuer: base, jwks_uri: `${base}/jwks` },
      }),
      ['problem:clock-skew', 'problem:keys-without-kid'],
    ],
    [
      'endpoints on another origin',
      () => ({
        status: 200,
        headers: {},
        body: { issuer: base, token_endpoint: 'http://internal:8080/token', jwks_uri: `${base}/jwks` },
      }),
      ['problem:discovery-origin', 'problem:keys-without-kid'],
    ],
    [
      'another issuer',
      () => ({ status: 200, headers: {}, body: { issuer: 'https://elsewhere.example' } }),
      ['problem:issuer-mismatch'],
    ],
    [
      'a Host the server refuses',
      () => ({ status: 421, headers: {}, body: { error: 'invalid_request' } }),
      ['problem:host-not-allowed'],
    ],
    ['no discovery document', () => ({ status: 500, headers: {}, body: {} }), ['problem:discovery-failed']],
  ])('%s', async (_name, make, expected) => {
    answer = make();
    const run = await doctor(['--url', base]);
    expect(run.ids).toEqual(expected);
    expect(run.code).toBe(1);
  });

  test('nothing listening: exit 1 naming the URL', async () => {
    const run = await doctor(['--url', `http://127.0.0.1:${await freePort()}`]);
    expect(run.ids).toEqual(['problem:unreachable']);
    expect(run.code).toBe(1);
  });
});

const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;
suiteIf(hasRedisServer, 'no redis-server binary to start a Redis of its own')('Redis persistence', () => {
  let redis: ChildProcess;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    redis = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: 'ignore' },
    );
    for (
      let i = 0;
      i < 50 &&
      spawnSync('redis-cli', ['-p', String(port), 'ping'])
        .stdout?.toString()
        .trim() !== 'PONG';
      i++
    )
      await new Promise((r) => setTimeout(r, 100));
  });
  afterAll(async () => {
    // Redis ignores SIGTERM while it writes its first append-only file ("Writing initial AOF, can't exit."), which
    // the CONFIG SET appendonly yes below starts: wait for that rewrite to end, then stop Redis and wait for it to
    // exit, since it writes into `dir`, which the last afterAll removes.
    const rewriting = () =>
      /aof_rewrite_(in_progress|scheduled):1/.test(
        spawnSync('redis-cli', ['-p', String(port), 'info', 'persistence']).stdout?.toString() ?? '',
      );
    for (let i = 0; i < 200 && rewriting(); i++) await new Promise((r) => setTimeout(r, 50));
    const exited = once(redis, 'exit');
    redis.kill();
    await exited;
  });

  test('a Redis with neither AOF nor RDB snapshots is a problem; with AOF on it is fine', async () => {
    const config = { issuer: 'http://localhost:3000', storage: { type: 'redis', url: `redis://127.0.0.1:${port}` } };
    let run = await doctor(['--config', configFile('redis.json', config)], { NODE_ENV: 'development' });
    expect(run.ids).toContain('problem:redis-no-persistence');
    spawnSync('redis-cli', ['-p', String(port), 'config', 'set', 'appendonly', 'yes']);
    run = await doctor(['--config', configFile('redis.json', config)], { NODE_ENV: 'development' });
    expect(run.ids).not.toContain('problem:redis-no-persistence');
    expect(run.stdout).toMatch(/✓ \[redis-persistence\] .*AOF/);
  });
});
