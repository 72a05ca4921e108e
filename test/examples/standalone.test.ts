import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../helpers/server.js';

const MAIN = fileURLToPath(new URL('../../dist/examples/standalone/main.js', import.meta.url));

/** Runs the built standalone server (what `npm start` runs) until `until` sees its output or it exits. */
function run(env: Record<string, string>, until: RegExp): Promise<{ output: string; code: number | null; stop: () => void }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH!, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => { child.kill(); reject(new Error(`timed out; output so far:\n${output}`)); }, 20000);
    const check = (chunk: Buffer) => {
      output += chunk.toString();
      if (until.test(output)) { clearTimeout(timer); resolve({ output, code: null, stop: () => child.kill() }); }
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.on('exit', (code) => { clearTimeout(timer); resolve({ output, code, stop: () => {} }); });
  });
}

test('npm start: the demo server listens on PORT with issuer http://localhost:PORT and prints the fixtures', async () => {
  const port = await freePort();
  const run1 = await run({ PORT: String(port), HOST: '127.0.0.1' }, /initial access token/);
  try {
    expect(run1.output).toContain(`issuer http://localhost:${port}`);
    expect(run1.output).toContain('demo-web / demo-web-secret');
    expect(run1.output).toContain('alice@example.com / alice-demo-password');
    const discovery = await (await fetch(`http://127.0.0.1:${port}/.well-known/openid-configuration`)).json() as { issuer: string };
    expect(discovery.issuer).toBe(`http://localhost:${port}`);
    const gql = await fetch(`http://127.0.0.1:${port}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ products { name } }"}' });
    expect((await gql.json() as { data: { products: unknown[] } }).data.products).toHaveLength(3);
  } finally {
    run1.stop();
  }
});

test('NODE_ENV=production without keys refuses to start and says what to set', async () => {
  const port = await freePort();
  const result = await run({ PORT: String(port), NODE_ENV: 'production', PORTCULLIS_ISSUER: 'https://id.example' }, /failed to start/);
  expect(result.output).toMatch(/keys\.signing/);
  expect(result.output).toMatch(/ERR_CONFIG_INSECURE/);
});
