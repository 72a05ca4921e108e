/**
 * Where each server's CPU time per request goes, Portcullis beside its bare peer, from the per-run CPU profiles
 * that `npm run bench -- --profile` writes (one `.cpuprofile` per server and timed run, with a `.json`
 * {@link RunProfile} naming the scenario and the requests the run answered).
 *
 *   node dist/bench/profile-diff.js                      the newest bench/profiles/run-* directory
 *   node dist/bench/profile-diff.js <dir> --by function   per function instead of per package
 *   node dist/bench/profile-diff.js <dir> --top 20 --scenario userinfo
 *
 * For each scenario and server: the self time of every sample (V8's sampling profiler: the time since the
 * previous sample goes to the function on top of the stack), summed per package (`oidc-provider`, `koa`, …),
 * per Node module (`node:_http_outgoing`), per file of ours (`ours:lib/http/request-log.js`), or per native
 * function and V8 state (`(garbage collector)`, `(program)`, `(idle)`), over all of that server's runs, divided
 * by the requests those runs answered: microseconds per request. Rows are sorted by the difference.
 *
 * Read it as an estimate: a sample lands on whatever runs when it is taken, so with the server pinned to one
 * core, the time of a thread-pool job (a log write, a signature) can show on the function the main thread was in.
 * The profiler slows both servers alike; compare the two columns, not with RESULTS.md.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunProfile } from './protocol.js';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: CallFrame }>;
  samples: number[];
  timeDeltas: number[];
}

const argv = process.argv.slice(2);
const option = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const by = option('by') ?? 'package';
if (by !== 'package' && by !== 'function') {
  console.error('profile-diff: --by must be package or function');
  process.exit(1);
}
const top = Number(option('top') ?? 40);
if (!(top >= 1)) {
  console.error('profile-diff: --top must be a number of rows, at least 1');
  process.exit(1);
}
const only = option('scenario');
const valued = new Set(['--by', '--top', '--scenario']);
const positional = argv.filter((a, i) => !a.startsWith('--') && !valued.has(argv[i - 1] ?? ''));

function fail(message: string): never {
  console.error(`profile-diff: ${message}`);
  process.exit(1);
}

const REPO = fileURLToPath(new URL('../../', import.meta.url));
function newestRun(): string {
  const root = join(REPO, 'bench/profiles');
  const runs = existsSync(root)
    ? readdirSync(root)
        .filter((d) => d.startsWith('run-'))
        .sort()
    : [];
  if (!runs.length) fail('no bench/profiles/run-* directory: run `npm run bench -- --profile` first');
  return join(root, runs.at(-1)!);
}
const dir = positional[0] ?? newestRun();
if (!existsSync(dir)) fail(`${dir} does not exist`);
/** The profiler's own start and stop (our inspector session's calls), left out like idle time. */
const notServing = (key: string) => key === '(idle)' || key.startsWith('node:inspector');

/** Where a sampled function belongs: its package, Node module, file of ours, or native/V8 state. */
function placeOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : `native ${functionName}`;
  let place = url;
  if (url.includes('/node_modules/')) {
    // the package, and with --by function the file inside it
    const inPackage = url.slice(url.lastIndexOf('/node_modules/') + 14).split('/');
    const name = inPackage.splice(0, inPackage[0]!.startsWith('@') ? 2 : 1).join('/');
    place = by === 'package' ? name : `${name} ${inPackage.join('/')}`;
  } else if (url.includes('/dist/')) place = `ours:${url.slice(url.lastIndexOf('/dist/') + 6)}`;
  return by === 'package' ? place : `${place} ${functionName || '(anonymous)'}:${frame.lineNumber + 1}`;
}

/** Self time per place in one profile, microseconds. */
function selfTimes(profile: CpuProfile): Map<string, number> {
  const place = new Map(profile.nodes.map((n) => [n.id, placeOf(n.callFrame)]));
  const out = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const key = place.get(id)!;
    out.set(key, (out.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return out;
}

interface Side {
  server: string;
  runs: number;
  requests: number;
  us: Map<string, number>;
}
const scenarios = new Map<string, Map<string, Side>>();
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()) {
  const run = JSON.parse(readFileSync(join(dir, file), 'utf8')) as RunProfile;
  if (only && !run.scenario.includes(only)) continue;
  const profile = JSON.parse(readFileSync(join(dir, file.replace(/\.json$/, '.cpuprofile')), 'utf8')) as CpuProfile;
  let servers = scenarios.get(run.scenario);
  if (!servers) scenarios.set(run.scenario, (servers = new Map()));
  let side = servers.get(run.server);
  if (!side) servers.set(run.server, (side = { server: run.server, runs: 0, requests: 0, us: new Map() }));
  side.runs += 1;
  side.requests += run.requests;
  for (const [key, us] of selfTimes(profile)) side.us.set(key, (side.us.get(key) ?? 0) + us);
}
if (!scenarios.size) fail(`no run profiles in ${dir}${only ? ` for a scenario containing "${only}"` : ''}`);

const fmt = (x: number) => x.toFixed(2);
const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(2)}`;
console.log(`CPU profiles in ${dir}: self time per request, µs (per ${by})`);
for (const [scenario, servers] of scenarios) {
  // Portcullis first, then its bare peer.
  const [a, b] = [...servers.values()].sort(
    (x, y) => Number(!x.server.startsWith('Portcullis')) - Number(!y.server.startsWith('Portcullis')),
  );
  if (!a || !b || !a.requests || !b.requests) {
    console.log(`\n## ${scenario}: needs both servers' runs, with requests (have: ${[...servers.keys()].join(', ')})`);
    continue;
  }
  const per = (side: Side, key: string) => (side.us.get(key) ?? 0) / side.requests;
  const busy = (side: Side) =>
    [...side.us].reduce((sum, [key, us]) => (notServing(key) ? sum : sum + us), 0) / side.requests;
  console.log(
    `\n## ${scenario}\n${a.server}: ${a.runs} run(s), ${a.requests} requests; ${b.server}: ${b.runs} run(s), ${b.requests} requests\n`,
  );
  console.log(`| where | ${a.server} | ${b.server} | difference |\n|---|---|---|---|`);
  console.log(
    `| all (but idle and the profiler's own calls) | ${fmt(busy(a))} | ${fmt(busy(b))} | ${signed(busy(a) - busy(b))} |`,
  );
  const keys = [...new Set([...a.us.keys(), ...b.us.keys()])].filter((k) => !notServing(k));
  keys.sort((x, y) => Math.abs(per(a, y) - per(b, y)) - Math.abs(per(a, x) - per(b, x)));
  for (const key of keys.slice(0, top))
    console.log(`| ${key} | ${fmt(per(a, key))} | ${fmt(per(b, key))} | ${signed(per(a, key) - per(b, key))} |`);
}
