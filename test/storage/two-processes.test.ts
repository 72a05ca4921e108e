import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCookieKey, generateSigningKeys } from '../../lib/index.js';
import { TestBrowser } from '../helpers/browser.js';
import { browse, relyingParty, startAuthorization } from '../helpers/flow.js';
import { deletePrefix, REDIS_URL, redisAvailable } from '../helpers/redis.js';
import { freePort } from '../helpers/server.js';
import { suiteIf } from '../helpers/skip.js';

/**
 * Two `npm start` processes (the built standalone server) on different PORTs with the same REDIS_URL,
 * PORTCULLIS_ISSUER, PORTCULLIS_SIGNING_KEYS and PORTCULLIS_COOKIE_KEYS, as behind a load balancer.
 */
const MAIN = fileURLToPath(new URL('../../dist/examples/standalone/main.js', import.meta.url));
const available = await redisAvailable();

function start(env: Record<string, string>): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH!, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`did not start:\n${output}`));
    }, 20000);
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening on/.test(output)) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.on('exit', () => {
      clearTimeout(timer);
      reject(new Error(`exited:\n${output}`));
    });
  });
}

async function token(base: string, params: Record<string, string>) {
  const res = await fetch(`${base}/token`, {
    method: 'POST',
    body: new URLSearchParams({ client_id: 'demo-web', client_secret: 'demo-web-secret', ...params }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

suiteIf(available, 'no Redis at REDIS_URL')('two standalone processes sharing Redis and keys', () => {
  const children: ChildProcess[] = [];
  const keyPrefix = `portcullis-two-proc-${process.pid}:`;
  let urlA: string;
  let urlB: string;

  beforeAll(async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    urlA = `http://127.0.0.1:${portA}`;
    urlB = `http://127.0.0.1:${portB}`;
    const dir = mkdtempSync(join(tmpdir(), 'portcullis-keys-'));
    const keysFile = join(dir, 'jwks.json');
    writeFileSync(keysFile, JSON.stringify(await generateSigningKeys(['RS256'])), { mode: 0o600 });
    const shared = {
      HOST: '127.0.0.1',
      REDIS_URL: `${REDIS_URL}`,
      PORTCULLIS_ISSUER: urlA,
      PORTCULLIS_SIGNING_KEYS: keysFile,
      PORTCULLIS_COOKIE_KEYS: generateCookieKey(),
      PORTCULLIS_CONFIG: join(dir, 'config.json'),
      // Behind a real load balancer both see the issuer's host; here B is also called under its own address.
      PORTCULLIS_ALLOWED_HOSTS: `127.0.0.1:${portB}`,
    };
    writeFileSync(shared.PORTCULLIS_CONFIG, JSON.stringify({ storage: { type: 'redis', url: REDIS_URL, keyPrefix } }));
    children.push(await start({ ...shared, PORT: String(portA) }));
    children.push(await start({ ...shared, PORT: String(portB) }));
  }, 45000);

  afterAll(async () => {
    for (const c of children) c.kill();
    await deletePrefix(keyPrefix);
  });

  test('authorize at A, exchange and refresh at B, GraphQL at A; a code used at A fails at B', async () => {
    const rp = await relyingParty(urlA);
    const startA = await startAuthorization(rp, { scope: 'openid offline_access catalog:admin' });
    const seen = await browse(new TestBrowser(urlA), startA.url, {
      email: 'admin@example.com',
      password: 'admin-demo-password',
    });
    const params = {
      grant_type: 'authorization_code',
      code: seen.callback.searchParams.get('code')!,
      redirect_uri: rp.redirectUri,
      code_verifier: startA.codeVerifier,
    };
    const exchanged = await token(urlB, params);
    expect(exchanged.status).toBe(200);
    const gql = await fetch(`${urlA}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${exchanged.body.access_token}` },
      body: '{"query":"{ product(id: 3) { name } }"}',
    });
    expect(await gql.json()).toEqual({ data: { product: { name: 'Prototype Drone' } } });
    const refreshed = await token(urlB, { grant_type: 'refresh_token', refresh_token: exchanged.body.refresh_token! });
    expect(refreshed.status).toBe(200);

    const again = await startAuthorization(rp);
    const seen2 = await browse(new TestBrowser(urlA), again.url);
    const p2 = {
      grant_type: 'authorization_code',
      code: seen2.callback.searchParams.get('code')!,
      redirect_uri: rp.redirectUri,
      code_verifier: again.codeVerifier,
    };
    expect((await token(urlA, p2)).status).toBe(200);
    const replay = await token(urlB, p2);
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  test('both publish the same signing keys', async () => {
    const a = await (await fetch(`${urlA}/.well-known/jwks.json`)).json();
    const b = await (await fetch(`${urlB}/.well-known/jwks.json`)).json();
    expect(b).toEqual(a);
  });
});

if (!available) test('two-process tests need Redis (see the warning above)', () => expect(available).toBe(false));
