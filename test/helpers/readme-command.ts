import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './server.js';

/** The project directory, where the commands of the README and docs/ run (as they say). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The README's text. */
export const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The text of a documentation page, by its path from the project directory (`docs/guides/production.md`). */
export function docPage(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

/** Folders under docs/ that hold no page of ours: the site's configuration and build, generated API pages. */
const NOT_PAGES = new Set(['.vitepress', 'public', 'api', 'node_modules']);

/** README.md and every Markdown page under docs/, as `[path from the project directory, text]`. */
export function documentationFiles(): Array<[string, string]> {
  const pages = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory()
        ? NOT_PAGES.has(e.name)
          ? []
          : pages(join(dir, e.name))
        : e.name.endsWith('.md')
          ? [join(dir, e.name)]
          : [],
    );
  return [join(ROOT, 'README.md'), ...pages(join(ROOT, 'docs')).sort()].map((file) => [
    relative(ROOT, file),
    readFileSync(file, 'utf8'),
  ]);
}

/**
 * The documented commands run in the project directory and write the same files there (portcullis.config.json,
 * secrets/, jwks.json): two test files in two jest workers must not run them at once, or one moves the other's
 * files away. A lock file holding the owner's pid serialises them across workers; a lock left by a process that
 * is gone, or by this process (a file that never called `stop()`), is taken over.
 */
const LOCK = join(ROOT, '.readme-command.lock');

async function lockProjectDirectory(): Promise<() => void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      writeFileSync(LOCK, String(process.pid), { flag: 'wx' });
      return () => rmSync(LOCK, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = Number(readFileSync(LOCK, 'utf8').trim());
    let alive = owner > 0 && owner !== process.pid;
    if (alive) {
      try {
        process.kill(owner, 0);
      } catch {
        alive = false;
      }
    }
    if (!alive) {
      rmSync(LOCK, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`${LOCK} held by process ${owner} for 120 s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A README command block running in the background: its port, everything it printed so far, and how to end it. */
export interface ReadmeCommand {
  port: number;
  output(): string;
  /** Ends the command's process group and puts back the files it replaced. */
  stop(): void;
}

/**
 * Runs `commands` (a README `sh` block, as written) with bash from the project directory, with only `PORT`, `HOST`
 * and npm's `ignore-scripts` (no rebuild of dist/ by `prestart`) added around it, after moving `files` (paths it or `prepare` will write, e.g. jwks.json) out of the way
 * and then calling `prepare` (one such command at a time across jest workers: see {@link LOCK}); `environment` adds variables given the port; resolves once it printed "Portcullis listening" or "failed to start", exited, or
 * 150 s passed.
 */
export async function runReadmeCommand(
  commands: string,
  files: readonly string[],
  prepare?: () => void,
  environment?: (port: number) => NodeJS.ProcessEnv,
): Promise<ReadmeCommand> {
  // Commands that write no file of the project (`npm start`) need not wait for the others.
  const unlock = files.length ? await lockProjectDirectory() : () => undefined;
  const moved: Array<[string, string]> = [];
  try {
    for (const p of files)
      if (existsSync(p)) {
        renameSync(p, `${p}.before-readme-test`);
        moved.push([p, `${p}.before-readme-test`]);
      }
    prepare?.();
  } catch (err) {
    for (const [p, backup] of moved) renameSync(backup, p);
    unlock();
    throw err;
  }
  const port = await freePort();
  let output = '';
  // npm's pre-scripts are off: `npm test` has just built dist/, and a README `npm start` would rebuild it (`prestart`),
  // rewriting every file of dist/ while test files in the other jest worker run it (a clean-clone CI run failed
  // test/cli/start.test.ts once so: "does not provide an export named 'createMailer'"). `npm start` itself still runs.
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    NODE_ENV: '',
    npm_config_ignore_scripts: 'true',
    ...environment?.(port),
  };
  const child = spawn('bash', ['-c', commands], { cwd: ROOT, detached: true, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    output += c.toString();
  });
  const deadline = Date.now() + 150_000;
  while (!/Portcullis listening|failed to start/.test(output) && Date.now() < deadline && child.exitCode === null)
    await new Promise((r) => setTimeout(r, 200));
  return {
    port,
    output: () => output,
    stop() {
      if (child.pid) {
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch {
          /* already gone */
        }
      }
      for (const p of files) rmSync(p, { recursive: true, force: true });
      for (const [p, backup] of moved) renameSync(backup, p);
      unlock();
    },
  };
}
