// `npm run build` unless dist/ is current: run by `prestart` (so `npm start` does not spend 20-50 s in tsc at every
// start) and by `prepare` (so `npm ci` in a fresh clone and `npm install` from a git URL build the package). Plain
// JavaScript, because it runs before anything is compiled.
//
// dist/ is current when `npm run build` finished (it writes dist/.build-stamp after tsc succeeded) after the
// last change to any input of tsconfig.json: a file or folder under its `include` (a folder's time changes when a
// file in it is added, removed or renamed), tsconfig.json or package.json. Git writes checked-out files with the
// time of the checkout, so a pull or a branch switch counts as a change.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const STAMP = join('dist', '.build-stamp');

/** The latest modification time (ms) of `path` and, for a folder, of everything under it. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

if (!existsSync('tsconfig.json')) {
  // An installed package (a tarball or the registry's): it comes built and without sources; npm 11 may still run
  // `prepare` there for a tarball whose scripts the installing project approved.
  process.exit(0);
}
const tsconfig = JSON.parse(readFileSync('tsconfig.json', 'utf8'));
const inputs = [...tsconfig.include, 'tsconfig.json', 'package.json'];
const built = existsSync(STAMP) ? statSync(STAMP).mtimeMs : -1;
const changed = Math.max(...inputs.map(newest));
if (built >= changed) {
  process.stdout.write('dist/ is up to date with the sources: not rebuilding (npm run build forces it)\n');
} else {
  process.stdout.write(
    built < 0 ? 'dist/ is not built yet: npm run build\n' : 'the sources changed since the last build: npm run build\n',
  );
  const npm = process.env.npm_execpath;
  const run = npm
    ? spawnSync(process.execPath, [npm, 'run', 'build'], { stdio: 'inherit' })
    : spawnSync('npm', ['run', 'build'], { stdio: 'inherit', shell: true });
  process.exitCode = run.status ?? 1;
}
