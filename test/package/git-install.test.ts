/**
 * `npm install github:owner/portcullis` (issue 28): npm builds a git dependency only through `prepare` (it installs
 * the clone's dev dependencies, runs `prepare`, packs the result); with the build in `prepack` alone, the installed
 * package had no dist/. The faithful local equivalent of a git URL is `git+file://` on this repository: npm clones
 * its HEAD (the committed state, as GitHub would serve it) and prepares it exactly so. One install into a scratch
 * project; then `import { createServer } from 'portcullis'` and `npx portcullis --help` there. Slow (the clone's
 * 700 dev packages from npm's cache and a tsc run): about a minute.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../helpers/readme-command.js';

const project = mkdtempSync(join(tmpdir(), 'portcullis-git-install-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));
const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '', npm_config_update_notifier: 'false' };
for (const key of Object.keys(env)) if (/^npm_(lifecycle|package)_/.test(key)) delete env[key];

let install: { status: number | null; output: string };
beforeAll(() => {
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'git-consumer', private: true, type: 'module' }));
  const r = spawnSync(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      `git+${pathToFileURL(ROOT).href}`,
      'koa',
      'graphql@16',
      '@apollo/server',
    ],
    { cwd: project, encoding: 'utf8', env, timeout: 480_000 },
  );
  install = { status: r.status, output: `${r.stdout}${r.stderr}` };
}, 500_000);

test('the git install builds the package: the library imports and npx portcullis runs', () => {
  expect([install.status, install.output]).toEqual([0, expect.anything()]);
  expect(existsSync(join(project, 'node_modules/portcullis/dist/lib/index.js'))).toBe(true);
  const imported = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', "import { createServer } from 'portcullis'; console.log(typeof createServer);"],
    { cwd: project, encoding: 'utf8', env },
  );
  expect(imported.stdout).toBe('function\n');
  const help = spawnSync('npx', ['portcullis', '--help'], { cwd: project, encoding: 'utf8', env });
  expect([help.status, help.stderr]).toEqual([0, expect.stringMatching(/^usage:\n {2}portcullis keys/)]);
}, 60_000);
