import { spawn } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { redisAvailable } from '../helpers/redis.js';
import { rawRequest } from '../helpers/raw-http.js';
import { freePort } from '../helpers/server.js';

/** The README's production command, run as written (from the project directory, as the README says). */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const marker = readme.indexOf('runs these lines as written');
const block = readme.slice(readme.indexOf('```sh\n', marker) + 6, readme.indexOf('\n```', readme.indexOf('```sh\n', marker)));
const KEYS = join(ROOT, 'jwks.json');
const BACKUP = join(ROOT, 'jwks.json.before-readme-test');

let port: number;
let output = '';
let child: ReturnType<typeof spawn> | undefined;
let haveRedis = false;

beforeAll(async () => {
  haveRedis = await redisAvailable();
  if (!haveRedis) return;
  if (existsSync(KEYS)) renameSync(KEYS, BACKUP);
  port = await freePort();
  // Only the listening address is added around the command: HOST and PORT are not part of it.
  child = spawn('bash', ['-c', block], { cwd: ROOT, detached: true, env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', NODE_ENV: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (c: Buffer) => { output += c.toString(); });
  child.stderr!.on('data', (c: Buffer) => { output += c.toString(); });
  const deadline = Date.now() + 150_000;
  while (!/Portcullis listening|failed to start/.test(output) && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 200));
}, 160_000);

afterAll(() => {
  if (child?.pid) { try { process.kill(-child.pid, 'SIGTERM'); } catch { /* already gone */ } }
  rmSync(KEYS, { force: true });
  if (existsSync(BACKUP)) renameSync(BACKUP, KEYS);
});

test('the block is the production command with storage, proxy and keys', () => {
  expect(block).toMatch(/NODE_ENV=production/);
  expect(block).toMatch(/REDIS_URL=|PORTCULLIS_STORAGE=/);
  expect(block).toMatch(/npm start$/);
});

test('it starts, serves https issuer URLs behind the proxy and no demo data', async () => {
  if (!haveRedis) return;
  expect(output).toContain('Portcullis listening');
  const base = `http://127.0.0.1:${port}`;
  const discovery = await rawRequest(base, '/.well-known/openid-configuration', { headers: { host: 'id.example.com', 'x-forwarded-proto': 'https' } });
  expect(discovery.status).toBe(200);
  expect(discovery.json()).toMatchObject({ issuer: 'https://id.example.com', token_endpoint: 'https://id.example.com/token' });
  expect(discovery.headers['strict-transport-security']).toBe('max-age=31536000');

  const plain = await rawRequest(base, '/.well-known/openid-configuration', { headers: { host: 'id.example.com', accept: 'application/json' } });
  expect(plain.status).toBe(400);
  expect(plain.text).toMatch(/proxy/);

  const otherHost = await rawRequest(base, '/.well-known/openid-configuration', { headers: { host: `127.0.0.1:${port}`, 'x-forwarded-proto': 'https' } });
  expect(otherHost.status).toBe(421);

  const graphql = await rawRequest(base, '/graphql', { method: 'POST', headers: { host: 'id.example.com', 'x-forwarded-proto': 'https', 'content-type': 'application/json' }, body: '{"query":"{ products { name } }"}' });
  expect(graphql.status).toBe(404);
  expect(output).not.toMatch(/demo-web|alice@example\.com/);

  const keys = JSON.parse(readFileSync(KEYS, 'utf8')) as { keys: Array<{ d: string }> };
  for (const key of keys.keys) expect(output).not.toContain(key.d);
}, 30_000);
