/**
 * The production checklist of docs/guides/production.md: its complete configuration file (the JSON block) and the two commands that
 * run it, as written, from the project directory: the server starts in production on Redis, serves the issuer's
 * https URLs behind the proxy, knows both configured clients and no demo data, and never prints key material.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { redisAvailable } from '../helpers/redis.js';
import { rawRequest } from '../helpers/raw-http.js';
import { docPage, ROOT, runReadmeCommand, type ReadmeCommand } from '../helpers/readme-command.js';

const GUIDE = docPage('docs/guides/production.md');
const section = GUIDE.slice(GUIDE.indexOf('## Production checklist'));
const blockAfter = (fence: string, from: number) => {
  const start = section.indexOf(fence, from) + fence.length;
  return section.slice(start, section.indexOf('\n```', start));
};
const configJson = blockAfter('```json\n', 0);
const commands = blockAfter('```sh\n', section.indexOf('runs these lines as written'));
const CONFIG = join(ROOT, 'portcullis.config.json');
const SECRETS = join(ROOT, 'secrets');

let run: ReadmeCommand | undefined;
let haveRedis = false;

beforeAll(async () => {
  haveRedis = await redisAvailable();
  if (!haveRedis) return;
  run = await runReadmeCommand(commands, [CONFIG, SECRETS], () => writeFileSync(CONFIG, configJson));
}, 160_000);

afterAll(() => run?.stop());

test('the configuration block is JSON with two clients and secrets kept out of it', () => {
  const config = JSON.parse(configJson) as { clients: Array<{ client_id: string }>; keys: Record<string, unknown> };
  expect(config.clients.map((c) => c.client_id)).toEqual(['web', 'spa']);
  expect(config.keys.cookies).toBeUndefined();
  expect(commands).toMatch(/NODE_ENV=production .*npx portcullis start --config portcullis\.config\.json$/);
});

test('it starts in production behind the proxy with both clients, writes the keys 0600, prints no key', async () => {
  if (!haveRedis || !run) return;
  const output = run.output();
  expect(output).toContain('Portcullis listening');
  const base = `http://127.0.0.1:${run.port}`;
  const proxied = { host: 'id.example.com', 'x-forwarded-proto': 'https' };
  const discovery = await rawRequest(base, '/.well-known/openid-configuration', { headers: proxied });
  expect(discovery.status).toBe(200);
  expect(discovery.json()).toMatchObject({
    issuer: 'https://id.example.com',
    token_endpoint: 'https://id.example.com/token',
  });
  expect(discovery.headers['strict-transport-security']).toBe('max-age=31536000');
  const authorize = (clientId: string, redirectUri: string) =>
    rawRequest(
      base,
      `/authorization?${new URLSearchParams({
        client_id: clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'openid',
        state: 's',
        nonce: 'n',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      })}`,
      { headers: proxied },
    );
  for (const [id, uri] of [
    ['web', 'https://app.example.com/callback'],
    ['spa', 'https://spa.example.com/callback'],
  ] as const) {
    const res = await authorize(id, uri);
    expect([id, res.status, String(res.headers.location)]).toEqual([
      id,
      303,
      expect.stringMatching(/^\/interaction\//),
    ]);
  }
  expect((await authorize('demo-web', 'http://localhost:8080/callback')).status).toBe(400);
  const keysFile = join(SECRETS, 'jwks.json');
  expect(statSync(keysFile).mode & 0o777).toBe(0o600);
  for (const key of (JSON.parse(readFileSync(keysFile, 'utf8')) as { keys: Array<{ d: string }> }).keys)
    expect(output).not.toContain(key.d);
}, 30_000);
