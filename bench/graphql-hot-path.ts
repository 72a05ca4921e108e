/**
 * GraphQL hot path: Portcullis (every rule on, rate limit raised so nothing is refused) against bare Apollo
 * Server 5 on Koa (@as-integrations/koa, same typeDefs and resolvers, no rules), each server in its own child
 * process pinned to CPU 0, autocannon in this process pinned to CPU 1.
 *
 *   npm run build && node dist/bench/graphql-hot-path.js [cached|unique|both] [--duration 10] [--pairs 3]
 *   node dist/bench/graphql-hot-path.js profile [cached|unique] [--duration 10] [--bare]   # one --cpu-prof run
 *   node dist/bench/graphql-hot-path.js cpu [cached|unique|both] [--requests 20000] [--pairs 3]
 *   add --log to any mode: Portcullis logs at level info (JSON to /dev/null), as `npm run bench` runs it
 *
 * - cached: every request is `{ products { id name } }` (the document caches are warm);
 * - unique: every request is a new query text (`query Q<n> { products { id name } }`), so every document is
 *   parsed, validated and measured.
 * Runs alternate A/B (Portcullis, bare, Portcullis, …) and report each pair's ratio and the median: the
 * machine is shared, compare ratios rather than absolute numbers.
 *
 * `cpu` sends a fixed number of requests to each server and reports the CPU time (user + system, from
 * /proc/<pid>/stat) the server process spent per request, and the ratio bare / Portcullis: what the
 * requests/s ratio would be on a CPU of its own. Far steadier than requests/s when other processes share the
 * cores (they steal wall time, not the CPU time this process is charged).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const self = fileURLToPath(import.meta.url);
const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const QUERY = '{ products { id name } }';

/** A port that was free a moment ago (the issuer must name the port the server listens on). */
async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const probe = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => probe.once('listening', r));
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  return port;
}

/** Child mode: start one server on an ephemeral port, print `PORT <n>`, run until SIGTERM. */
async function serve(kind: string): Promise<void> {
  const { catalogResolvers, typeDefs } = await import('../examples/catalog/schema.js');
  let url: string;
  let close: () => Promise<void>;
  if (kind === 'bare') {
    const { ApolloServer } = await import('@apollo/server');
    const { koaMiddleware } = await import('@as-integrations/koa');
    const { bodyParser } = await import('@koa/bodyparser');
    const { makeExecutableSchema } = await import('@graphql-tools/schema');
    const { default: Koa } = await import('koa');
    const directives = 'directive @requiresScopes(scopes: [String!]!) on FIELD_DEFINITION | OBJECT | INTERFACE\n';
    const apollo = new ApolloServer({
      schema: makeExecutableSchema({ typeDefs: directives + typeDefs, resolvers: catalogResolvers() as never }),
    });
    await apollo.start();
    const app = new Koa();
    app.use(bodyParser());
    app.use(koaMiddleware(apollo) as never);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
    close = async () => {
      server.close();
      await apollo.stop();
    };
  } else {
    const { createServer } = await import('../lib/index.js');
    const { demoFixtures } = await import('../examples/demo-fixtures.js');
    const port = await freePort();
    const server = await createServer({
      issuer: `http://127.0.0.1:${port}`,
      ...demoFixtures(),
      // Every rule on with its default; only the operation budget is raised so that no request gets 429.
      graphql: { typeDefs, resolvers: catalogResolvers(), rateLimit: { points: 1e12, durationSeconds: 60 } },
      // --log: as `npm run bench` (pino at level info; this process' stdout is /dev/null); else no logs at all.
      logger: args.includes('--log')
        ? (await import('../lib/core/logger.js')).createLogger({ LOG_LEVEL: 'info' })
        : ({
            warn() {},
            info() {},
            error() {},
            debug() {},
            child() {
              return this;
            },
          } as never),
    });
    const http = await server.listen(port, '127.0.0.1');
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/graphql`;
    close = () => server.close();
  }
  process.on('SIGTERM', () => {
    void close().finally(() => process.exit(0));
  });
  writeSync(3, `URL ${url}\n`); // fd 3: stdout is the logger's (/dev/null)
}

/** Starts `kind` in a child process pinned to CPU 0; resolves with its URL. */
function startChild(kind: string, nodeArgs: string[] = []): Promise<{ url: string; child: ChildProcess }> {
  const extra = args.includes('--log') ? ['--log'] : [];
  const child = spawn('taskset', ['-c', '0', process.execPath, ...nodeArgs, self, 'serve', kind, ...extra], {
    stdio: ['ignore', 'ignore', 'inherit', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /URL (\S+)/.exec(out);
      if (m) resolve({ url: m[1]!, child });
    });
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

type Load = 'cached' | 'unique';

async function load(url: string, mode: Load, duration: number, amount?: number) {
  const { default: autocannon } = await import('autocannon');
  let n = 0;
  const body = JSON.stringify({ query: QUERY });
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    connections: 10,
    ...(amount ? { amount } : { duration }),
    ...(mode === 'cached'
      ? { body }
      : {
          requests: [
            {
              setupRequest: (req: Record<string, unknown>) => ({
                ...req,
                body: JSON.stringify({ query: `query Q${process.pid}x${n++} ${QUERY}` }),
              }),
            },
          ],
        }),
  });
  return result;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Checks one request's answer before measuring, so a misconfigured server cannot produce a flattering number. */
async function check(url: string): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: QUERY }),
  });
  const text = await res.text();
  if (res.status !== 200 || !text.includes('"products"')) throw new Error(`${url} answered ${res.status} ${text}`);
}

async function compare(mode: Load, duration: number, pairs: number): Promise<void> {
  const ratios: number[] = [];
  for (let i = 1; i <= pairs; i++) {
    const rates: Record<string, number> = {};
    for (const kind of ['portcullis', 'bare']) {
      const { url, child } = await startChild(kind);
      try {
        await check(url);
        await load(url, mode, 2); // warm-up (JIT, caches), not reported
        const r = await load(url, mode, duration);
        if (r.non2xx || r.errors) throw new Error(`${kind}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        rates[kind] = r.requests.average;
        console.log(
          `  ${mode} pair ${i} ${kind.padEnd(10)} ${r.requests.average.toFixed(0).padStart(6)} req/s  p99 ${r.latency.p99} ms`,
        );
      } finally {
        await stopChild(child);
      }
    }
    ratios.push(rates.portcullis! / rates.bare!);
    console.log(`  ${mode} pair ${i} ratio ${ratios.at(-1)!.toFixed(3)}`);
  }
  console.log(
    `${mode}: Portcullis / bare Apollo, median of ${pairs} pairs: ${median(ratios).toFixed(3)} (${ratios.map((r) => r.toFixed(3)).join(', ')})`,
  );
}

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime (fields 14, 15) in clock ticks (USER_HZ 100)
}

/** CPU time per request of each server over `requests` requests, alternating; ratio bare / Portcullis per pair. */
async function compareCpu(mode: Load, requests: number, pairs: number): Promise<void> {
  const ratios: number[] = [];
  for (let i = 1; i <= pairs; i++) {
    const perRequest: Record<string, number> = {};
    for (const kind of ['portcullis', 'bare']) {
      const { url, child } = await startChild(kind);
      try {
        await check(url);
        await load(url, mode, 0, Math.min(requests, 5000)); // warm-up (JIT, caches), not counted
        const before = cpuSeconds(child.pid!);
        const r = await load(url, mode, 0, requests);
        const used = cpuSeconds(child.pid!) - before;
        if (r.non2xx || r.errors) throw new Error(`${kind}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        perRequest[kind] = (used * 1e6) / r.requests.total;
        console.log(
          `  ${mode} pair ${i} ${kind.padEnd(10)} ${perRequest[kind]!.toFixed(1).padStart(7)} µs CPU/request (${r.requests.total} requests, ${r.requests.average.toFixed(0)} req/s wall)`,
        );
      } finally {
        await stopChild(child);
      }
    }
    ratios.push(perRequest.bare! / perRequest.portcullis!);
    console.log(`  ${mode} pair ${i} ratio bare/Portcullis CPU per request ${ratios.at(-1)!.toFixed(3)}`);
  }
  console.log(
    `${mode}: CPU-bound throughput Portcullis / bare Apollo, median of ${pairs} pairs: ${median(ratios).toFixed(3)} (${ratios.map((r) => r.toFixed(3)).join(', ')})`,
  );
}

/** One `--cpu-prof` run of Portcullis (or bare Apollo) under `mode` load; prints the top self-time functions. */
async function profile(duration: number, mode: Load): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'gql-prof-'));
  const { url, child } = await startChild(args.includes('--bare') ? 'bare' : 'portcullis', [
    '--cpu-prof',
    `--cpu-prof-dir=${dir}`,
  ]);
  await check(url);
  await load(url, mode, 2);
  // Profile timestamps are CLOCK_MONOTONIC microseconds, as process.hrtime: keep the samples of the measured run.
  const from = Number(process.hrtime.bigint() / 1000n);
  const r = await load(url, mode, duration);
  const to = Number(process.hrtime.bigint() / 1000n);
  console.log(`profiled run: ${r.requests.average.toFixed(0)} req/s`);
  await stopChild(child);
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!;
  interface Node {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
  }
  const prof = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
    nodes: Node[];
    samples: number[];
    timeDeltas: number[];
    startTime: number;
  };
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const selfTime = new Map<string, number>();
  const byModule = new Map<string, number>();
  let t = prof.startTime;
  let total = 0;
  let inWindow = 0;
  prof.samples.forEach((id, i) => {
    t += prof.timeDeltas[i]!;
    if (t < from || t > to) return;
    inWindow++;
    const { functionName, url: where, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') return; // CPU 0 waiting (shared machine): not the server's work
    total++;
    const short = where.includes('/node_modules/')
      ? where.replace(/^.*node_modules\//, '')
      : where.replace(/^.*\/dist(-before)?\//, 'dist/').replace(/^file:\/\//, '');
    const key = `${functionName || '(anonymous)'} ${short}${short ? `:${lineNumber + 1}` : ''}`;
    selfTime.set(key, (selfTime.get(key) ?? 0) + 1);
    const module = !short
      ? '(native/V8)'
      : short.startsWith('dist/')
        ? short.split('/').slice(0, -1).join('/')
        : short.startsWith('node:')
          ? 'node:'
          : short.startsWith('@')
            ? short.split('/').slice(0, 2).join('/')
            : short.split('/')[0]!;
    byModule.set(module, (byModule.get(module) ?? 0) + 1);
  });
  const pct = (n: number) => `${((100 * n) / total).toFixed(1).padStart(5)} %`;
  // For comparing two runs (e.g. Portcullis and --bare): samples by function and package, and requests served.
  writeFileSync(
    join(dir, 'summary.json'),
    JSON.stringify({
      requests: r.requests.total,
      busySamples: total,
      intervalUs: (to - from) / inWindow,
      self: Object.fromEntries(selfTime),
      byModule: Object.fromEntries(byModule),
    }),
  );
  console.log(`profile ${join(dir, file)}: ${total} busy samples in the measured run; top self time:`);
  for (const [key, n] of [...selfTime].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${pct(n)}  ${key}`);
  console.log('Portcullis functions (dist/lib), self time:');
  for (const [key, n] of [...selfTime]
    .filter(([k]) => k.includes(' dist/lib/'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 15))
    console.log(`${pct(n)}  ${key}`);
  console.log('self time by package / folder:');
  for (const [key, n] of [...byModule].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`${pct(n)}  ${key}`);
}

if (args[0] === 'serve') {
  await serve(args[1]!);
} else if (!process.env.GQL_HOT_PATH_PINNED) {
  // The load generator runs on CPU 1, the servers on CPU 0.
  const child = spawn('taskset', ['-c', '1', process.execPath, self, ...args], {
    stdio: 'inherit',
    env: { ...process.env, GQL_HOT_PATH_PINNED: '1' },
  });
  child.once('exit', (code) => process.exit(code ?? 1));
} else {
  const duration = flag('duration', 10);
  const pairs = flag('pairs', 3);
  if (args[0] === 'profile') await profile(duration, args[1] === 'unique' ? 'unique' : 'cached');
  else if (args[0] === 'cpu') {
    const modes: Load[] = args[1] === 'cached' || args[1] === 'unique' ? [args[1]] : ['cached', 'unique'];
    for (const mode of modes) await compareCpu(mode, flag('requests', 20000), pairs);
  } else {
    const modes: Load[] = args[0] === 'cached' || args[0] === 'unique' ? [args[0]] : ['cached', 'unique'];
    for (const mode of modes) await compare(mode, duration, pairs);
  }
}
