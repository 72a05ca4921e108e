import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DEFAULT_SIGNING_ALGORITHMS, generateSigningKeys, type SigningAlgorithm } from '../oidc/keys.js';
import { UsageError, type CommandIo } from './io.js';

const KNOWN = new Set<string>(['RS256', 'ES256', 'EdDSA']);

/**
 * `portcullis keys [--alg RS256,ES256,EdDSA] [--out <file>] [--force]`: a fresh private JWKS (one key per algorithm,
 * RS256 first, each with `kid`, `use` and `alg`) for `keys.signing` / `PORTCULLIS_SIGNING_KEYS`. Printed, or with
 * `--out` written to the file with mode 0600, creating its directory (mode 0700); an existing file is kept
 * unless `--force`.
 *
 * @throws {UsageError} for an unknown argument or algorithm, or an existing `--out` file without `--force`.
 */
export async function keysCommand(args: string[], io: CommandIo): Promise<number> {
  let algorithms: SigningAlgorithm[] = [...DEFAULT_SIGNING_ALGORITHMS];
  let out: string | undefined;
  let force = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--force') {
      force = true;
      continue;
    }
    const [name, inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg, undefined];
    if (name !== '--alg' && name !== '--out') throw new UsageError(`unknown argument ${arg}`);
    const value = inline ?? args[++i];
    if (value === undefined || value === '') throw new UsageError(`${name} needs a value`);
    if (name === '--out') {
      out = value;
      continue;
    }
    const list = value.split(',').filter(Boolean);
    const bad = list.find((a) => !KNOWN.has(a));
    if (bad || list.length === 0)
      throw new UsageError(`unsupported algorithm ${JSON.stringify(bad ?? value)}: use RS256, ES256 or EdDSA`);
    algorithms = list as SigningAlgorithm[];
  }
  const text = `${JSON.stringify(await generateSigningKeys(algorithms), null, 2)}\n`;
  if (!out) {
    io.stdout(text);
    return 0;
  }
  const file = resolve(out);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(file, text, { mode: 0o600, flag: force ? 'w' : 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST')
      throw new UsageError(`${out} exists: keep it (it signs live tokens) or pass --force to replace it`);
    throw err;
  }
  chmodSync(file, 0o600); // an existing file replaced with --force keeps its old mode otherwise
  io.stderr(
    `wrote ${algorithms.length} private signing key(s) to ${file} (mode 0600): set keys.signing or ` +
      `PORTCULLIS_SIGNING_KEYS to this path\n`,
  );
  return 0;
}
