import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCookieKey, generateSigningKeys } from '../../lib/index.js';
import { freePort } from '../helpers/server.js';

const MAIN = fileURLToPath(new URL('../../dist/examples/standalone/main.js', import.meta.url));

/** Runs the built standalone server (what `npm start` runs) until `until` sees its output or it exits. */
function run(
  env: Record<string, string>,
  until: RegExp,
): Promise<{ output: string; code: number | null; stop: () => void }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH!, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`timed out; output so far:\n${output}`));
    }, 20000);
    const check = (chunk: Buffer) => {
      output += chunk.toString();
      if (until.test(output)) {
        clearTimeout(timer);
        resolve({ output, code: null, stop: () => child.kill() });
      }
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ output, code, stop: () => {} });
    });
  });
}

test('npm start: the demo server listens on PORT with issuer http://localhost:PORT and prints the fixtures', async () => {
  const port = await freePort();
  const run1 = await run({ PORT: String(port), HOST: '127.0.0.1' }, /initial access token/);
  try {
    expect(run1.output).toContain(`issuer http://localhost:${port}`);
    expect(run1.output).toContain('demo-web / demo-web-secret');
    expect(run1.output).toContain('alice@example.com / alice-demo-password');
    // Node prints a deprecation (e.g. of oidc-provider's `provider.app`) on stderr: a new user's first start shows none.
    expect(run1.output).not.toMatch(/DeprecationWarning|ExperimentalWarning|\(node:\d+\)/);
    // The server answers for its issuer's host (localhost:PORT), whatever address it listens on.
    const discovery = (await (await fetch(`http://localhost:${port}/.well-known/openid-configuration`)).json()) as {
      issuer: string;
    };
    expect(discovery.issuer).toBe(`http://localhost:${port}`);
    expect((await fetch(`http://127.0.0.1:${port}/.well-known/openid-configuration`)).status).toBe(421);
    const gql = await fetch(`http://localhost:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query":"{ products { name } }"}',
    });
    expect(((await gql.json()) as { data: { products: unknown[] } }).data.products).toHaveLength(3);
  } finally {
    run1.stop();
  }
});

test('PORTCULLIS_CONFIG that sets only graphql.introspection merges deeply: introspection works and the demo API stays', async () => {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-standalone-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ graphql: { introspection: { enabled: true } } }));
  const started = await run(
    { PORT: String(port), HOST: '127.0.0.1', PORTCULLIS_CONFIG: join(dir, 'config.json') },
    /initial access token|failed/,
  );
  try {
    const post = (query: string) =>
      fetch(`http://localhost:${port}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
    const schema = (await (await post('{ __schema { queryType { name } } }')).json()) as {
      data: { __schema: { queryType: { name: string } } };
    };
    expect(schema.data.__schema.queryType.name).toBe('Query');
    expect(
      ((await (await post('{ products { name } }')).json()) as { data: { products: unknown[] } }).data.products,
    ).toHaveLength(3);
  } finally {
    started.stop();
  }
});

test('NODE_ENV=production without keys refuses to start and lists every refusal at once, with its variable', async () => {
  const port = await freePort();
  const result = await run(
    { PORT: String(port), NODE_ENV: 'production', PORTCULLIS_ISSUER: 'http://id.example' },
    /failed to start/,
  );
  expect(result.output).toMatch(/ERR_CONFIG_INSECURE/);
  for (const [path, variable] of [
    ['keys.signing', 'PORTCULLIS_SIGNING_KEYS'],
    ['keys.cookies', 'PORTCULLIS_COOKIE_KEYS'],
    ['storage.type', 'PORTCULLIS_STORAGE'],
    ['issuer', 'PORTCULLIS_ISSUER'],
  ]) {
    expect(result.output).toContain(`"${path}"`);
    expect(result.output).toContain(variable!);
  }
});

describe('signing keys given inline or by path never appear in any output', () => {
  let jwks: { keys: Array<Record<string, string>> };
  let privateMembers: string[];
  beforeAll(async () => {
    jwks = (await generateSigningKeys(['RS256', 'ES256'])) as unknown as typeof jwks;
    privateMembers = jwks.keys.flatMap((k) =>
      ['d', 'p', 'q', 'dp', 'dq', 'qi'].map((m) => k[m]).filter((v): v is string => typeof v === 'string'),
    );
  });
  const production = (keys: string) => ({
    NODE_ENV: 'production',
    PORTCULLIS_ISSUER: 'https://id.example',
    PORTCULLIS_STORAGE: 'memory',
    PORTCULLIS_COOKIE_KEYS: generateCookieKey(),
    PORTCULLIS_MFA_KEY: generateCookieKey(),
    PORTCULLIS_SIGNING_KEYS: keys,
  });

  test('PORTCULLIS_SIGNING_KEYS="$(cat jwks.json)" (the key set itself) starts the server and publishes its public keys', async () => {
    const port = await freePort();
    const started = await run(
      {
        ...production(JSON.stringify(jwks, null, 2)),
        PORT: String(port),
        HOST: '127.0.0.1',
        PORTCULLIS_PROXY: 'true',
        PORTCULLIS_ALLOWED_HOSTS: `127.0.0.1:${port}`,
      },
      /listening|failed/,
    );
    try {
      expect(started.output).toContain('Portcullis listening');
      const res = await fetch(`http://127.0.0.1:${port}/.well-known/jwks.json`, {
        headers: { 'x-forwarded-proto': 'https' },
      });
      const published = (await res.json()) as { keys: Array<{ kid: string; d?: string }> };
      expect(published.keys.map((k) => k.kid)).toEqual(jwks.keys.map((k) => k.kid));
      expect(published.keys.every((k) => k.d === undefined)).toBe(true);
      for (const secret of privateMembers) expect(started.output).not.toContain(secret);
    } finally {
      started.stop();
    }
  });

  test.each([
    ['inline JSON with a syntax error', (s: string) => `${s.slice(0, -2)} oops}`, /not valid JSON/],
    [
      'inline JSON that is not a key set',
      (s: string) => JSON.stringify({ notkeys: JSON.parse(s).keys }),
      /not a private JWKS/,
    ],
    [
      'inline public keys with a private member misplaced',
      (s: string) =>
        JSON.stringify({ keys: JSON.parse(s).keys.map((k: Record<string, string>) => ({ kty: k.kty, secret: k.d })) }),
      /not a private JWKS/,
    ],
    [
      'a file with broken JSON',
      (s: string) => {
        const dir = mkdtempSync(join(tmpdir(), 'portcullis-keys-'));
        writeFileSync(join(dir, 'jwks.json'), `${s.slice(0, -2)},,}`);
        return join(dir, 'jwks.json');
      },
      /not valid JSON/,
    ],
  ])('%s is refused without echoing key material', async (_name, make, message) => {
    const result = await run(
      { ...production(make(JSON.stringify(jwks))), PORT: String(await freePort()) },
      /failed to start/,
    );
    expect(result.output).toMatch(message);
    expect(result.output).toMatch(/keys\.signing/);
    for (const secret of privateMembers) expect(result.output).not.toContain(secret);
    expect(result.output).not.toContain('"kty"');
  });

  test('a PORTCULLIS_CONFIG file with broken JSON is refused without quoting its contents (client secrets)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portcullis-config-'));
    writeFileSync(
      join(dir, 'config.json'),
      '{"clients":[{"client_id":"a","client_secret":"very-secret-value-0123456789",}]}',
    );
    const result = await run(
      { PORTCULLIS_CONFIG: join(dir, 'config.json'), PORT: String(await freePort()) },
      /failed to start/,
    );
    expect(result.output).toMatch(/PORTCULLIS_CONFIG.*not valid JSON/);
    expect(result.output).not.toContain('very-secret-value');
  });
});

test('PORTCULLIS_PROXY accepts true/false and refuses anything else', async () => {
  const result = await run({ PORTCULLIS_PROXY: 'maybe', PORT: String(await freePort()) }, /failed to start/);
  expect(result.output).toMatch(/PORTCULLIS_PROXY.*true or false/);
});
