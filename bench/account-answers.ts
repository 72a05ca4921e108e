/**
 * Measures whether the account pages answer known and unknown e-mail addresses in the same time (account
 * enumeration by timing). Prints median response times and their ratio; no assertion. Run after `npm run build`:
 * `node dist/bench/account-answers.js [rounds]`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from '../lib/index.js';
import { createLogger } from '../lib/core/logger.js';
import { demoFixtures } from '../examples/demo-fixtures.js';

const rounds = Number(process.argv[2] ?? 15);
const mailbox = await mkdtemp(join(tmpdir(), 'portcullis-bench-'));
const port = 39000 + Math.floor(Math.random() * 1000);
const issuer = `http://127.0.0.1:${port}`;
const many = { points: 100_000, durationSeconds: 3600 };
const server = await createServer({
  issuer,
  ...demoFixtures(),
  mail: { mailbox },
  logger: createLogger({ LOG_LEVEL: 'silent' }),
  accountLimits: { loginPerAccount: many, loginPerIp: many, mailPerAddress: many, mailPerIp: many },
});
await server.listen(port, '127.0.0.1');

async function post(path: string, fields: Record<string, string>): Promise<number> {
  const form = await fetch(`${issuer}${path}`);
  const cookie = form.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const started = performance.now();
  const res = await fetch(`${issuer}${path}`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, ...fields }),
  });
  await res.text();
  if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  return performance.now() - started;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function compare(name: string, known: () => Promise<number>, unknown: () => Promise<number>) {
  const a: number[] = [];
  const b: number[] = [];
  await known();
  await unknown(); // warm-up
  for (let i = 0; i < rounds; i++) {
    a.push(await known());
    b.push(await unknown());
  }
  const [ma, mb] = [median(a), median(b)];
  console.log(
    `${name.padEnd(34)} known ${ma.toFixed(1).padStart(7)} ms   unknown ${mb.toFixed(1).padStart(7)} ms   ratio ${(ma / mb).toFixed(2)}`,
  );
}

let n = 0;
const signup = (email: string) =>
  post('/account/signup', { given_name: 'B', family_name: 'B', email, password: 'a long enough password' });
await compare(
  'sign-up (taken vs new address)',
  () => signup('alice@example.com'),
  () => signup(`new${n++}@example.org`),
);
await compare(
  'reset request (known vs unknown)',
  () => post('/account/reset', { email: 'alice@example.com' }),
  () => post('/account/reset', { email: 'nobody@example.org' }),
);
await compare(
  'resend (unverified-known vs unknown)',
  () => post('/account/resend', { email: 'new0@example.org' }),
  () => post('/account/resend', { email: 'nobody@example.org' }),
);

await server.close();
await rm(mailbox, { recursive: true, force: true });
