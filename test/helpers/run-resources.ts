import { readFileSync } from 'node:fs';
import type { PrivateJwks } from '../../config/types.js';
import { DEFAULT_SIGNING_ALGORITHMS, generateSigningKeys } from '../../lib/oidc/keys.js';
import { CHROMIUM_WS_ENV, SIGNING_KEYS_ENV } from './global-setup.js';

/**
 * What the whole test run shares, made once by test/helpers/global-setup.ts before the workers start and passed to
 * them in environment variables (set in jest's parent process, inherited by every worker):
 * - a signing key set like development's ephemeral one (RS256, ES256 and EdDSA, from `generateSigningKeys`):
 *   generating it costs 50-500 ms (the RSA key), and the suite starts about 200 servers;
 * - one Chromium (playwright-core `launchServer`), which the browser tests connect to, each with its own contexts.
 * When a variable is unset (a runner without the global setup), the helpers generate or launch their own.
 */

let signingKeys: PrivateJwks | undefined;

/** The run's signing key set (the JSON file named by PORTCULLIS_TEST_SIGNING_KEYS), or `undefined` without one. */
export function runSigningKeys(): PrivateJwks | undefined {
  const file = process.env[SIGNING_KEYS_ENV];
  if (!file) return undefined;
  signingKeys ??= JSON.parse(readFileSync(file, 'utf8')) as PrivateJwks;
  return signingKeys;
}

/**
 * Signing keys for a test that needs some but is not about them (a production configuration): the run's set, or,
 * without one, a new set of the same algorithms.
 */
export async function testSigningKeys(): Promise<PrivateJwks> {
  return runSigningKeys() ?? (await generateSigningKeys(DEFAULT_SIGNING_ALGORITHMS));
}

/** The WebSocket endpoint of the run's Chromium, or `undefined` without one. */
export function runChromiumEndpoint(): string | undefined {
  return process.env[CHROMIUM_WS_ENV] || undefined;
}
