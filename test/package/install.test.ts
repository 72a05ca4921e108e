/**
 * The package as a user gets it: `npm pack` → install the tarball into a fresh TypeScript Koa project → `tsc
 * --strict` on a consumer file that uses every entry point → run it and complete a code flow with openid-client
 * through the real login and consent forms; `require('portcullis')` from CommonJS (Node ≥ 22.12); publint and
 * @arethetypeswrong/cli on the tarball; `portcullis/testing`'s storage suite under node:test in that project.
 * Needs the npm registry (or npm's cache, which `npm ci` filled).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { relyingParty, signIn } from '../helpers/flow.js';
import { freePort, graphql } from '../helpers/server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
const requireEsm = major > 22 || (major === 22 && minor >= 12);

function run(cmd: string, args: string[], cwd: string, timeout = 180_000) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout, env: { ...process.env, NODE_OPTIONS: '' } });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

const CONSUMER = `
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { createServer, generateSigningKeys, generateCookieKey, ConfigError, type PortcullisConfig, type AuthInfo } from 'portcullis';
import { RedisStorage } from 'portcullis/redis';
import { verifyAccessTokenForUser } from 'portcullis/rp';
import { applyScopeDirectives, costLimitPlugin, createMaxDepthRule, hasScope } from 'portcullis/graphql';
import type { StoredSecondFactor, UiConfig, MfaConfig, PasskeysConfig, RegistrationConfig, LoginView, CodeView, UiTemplates, TemplateKit } from 'portcullis';

// Types a host names in its own code: the docs' StoredSecondFactor and template views, the configuration sections.
export type HostTypes = [StoredSecondFactor, UiConfig, MfaConfig, PasskeysConfig, RegistrationConfig, LoginView, CodeView, UiTemplates, TemplateKit];

const port = Number(process.argv[2]);
// Mounted under /auth (the issuer names the prefix), GraphQL elsewhere on the host, the host's body parser first.
const issuer = \`http://localhost:\${port}/auth\`;
const config: PortcullisConfig = {
  issuer,
  clients: [{ client_id: 'host-web', client_secret: 'host-web-secret-0123456789abcdef', redirect_uris: ['http://localhost:8080/callback'],
              token_endpoint_auth_method: 'client_secret_post' }],
  accounts: [{ email: 'alice@example.com', password: 'alice-host-password', email_verified: true }],
  graphql: {
    path: '/api/graphql',
    typeDefs: 'type Query { whoami: String }',
    resolvers: { Query: { whoami: (_: unknown, __: unknown, ctx: { auth: AuthInfo | null }) => (hasScope(ctx.auth, 'openid') ? \`signed in as \${ctx.auth!.sub}\` : 'anonymous') } },
  },
  keys: { signing: await generateSigningKeys(), cookies: [generateCookieKey()] },
};
const unused: unknown[] = [RedisStorage, verifyAccessTokenForUser, createMaxDepthRule, applyScopeDirectives, costLimitPlugin, ConfigError];
const portcullis = await createServer(config);
const app = new Koa();
app.use(bodyParser());
app.use(portcullis.middleware());
app.use(async (ctx) => { if (ctx.path === '/') ctx.body = { host: true, entryPoints: unused.length }; });
app.listen(port, '127.0.0.1', () => console.log('READY'));
`;

/** A host's test of its storage with portcullis/testing under node:test (no test framework installed). */
const CONFORMANCE = `
import { describe, test } from 'node:test';
import { MemoryStorage } from 'portcullis';
import { storageConformance } from 'portcullis/testing';

describe('my storage', () => {
  for (const c of storageConformance(() => new MemoryStorage())) test(c.name, c.run);
});
`;

let work: string;
let tarball: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'portcullis-package-'));
  // npm test has just built dist/; --ignore-scripts skips `prepare` (a check of dist/, or a second build).
  const name = run(NPM, ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], ROOT)
    .trim()
    .split('\n')
    .pop()!;
  tarball = join(work, name);
}, 120_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the tarball holds the built library, its types, README, LICENSE and CHANGELOG, and nothing else', () => {
  const files = run('tar', ['-tzf', tarball], work)
    .trim()
    .split('\n')
    .map((f) => f.replace(/^package\//, ''));
  for (const f of [
    'package.json',
    'README.md',
    'LICENSE',
    'CHANGELOG.md',
    'dist/lib/index.js',
    'dist/lib/index.d.ts',
    'dist/lib/redis.js',
    'dist/lib/rp/index.d.ts',
    'dist/lib/graphql/index.d.ts',
    'dist/lib/testing/index.js',
    'dist/lib/testing/index.d.ts',
  ]) {
    expect(files).toContain(f);
  }
  expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
  expect(files.filter((f) => /^(test|bench|examples|dist\/test|dist\/bench|dist\/examples)\//.test(f))).toEqual([]);
  expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
});

test("the packed package.json's only install-time script is prepare, which builds nothing in the installed package", () => {
  // `prepare` builds a git install (test/package/git-install.test.ts). npm 11 lists it among the scripts a project
  // has not reviewed when it installs the tarball, and runs it only if approved: then, without tsconfig.json and
  // sources, scripts/build-if-stale.mjs exits 0 at once (test/package/build-if-stale.test.ts).
  const manifest = JSON.parse(run('tar', ['-xzOf', tarball, 'package/package.json'], work)) as {
    scripts?: Record<string, string>;
    bin?: Record<string, string>;
  };
  const installTime = ['preinstall', 'install', 'postinstall', 'prepare', 'preprepare', 'postprepare'];
  expect(Object.keys(manifest.scripts ?? {}).filter((s) => installTime.includes(s))).toEqual(['prepare']);
  expect(manifest.scripts?.prepare).toBe('node scripts/build-if-stale.mjs');
  expect(manifest.bin).toEqual({ portcullis: 'bin/portcullis.js' });
  const files = run('tar', ['-tzf', tarball], work);
  expect(files).toContain('package/scripts/build-if-stale.mjs');
  expect(files).toContain('package/bin/portcullis.js');
});

test('publint and @arethetypeswrong/cli find nothing wrong with the tarball', () => {
  expect(run(join(ROOT, 'node_modules/.bin/publint'), ['run', tarball, '--strict'], work)).toMatch(/All good!/);
  // esm-only profile: the package is ESM; CommonJS consumers use require(esm) on Node >= 22.12 (checked below).
  // attw exits non-zero when a resolution the profile covers (node16 from ESM, bundler) has a problem.
  const attw = spawnSync(join(ROOT, 'node_modules/.bin/attw'), [tarball, '--profile', 'esm-only', '--format', 'json'], {
    encoding: 'utf8',
  });
  expect(attw.status).toBe(0);
  const report = JSON.parse(attw.stdout) as {
    analysis: {
      entrypoints: Record<string, { resolutions: Record<string, { resolution?: { isTypeScript?: boolean } }> }>;
    };
  };
  const entrypoints = report.analysis.entrypoints;
  expect(Object.keys(entrypoints).sort()).toEqual(['.', './graphql', './package.json', './redis', './rp', './testing']);
  for (const name of ['.', './graphql', './redis', './rp', './testing']) {
    for (const mode of ['node16-esm', 'bundler'])
      expect([name, mode, entrypoints[name]!.resolutions[mode]?.resolution?.isTypeScript]).toEqual([name, mode, true]);
  }
}, 60_000);

describe('installed into a fresh strict TypeScript Koa project', () => {
  let project: string;
  let child: ChildProcess | undefined;

  beforeAll(() => {
    project = join(work, 'host');
    run('mkdir', ['-p', join(project, 'src')], work);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'host-app', private: true, type: 'module' }, null, 2),
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify(
        {
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            outDir: 'out',
            types: ['node'],
          },
          include: ['src'],
        },
        null,
        2,
      ),
    );
    writeFileSync(join(project, 'src/main.ts'), CONSUMER);
    writeFileSync(join(project, 'src/storage.test.ts'), CONFORMANCE);
    writeFileSync(
      join(project, 'src/require.cjs'),
      "const p = require('portcullis'); const r = require('portcullis/rp'); console.log(typeof p.createServer, typeof r.verifyAccessTokenForUser);\n",
    );
    const ts = JSON.parse(readFileSync(join(ROOT, 'node_modules/typescript/package.json'), 'utf8')).version as string;
    const typesNode = JSON.parse(readFileSync(join(ROOT, 'node_modules/@types/node/package.json'), 'utf8'))
      .version as string;
    // Only the tarball and what a TypeScript Koa host has anyway (its body parser): koa comes as our peer dependency.
    const koaBody = JSON.parse(readFileSync(join(ROOT, 'node_modules/@koa/bodyparser/package.json'), 'utf8'))
      .version as string;
    run(
      NPM,
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        tarball,
        `typescript@${ts}`,
        `@types/node@${typesNode}`,
        `@koa/bodyparser@${koaBody}`,
      ],
      project,
      300_000,
    );
  }, 320_000);

  afterAll(() => {
    child?.kill();
  });

  test('tsc --strict compiles a consumer of every entry point with no extra @types install', () => {
    expect(() => run(join(project, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], project)).not.toThrow();
  }, 120_000);

  test('portcullis/testing: the storage suite runs under node:test in the host (31 cases pass), without jest', () => {
    const output = run(process.execPath, ['--test', '--test-reporter=tap', 'out/storage.test.js'], project, 60_000);
    expect(output).toMatch(/^# pass 31$/m);
    expect(output).toMatch(/^# fail 0$/m);
    const probe = "import('jest').then(() => process.exit(0), () => process.exit(3))";
    const jest = spawnSync(process.execPath, ['-e', probe], { cwd: project });
    expect(jest.status).toBe(3);
  }, 120_000);

  (requireEsm ? test : test.skip)(
    `require('portcullis') works from CommonJS (require(esm), Node ${process.versions.node})`,
    () => {
      expect(run(process.execPath, ['src/require.cjs'], project).trim()).toBe('function function');
    },
  );

  test('the compiled host app, mounted under /auth behind its own body parser, completes a code flow with openid-client and serves GraphQL at /api/graphql', async () => {
    const port = await freePort();
    const origin = `http://localhost:${port}`;
    const issuer = `${origin}/auth`;
    child = spawn(process.execPath, ['out/main.js', String(port)], {
      cwd: project,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`host app did not start:\n${output}`)), 30_000);
      const onData = (d: Buffer) => {
        output += d;
        if (output.includes('READY')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child!.stdout!.on('data', onData);
      child!.stderr!.on('data', (d: Buffer) => {
        output += d;
      });
      child!.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`host app exited ${code}:\n${output}`));
      });
    });
    expect(await (await fetch(`${origin}/`)).json()).toEqual({ host: true, entryPoints: 6 });
    const rp = await relyingParty(issuer, { clientId: 'host-web', secret: 'host-web-secret-0123456789abcdef' });
    const { tokens } = await signIn(issuer, rp, { email: 'alice@example.com', password: 'alice-host-password' });
    const sub = tokens.claims()!.sub;
    expect(tokens.claims()?.iss).toBe(issuer);
    const res = await graphql(`${origin}/api/graphql`, '{ whoami }', { token: tokens.access_token });
    expect(res.body).toEqual({ data: { whoami: `signed in as ${sub}` } });
  }, 60_000);
});
