/**
 * `portcullis start`, run as the built CLI: a JSON configuration file adding a client and an account runs a full
 * code flow with openid-client; a JS module exporting a function serves its GraphQL schema; environment variables
 * win over the file; without PORT it listens on a local issuer's port; a refused configuration exits 1 without
 * echoing secrets; no configuration file at all is a usage mistake (exit 2).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { settingsFromEnvironment } from '../../lib/cli/environment.js';
import { relyingParty, signIn } from '../helpers/flow.js';
import { freePort, graphql } from '../helpers/server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist/lib/cli/main.js');
const dir = mkdtempSync(join(tmpdir(), 'portcullis-start-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

const CLIENT = {
  client_id: 'file-web',
  client_secret: 'file-web-secret-0123456789abcdef',
  redirect_uris: ['http://localhost:8080/callback'],
  token_endpoint_auth_method: 'client_secret_post',
};
const ACCOUNT = { email: 'carol@example.com', password: 'carol-file-password', email_verified: true };

/** Starts the CLI; resolves with its output once it listens, or rejects with the output when it exits. */
async function start(args: string[], env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [CLI, 'start', ...args], {
    env: { ...process.env, NODE_OPTIONS: '', NODE_ENV: 'development', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (d) => {
    output += d;
  });
  child.stderr!.on('data', (d) => {
    output += d;
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start:\n${output}`)), 30_000);
    // The GraphQL line is the last one written once it listens.
    child.stdout!.on('data', () => {
      if (/Portcullis listening[^]*GraphQL/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`exited ${code}:\n${output}`), { code, output }));
    });
  });
  return { child, output: () => output };
}

test('--config portcullis.config.json: its client and account complete a code flow; no demo data', async () => {
  const port = await freePort();
  const file = join(dir, 'portcullis.config.json');
  writeFileSync(file, JSON.stringify({ clients: [CLIENT], accounts: [ACCOUNT] }));
  const { output } = await start(['--config', file], {
    PORT: String(port),
    HOST: '127.0.0.1',
    PORTCULLIS_ALLOWED_HOSTS: `localhost:${port}`,
  });
  const issuer = `http://localhost:${port}`;
  expect(output()).toMatch(new RegExp(`issuer ${issuer}, configuration ${file.replace(/[.]/g, '\\.')}`));
  const rp = await relyingParty(issuer, { clientId: CLIENT.client_id, secret: CLIENT.client_secret });
  const { tokens } = await signIn(issuer, rp, { email: ACCOUNT.email, password: ACCOUNT.password });
  expect(tokens.claims()?.iss).toBe(issuer);
  // No demo client: an authorization request for demo-web is refused.
  const demo = await fetch(
    `${issuer}/authorization?client_id=demo-web&response_type=code&scope=openid&redirect_uri=http://localhost:8080/callback`,
    { redirect: 'manual', headers: { accept: 'application/json' } },
  );
  expect(demo.status).toBe(400);
  expect(await demo.text()).toMatch(/invalid_client/);
  expect(output()).toMatch(/GraphQL {4}off/);
});

test('a .mjs module exporting a function; PORTCULLIS_ISSUER wins over the file', async () => {
  const port = await freePort();
  const file = join(dir, 'portcullis.config.mjs');
  writeFileSync(
    file,
    `export default async () => ({
    issuer: 'http://file-issuer.example',
    graphql: { typeDefs: 'type Query { hello: String }', resolvers: { Query: { hello: () => 'from the module' } } },
  });\n`,
  );
  const issuer = `http://localhost:${port}`;
  await start(['--config', file], { PORT: String(port), HOST: '127.0.0.1', PORTCULLIS_ISSUER: issuer });
  const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as { issuer: string };
  expect(discovery.issuer).toBe(issuer);
  expect((await graphql(`${issuer}/graphql`, '{ hello }')).body).toEqual({ data: { hello: 'from the module' } });
});

test.each([
  [
    'a refused option',
    { clients: [{ ...CLIENT, redirect_uris: ['http://evil.example/cb'] }] },
    /Portcullis failed to start: Invalid configuration at "clients\[0\]\.redirect_uris": .*must use https/,
  ],
  [
    'production without keys',
    { clients: [CLIENT] },
    /Portcullis failed to start: .*keys\.signing.*\(ERR_CONFIG_INSECURE\)/s,
  ],
])('%s: exit 1 with the message, never the secrets', async (_name, config, message) => {
  const file = join(dir, 'bad.json');
  writeFileSync(file, JSON.stringify(config));
  const env = {
    PORT: String(await freePort()),
    NODE_ENV: _name === 'production without keys' ? 'production' : 'development',
  };
  const err = (await start(['--config', file], env).catch((e: unknown) => e)) as { code: number; output: string };
  expect(err.code).toBe(1);
  expect(err.output).toMatch(message);
  expect(err.output).not.toContain(CLIENT.client_secret);
});

test('an unreadable --config: exit 1 naming the file and the reason', async () => {
  const err = (await start(['--config', join(dir, 'nope.json')], {}).catch((e: unknown) => e)) as {
    code: number;
    output: string;
  };
  expect(err.code).toBe(1);
  expect(err.output).toMatch(/cannot read .*nope\.json: ENOENT/);
});

describe('without PORT, it listens where a local issuer says it is', () => {
  // PORT '' counts as unset; every row's discovery URL, as printed, must answer with that issuer.
  test.each([
    ["the file's issuer http://localhost:P", (p: number) => ({ file: { issuer: `http://localhost:${p}` }, env: {} })],
    [
      'PORTCULLIS_ISSUER http://127.0.0.1:P, file from PORTCULLIS_CONFIG',
      (p: number) => ({
        file: {},
        env: { PORTCULLIS_ISSUER: `http://127.0.0.1:${p}`, HOST: '127.0.0.1' },
        viaEnv: true,
      }),
    ],
    [
      "the file's issuer with a path, http://localhost:P/auth",
      (p: number) => ({ file: { issuer: `http://localhost:${p}/auth` }, env: {} }),
    ],
    // Without HOST: it listens on the issuer's own address, not on whichever one `localhost` resolves to first.
    [
      "the file's issuer http://127.0.0.1:P, no HOST",
      (p: number) => ({ file: { issuer: `http://127.0.0.1:${p}` }, env: {}, listening: '127.0.0.1' }),
    ],
    [
      "the file's issuer http://[::1]:P, no HOST",
      (p: number) => ({ file: { issuer: `http://[::1]:${p}` }, env: {}, listening: '[::1]' }),
    ],
  ])('%s', async (_name, row) => {
    const port = await freePort();
    const {
      file: config,
      env,
      viaEnv,
      listening,
    } = row(port) as { file: object; env: NodeJS.ProcessEnv; viaEnv?: boolean; listening?: string };
    const file = join(dir, `issuer-port-${port}.json`);
    writeFileSync(file, JSON.stringify({ ...config, clients: [CLIENT] }));
    const { output } = await start(viaEnv ? [] : ['--config', file], {
      PORT: '',
      ...env,
      ...(viaEnv ? { PORTCULLIS_CONFIG: file } : {}),
    });
    const discoveryUrl = /discovery {2}(\S+)/.exec(output())![1]!;
    const issuer = discoveryUrl.replace('/.well-known/openid-configuration', '');
    expect(output()).toContain(`listening on http://${listening ?? env.HOST ?? 'localhost'}:${port} (issuer ${issuer}`);
    expect(new URL(issuer).port).toBe(String(port));
    const res = await fetch(discoveryUrl);
    expect({ status: res.status, issuer: ((await res.json()) as { issuer: string }).issuer }).toEqual({
      status: 200,
      issuer,
    });
    expect(output()).not.toMatch(/note/);
  });

  test("PORT set to another port wins, with a note that the issuer's URLs need a proxy", async () => {
    const [port, issuerPort] = [await freePort(), await freePort()];
    const file = join(dir, 'other-port.json');
    writeFileSync(file, JSON.stringify({ issuer: `http://localhost:${issuerPort}` }));
    const { output } = await start(['--config', file], { PORT: String(port), HOST: '127.0.0.1' });
    expect(output()).toContain(`listening on http://127.0.0.1:${port} (issuer http://localhost:${issuerPort}`);
    expect(output()).toContain(
      `note       the issuer names port ${issuerPort}, PORT=${port}: the URLs below answer only through a proxy from ${issuerPort} to ${port} (unset PORT to listen on ${issuerPort})`,
    );
    expect(
      (await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { host: `localhost:${issuerPort}` } })).status,
    ).toBe(200);
  });

  test.each([
    ['https://id.example.com', {}, 3000],
    ['http://id.example.com:4340', {}, 3000],
    ['https://localhost:4340', {}, 3000],
    ['http://localhost:4340', {}, 4340],
    ['http://localhost', {}, 80],
    ['http://id.localhost:4341', {}, 4341],
    ['http://127.0.0.2:4342', {}, 4342],
    ['http://[::1]:4343', {}, 4343],
    ['http://localhost:4340', { PORT: '4000' }, 4000],
  ])('issuer %s with %j: port %d', (issuer, env, port) => {
    expect(settingsFromEnvironment(env, { file: { issuer } }).port).toBe(port);
    expect(settingsFromEnvironment({ ...env, PORTCULLIS_ISSUER: issuer }).port).toBe(port);
  });

  test.each([
    ['http://127.0.0.2:4342', {}, '127.0.0.2'],
    ['http://[::1]:4343', {}, '::1'],
    ['http://localhost:4340', {}, 'localhost'],
    ['http://id.localhost:4341', {}, 'localhost'],
    ['https://127.0.0.1:4340', {}, 'localhost'],
    ['http://127.0.0.1:4340', { HOST: '0.0.0.0' }, '0.0.0.0'],
    ['http://127.0.0.1:4340', { PORT: '4000' }, 'localhost'],
  ])('issuer %s with %j: host %s', (issuer, env, host) => {
    expect(settingsFromEnvironment(env, { file: { issuer } }).host).toBe(host);
    expect(settingsFromEnvironment({ ...env, PORTCULLIS_ISSUER: issuer }).host).toBe(host);
  });
});

test.each([
  [[], {}],
  [[], { PORTCULLIS_CONFIG: '' }],
])('no configuration file (%j, %j): exit 2 saying what to pass, nothing listens', async (args, env) => {
  const port = await freePort();
  const err = (await start(args, { ...env, PORT: String(port), HOST: '127.0.0.1' }).catch((e: unknown) => e)) as {
    code: number;
    output: string;
  };
  expect(err.code).toBe(2);
  expect(err.output).toMatch(
    /^start needs a configuration file, with your clients and accounts: portcullis start --config portcullis\.config\.json \(or PORTCULLIS_CONFIG=portcullis\.config\.json\)/,
  );
  expect(err.output).toMatch(/A file holding \{\} starts a server configured by the environment variables alone/);
  expect(err.output).toMatch(/usage:\n/);
  expect(err.output).not.toMatch(/listening/);
});

test.each([
  [
    'from the issuer (no PORT)',
    false,
    /port \d+ comes from the issuer \(without PORT a local issuer's port is listened on\): set PORT, or put a free port/,
  ],
  ['from PORT', true, /port \d+ comes from PORT: choose another with PORT/],
])('a port already in use, %s: exit 1 naming where the port came from', async (_name, viaPort, hint) => {
  const port = await freePort();
  const { createServer: netServer } = await import('node:net');
  const blocker = netServer().listen(port, '127.0.0.1');
  await once(blocker, 'listening');
  try {
    const file = join(dir, `busy-${port}.json`);
    writeFileSync(file, JSON.stringify({ issuer: `http://127.0.0.1:${port}` }));
    const err = (await start(['--config', file], viaPort ? { PORT: String(port), HOST: '127.0.0.1' } : {}).catch(
      (e: unknown) => e,
    )) as { code: number; output: string };
    expect(err.code).toBe(1);
    expect(err.output).toMatch(/^Portcullis failed to start: .*EADDRINUSE/m);
    expect(err.output).toMatch(hint);
  } finally {
    blocker.close();
  }
});

test('SIGTERM stops it cleanly (exit 0)', async () => {
  const file = join(dir, 'empty.json');
  writeFileSync(file, '{}');
  const { child } = await start(['--config', file], { PORT: String(await freePort()), HOST: '127.0.0.1' });
  child.kill('SIGTERM');
  const [code] = (await once(child, 'exit')) as [number];
  expect(code).toBe(0);
});
