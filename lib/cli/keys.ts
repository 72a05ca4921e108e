#!/usr/bin/env node
/**
 * `portcullis` command line (package.json `bin`).
 *
 * - `portcullis keys [--alg RS256,ES256,EdDSA]` prints a fresh private JWKS (one key per algorithm, RS256 first)
 *   for `keys.signing` / `PORTCULLIS_SIGNING_KEYS`.
 * - `portcullis cookie-key` prints a random secret for `keys.cookies` / `PORTCULLIS_COOKIE_KEYS`.
 */
import { DEFAULT_SIGNING_ALGORITHMS, generateCookieKey, generateSigningKeys, type SigningAlgorithm } from '../oidc/keys.js';

const USAGE = `usage:
  portcullis keys [--alg RS256,ES256,EdDSA]   print a new private JWKS (keep it secret)
  portcullis cookie-key                       print a new cookie-signing secret`;
const KNOWN = new Set<string>(['RS256', 'ES256', 'EdDSA']);

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'cookie-key' && rest.length === 0) {
    process.stdout.write(`${generateCookieKey()}\n`);
    return 0;
  }
  if (command !== 'keys') {
    process.stderr.write(`${USAGE}\n`);
    return command === undefined || command === '--help' || command === '-h' ? 0 : 2;
  }
  let algorithms: SigningAlgorithm[] = [...DEFAULT_SIGNING_ALGORITHMS];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    const value = arg.startsWith('--alg=') ? arg.slice(6) : arg === '--alg' ? rest[++i] : undefined;
    if (value === undefined) {
      process.stderr.write(`unknown argument ${arg}\n${USAGE}\n`);
      return 2;
    }
    const list = value.split(',').filter(Boolean);
    const bad = list.find((a) => !KNOWN.has(a));
    if (bad || list.length === 0) {
      process.stderr.write(`unsupported algorithm ${JSON.stringify(bad ?? value)}: use RS256, ES256 or EdDSA\n`);
      return 2;
    }
    algorithms = list as SigningAlgorithm[];
  }
  process.stdout.write(`${JSON.stringify(await generateSigningKeys(algorithms), null, 2)}\n`);
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
