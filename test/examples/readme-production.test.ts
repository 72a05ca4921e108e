import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { redisAvailable } from '../helpers/redis.js';
import { rawRequest } from '../helpers/raw-http.js';
import { docPage, ROOT, runReadmeCommand, type ReadmeCommand } from '../helpers/readme-command.js';

/** The production command of docs/guides/production.md ("Keys"), run as written (from the project directory, as it says). */

const GUIDE = docPage('docs/guides/production.md');
const marker = GUIDE.indexOf('runs these lines as written', GUIDE.indexOf('## Keys'));
const block = GUIDE.slice(
  GUIDE.indexOf('```sh\n', marker) + 6,
  GUIDE.indexOf('\n```', GUIDE.indexOf('```sh\n', marker)),
);
const KEYS = join(ROOT, 'jwks.json');
const CONFIG = join(ROOT, 'portcullis.config.json');

let run: ReadmeCommand | undefined;
let haveRedis = false;

beforeAll(async () => {
  haveRedis = await redisAvailable();
  // docs/guides/production.md: "a file holding `{}` starts a server with neither" (clients nor accounts).
  if (haveRedis) run = await runReadmeCommand(block, [KEYS, CONFIG], () => writeFileSync(CONFIG, '{}'));
}, 160_000);

afterAll(() => run?.stop());

test('the block is the production command with storage, proxy and keys', () => {
  expect(block).toMatch(/NODE_ENV=production/);
  expect(block).toMatch(/REDIS_URL=|PORTCULLIS_STORAGE=/);
  // From the built package (issue 28): `npm start` needed the dev dependencies (tsc) in production.
  expect(block).toMatch(/npx portcullis start --config portcullis\.config\.json$/);
  expect(block).not.toMatch(/npm start/);
});

test('it starts, serves https issuer URLs behind the proxy and no demo data', async () => {
  if (!haveRedis || !run) return;
  const output = run.output();
  expect(output).toContain('Portcullis listening');
  const base = `http://127.0.0.1:${run.port}`;
  const discovery = await rawRequest(base, '/.well-known/openid-configuration', {
    headers: { host: 'id.example.com', 'x-forwarded-proto': 'https' },
  });
  expect(discovery.status).toBe(200);
  expect(discovery.json()).toMatchObject({
    issuer: 'https://id.example.com',
    token_endpoint: 'https://id.example.com/token',
  });
  expect(discovery.headers['strict-transport-security']).toBe('max-age=31536000');

  const plain = await rawRequest(base, '/.well-known/openid-configuration', {
    headers: { host: 'id.example.com', accept: 'application/json' },
  });
  expect(plain.status).toBe(400);
  expect(plain.text).toMatch(/proxy/);

  const otherHost = await rawRequest(base, '/.well-known/openid-configuration', {
    headers: { host: `127.0.0.1:${run.port}`, 'x-forwarded-proto': 'https' },
  });
  expect(otherHost.status).toBe(421);

  const graphql = await rawRequest(base, '/graphql', {
    method: 'POST',
    headers: { host: 'id.example.com', 'x-forwarded-proto': 'https', 'content-type': 'application/json' },
    body: '{"query":"{ products { name } }"}',
  });
  expect(graphql.status).toBe(404);
  expect(output).not.toMatch(/demo-web|alice@example\.com/);

  const keys = JSON.parse(readFileSync(KEYS, 'utf8')) as { keys: Array<{ d: string }> };
  for (const key of keys.keys) expect(output).not.toContain(key.d);
}, 30_000);
