import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';

// Jest loads this file outside its module map (no `.js` to `.ts` mapping), so it imports packages only; the test
// helpers import their constants from here.

/** The environment variable naming the run's signing key file (JSON). */
export const SIGNING_KEYS_ENV = 'PORTCULLIS_TEST_SIGNING_KEYS';
/** The environment variable holding the WebSocket endpoint of the run's Chromium. */
export const CHROMIUM_WS_ENV = 'PORTCULLIS_TEST_CHROMIUM_WS';
/** Debian's Chromium (`.ci/run` installs it), or CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** The flags this machine's closed network needs. */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Flags of the run's one Chromium on top of {@link CHROMIUM_ARGS}, for the files that ask for them: `*.example.test`
 * resolves to 127.0.0.1 (test/browser/csrf-cookie-tossing.test.ts; no other test names such a host).
 */
export const RUN_CHROMIUM_EXTRA_ARGS: readonly string[] = ['--host-resolver-rules=MAP *.example.test 127.0.0.1'];

/** What `generateSigningKeys(DEFAULT_SIGNING_ALGORITHMS)` makes (lib/oidc/keys.ts): RS256 (2048-bit), ES256, EdDSA. */
async function signingKeys() {
  const keys = [];
  for (const alg of ['RS256', 'ES256', 'EdDSA']) {
    const { privateKey } = await generateKeyPair(alg, {
      extractable: true,
      ...(alg === 'RS256' ? { modulusLength: 2048 } : {}),
    });
    const jwk = await exportJWK(privateKey);
    keys.push({ ...jwk, kid: await calculateJwkThumbprint(jwk), use: 'sig', alg });
  }
  return { keys };
}

/**
 * Jest globalSetup: makes what the whole run shares (see test/helpers/run-resources.ts) and passes it to the
 * workers in environment variables (set here in jest's parent process, inherited by every worker).
 */
export default async function globalSetup(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-test-run-'));
  const keysFile = join(dir, 'signing-keys.json');
  writeFileSync(keysFile, JSON.stringify(await signingKeys()), { mode: 0o600 });
  process.env[SIGNING_KEYS_ENV] = keysFile;
  // Node's compile cache for the node processes the tests spawn (the CLI, the examples, createServer in a child):
  // each loads the library, and the cache saves about a sixth of that (1.0 s of CPU down to 0.83 s, measured)
  process.env.NODE_COMPILE_CACHE ??= join(dir, 'node-compile-cache');
  const shared = globalThis as { portcullisChromium?: { close(): Promise<void> }; portcullisRunDir?: string };
  shared.portcullisRunDir = dir;
  if (existsSync(CHROMIUM)) {
    const { chromium } = await import('playwright-core');
    const server = await chromium.launchServer({
      executablePath: CHROMIUM,
      args: [...CHROMIUM_ARGS, ...RUN_CHROMIUM_EXTRA_ARGS],
    });
    process.env[CHROMIUM_WS_ENV] = server.wsEndpoint();
    shared.portcullisChromium = server;
  }
}
