/**
 * `npx portcullis` in a clone, as a new user types it (issue 28): before any build it used to install the project
 * into npx's cache without the command's link (the bin was dist/lib/cli/main.js, absent then), and that cache entry
 * stayed broken after `npm run build` until deleted by hand. Now npm prepares the clone as it installs it (`prepare`
 * builds dist/), and the bin is a committed launcher (bin/portcullis.js) that npm always links: without dist/ it
 * says to run `npm run build` (exit 1), and after the build the same npx cache entry runs the command.
 * A copy of the repository's tracked files, with this checkout's node_modules linked in, and an npm cache of its own.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from '../helpers/readme-command.js';

const work = mkdtempSync(join(tmpdir(), 'portcullis-npx-'));
const clone = join(work, 'portcullis');
afterAll(() => rmSync(work, { recursive: true, force: true }));

function npx(args: string[]) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_OPTIONS: '',
    npm_config_cache: join(work, 'npm-cache'),
    npm_config_yes: 'true',
    npm_config_update_notifier: 'false',
  };
  for (const key of Object.keys(env)) if (/^npm_(lifecycle|package)_/.test(key)) delete env[key];
  const r = spawnSync('npx', args, { cwd: clone, encoding: 'utf8', env, timeout: 120_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

beforeAll(() => {
  const files = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .stdout.split('\0')
    .filter(Boolean);
  for (const file of files) {
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    try {
      cpSync(join(ROOT, file), join(clone, file));
    } catch {
      /* a tracked file deleted in this checkout */
    }
  }
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
});

test('npx portcullis in a fresh clone runs the command; without dist/ it says to build; rebuilt, the same npx cache runs it', () => {
  // npm installs the clone into npx's cache as a directory dependency and prepares it (`prepare`: build-if-stale).
  const first = npx(['portcullis', '--help']);
  expect([first.status, first.output]).toEqual([0, expect.stringMatching(/^usage:\n {2}portcullis keys/m)]);
  rmSync(join(clone, 'dist'), { recursive: true, force: true });
  const unbuilt = npx(['portcullis', '--help']);
  expect(unbuilt.output).toContain('portcullis: the command is not built yet: run `npm run build` in');
  expect(unbuilt.status).toBe(1);
  // The build, as `npm run build` leaves it (this checkout's dist/, built by `npm test`).
  cpSync(join(ROOT, 'dist'), join(clone, 'dist'), { recursive: true });
  const after = npx(['portcullis', 'cookie-key']);
  expect([after.status, after.output]).toEqual([0, expect.stringMatching(/^[A-Za-z0-9_-]{43}\n$/)]);
}, 240_000);
