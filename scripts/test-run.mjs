// `npm test` after `biome format .`: the type check (`tsc -p tsconfig.test.json`) runs beside the suite instead of
// before it, and the run fails when either fails. Jest's transform (@swc/jest) only strips types, so the type check
// is what proves them; it is independent of the tests, which run the sources through SWC and dist/ through node.
// Run in turn, it added about 10 s of wall time (14 s of CPU) in front of a suite that leaves 15% of a 2-core
// machine idle; beside it, it fits in that idle time. Its output is held and printed after jest's, so the two do not
// interleave. dist/ is brought up to date first (scripts/build-if-stale.mjs), as before: tests run it.
// Arguments go to jest (`npm test -- --json --outputFile=r.json`, `npm test -- test/oidc`). Plain JavaScript: it
// runs before anything is compiled.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const node = process.execPath;

/** Runs `args` with node; resolves to its exit status and, when `quiet`, what it printed. */
function start(args, { quiet = false, env = process.env } = {}) {
  const child = spawn(node, args, { stdio: ['ignore', quiet ? 'pipe' : 'inherit', quiet ? 'pipe' : 'inherit'], env });
  let output = '';
  if (quiet) for (const stream of [child.stdout, child.stderr]) stream.on('data', (c) => (output += c));
  return new Promise((resolve) =>
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output })),
  );
}

const build = spawnSync(node, ['scripts/build-if-stale.mjs'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
const types = start([require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.test.json'], { quiet: true });
const jest = start([require.resolve('jest/bin/jest'), ...process.argv.slice(2)], {
  env: { ...process.env, NODE_OPTIONS: '--experimental-vm-modules' },
});
const [t, j] = await Promise.all([types, jest]);
if (t.code !== 0) {
  process.stderr.write(`\nThe type check failed (tsc -p tsconfig.test.json):\n${t.output}\n`);
}
process.exit(j.code || t.code);
