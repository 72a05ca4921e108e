/**
 * `npm start` builds only when dist/ is stale (issue 28: `prestart` ran tsc at every start, 22-48 s, and made
 * production need the dev dependencies). scripts/build-if-stale.mjs, run by `prestart` and `prepare`, in a small
 * project of its own whose `build` script counts its runs and writes the stamp as the real one does.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../helpers/readme-command.js';

const project = mkdtempSync(join(tmpdir(), 'portcullis-stale-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));
const SCRIPT = join(ROOT, 'scripts/build-if-stale.mjs');
const builds = () => (existsSync(join(project, 'builds')) ? readFileSync(join(project, 'builds'), 'utf8').length : 0);

beforeAll(() => {
  mkdirSync(join(project, 'lib/deep'), { recursive: true });
  writeFileSync(join(project, 'lib/a.ts'), 'export const a = 1;\n');
  writeFileSync(join(project, 'lib/deep/b.ts'), 'export const b = 2;\n');
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ include: ['lib'] }));
  const build =
    "node -e \"const fs=require('fs');fs.appendFileSync('builds','x');fs.mkdirSync('dist',{recursive:true});fs.writeFileSync('dist/.build-stamp','')\"";
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'p', private: true, scripts: { build } }));
});

/** Runs the script in the project; every input older than the stamp unless `touched` says otherwise. */
function run(): string {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' };
  delete env.npm_execpath;
  const r = spawnSync(process.execPath, [SCRIPT], { cwd: project, encoding: 'utf8', env });
  expect(r.status).toBe(0);
  return r.stdout;
}
/** Makes every file and folder of the project an hour old, as after a build long ago. */
function ageAll() {
  const old = new Date(Date.now() - 3_600_000);
  for (const p of ['lib/a.ts', 'lib/deep/b.ts', 'lib/deep', 'lib', 'tsconfig.json', 'package.json'])
    if (existsSync(join(project, p))) utimesSync(join(project, p), old, old);
}

test.each([
  ['no dist/ yet: builds', () => {}, 1, /not built yet/],
  ['nothing changed since: does not build', () => ageAll(), 0, /up to date/],
  [
    'a source edited: builds',
    () => {
      ageAll();
      writeFileSync(join(project, 'lib/deep/b.ts'), 'export const b = 3;\n');
    },
    1,
    /sources changed/,
  ],
  [
    'a source deleted: builds',
    () => {
      ageAll();
      rmSync(join(project, 'lib/a.ts'));
    },
    1,
    /sources changed/,
  ],
  [
    'tsconfig.json changed: builds',
    () => {
      ageAll();
      writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ include: ['lib'], compilerOptions: {} }));
    },
    1,
    /sources changed/,
  ],
  ['again, nothing changed: does not build', () => ageAll(), 0, /up to date/],
] as const)('%s', (_name, change, expected, said) => {
  change();
  const before = builds();
  expect(run()).toMatch(said);
  expect(builds() - before).toBe(expected);
});

test('npm start and prepare use it; the installed package, without sources, builds nothing', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  expect(manifest.scripts.prestart).toBe('node scripts/build-if-stale.mjs');
  expect(manifest.scripts.prepare).toBe('node scripts/build-if-stale.mjs');
  expect(manifest.scripts.build).toContain('dist/.build-stamp');
  const installed = mkdtempSync(join(tmpdir(), 'portcullis-installed-'));
  try {
    const r = spawnSync(process.execPath, [SCRIPT], { cwd: installed, encoding: 'utf8' });
    expect([r.status, r.stdout, existsSync(join(installed, 'dist'))]).toEqual([0, '', false]);
  } finally {
    rmSync(installed, { recursive: true, force: true });
  }
});
