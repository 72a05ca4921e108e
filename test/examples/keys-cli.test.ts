import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rawRequest } from '../helpers/raw-http.js';
import { freePort } from '../helpers/server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
const CLI = join(ROOT, pkg.bin.portcullis!);
const MAIN = join(ROOT, 'dist/examples/standalone/main.js');

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('npx portcullis keys', () => {
  test('the package bin is the built CLI with a node shebang', () => {
    expect(readFileSync(CLI, 'utf8').startsWith('#!/usr/bin/env node')).toBe(true);
    // Executable after `npm run build`: `npx portcullis` in a checkout runs the file itself.
    expect(statSync(CLI).mode & 0o111).toBe(0o111);
  });

  test('prints a private JWKS: RS256 first, then ES256 and EdDSA, each with kid, use and alg', () => {
    const { code, stdout } = cli('keys');
    expect(code).toBe(0);
    const jwks = JSON.parse(stdout) as { keys: Array<Record<string, string>> };
    expect(jwks.keys.map((k) => [k.alg, k.kty, k.use])).toEqual([
      ['RS256', 'RSA', 'sig'],
      ['ES256', 'EC', 'sig'],
      ['EdDSA', 'OKP', 'sig'],
    ]);
    for (const key of jwks.keys) {
      expect(key.d).toEqual(expect.any(String));
      expect(key.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
    expect(JSON.parse(cli('keys').stdout).keys[0].kid).not.toBe(jwks.keys[0]!.kid);
  });

  test.each([
    [['keys', '--alg', 'ES256'], 0, ['ES256']],
    [['keys', '--alg=EdDSA,RS256'], 0, ['EdDSA', 'RS256']],
  ])('%j selects algorithms', (args, code, algs) => {
    const r = cli(...args);
    expect(r.code).toBe(code);
    expect((JSON.parse(r.stdout) as { keys: Array<{ alg: string }> }).keys.map((k) => k.alg)).toEqual(algs);
  });

  test.each([
    [['keys', '--alg', 'HS256'], /unsupported algorithm "HS256"/],
    [['keys', '--bogus'], /unknown argument --bogus/],
    [['frobnicate'], /usage:/],
  ])('%j fails with a message and exit code 2', (args, message) => {
    const r = cli(...args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
  });

  test('--out writes the JWKS with mode 0600, creating the directory; an existing file is kept unless --force', () => {
    const dir = mkdtempSync(join(tmpdir(), 'portcullis-keys-'));
    const file = join(dir, 'secrets', 'jwks.json');
    const first = cli('keys', '--out', file);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe('');
    expect(first.stderr).toMatch(/wrote 3 private signing key\(s\) to .*jwks\.json \(mode 0600\)/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'secrets')).mode & 0o777).toBe(0o700);
    const kid = (JSON.parse(readFileSync(file, 'utf8')) as { keys: Array<{ kid: string }> }).keys[0]!.kid;
    const again = cli('keys', '--out', file);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/exists: keep it .* or pass --force/);
    expect((JSON.parse(readFileSync(file, 'utf8')) as { keys: Array<{ kid: string }> }).keys[0]!.kid).toBe(kid);
    chmodSync(file, 0o644);
    expect(cli('keys', '--out', file, '--force', '--alg', 'ES256').code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((JSON.parse(readFileSync(file, 'utf8')) as { keys: Array<{ alg: string }> }).keys.map((k) => k.alg)).toEqual(
      ['ES256'],
    );
  });

  test('cookie-key prints a 32-byte random secret', () => {
    const { code, stdout } = cli('cookie-key');
    expect(code).toBe(0);
    expect(stdout.trim()).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  test('the standalone server in production runs on PORTCULLIS_SIGNING_KEYS and PORTCULLIS_COOKIE_KEYS', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portcullis-cli-'));
    const keysFile = join(dir, 'jwks.json');
    writeFileSync(keysFile, cli('keys').stdout, { mode: 0o600 });
    const cookieKeys = `${cli('cookie-key').stdout.trim()},${cli('cookie-key').stdout.trim()}`;
    const port = await freePort();
    const child = spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env.PATH!,
        PORT: String(port),
        HOST: '127.0.0.1',
        NODE_ENV: 'production',
        PORTCULLIS_ISSUER: 'https://id.example',
        PORTCULLIS_SIGNING_KEYS: keysFile,
        PORTCULLIS_COOKIE_KEYS: cookieKeys,
        PORTCULLIS_MFA_KEY: cli('cookie-key').stdout.trim(),
        PORTCULLIS_STORAGE: 'memory',
        PORTCULLIS_PROXY: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let output = '';
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no start; output:\n${output}`)), 20000);
        const seen = (chunk: Buffer) => {
          output += chunk.toString();
          if (/listening/.test(output)) {
            clearTimeout(timer);
            resolve();
          }
        };
        child.stdout.on('data', seen);
        child.stderr.on('data', seen);
        child.on('exit', () => {
          clearTimeout(timer);
          reject(new Error(`exited; output:\n${output}`));
        });
      });
      expect(output).not.toMatch(/ephemeral/);
      // As a TLS-terminating proxy would forward it: the issuer's host, X-Forwarded-Proto https.
      const published = (
        await rawRequest(`http://127.0.0.1:${port}`, '/.well-known/jwks.json', {
          headers: { host: 'id.example', 'x-forwarded-proto': 'https' },
        })
      ).json<{ keys: Array<{ kid: string; d?: string }> }>();
      const configured = (JSON.parse(readFileSync(keysFile, 'utf8')) as { keys: Array<{ kid: string }> }).keys.map(
        (k) => k.kid,
      );
      expect(published.keys.map((k) => k.kid).sort()).toEqual([...configured].sort());
      expect(published.keys.every((k) => k.d === undefined)).toBe(true);
    } finally {
      child.kill();
    }
  });
});
