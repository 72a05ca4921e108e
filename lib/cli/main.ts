#!/usr/bin/env node
/**
 * `portcullis` command line (package.json `bin`):
 *
 * - `portcullis keys [--alg RS256,ES256,EdDSA] [--out <file>] [--force]`: a new private JWKS (see {@link keysCommand});
 * - `portcullis cookie-key`: a random secret for `keys.cookies` / `PORTCULLIS_COOKIE_KEYS`;
 * - `portcullis hash-password`: the hash of a password read from standard input, for `accounts[].passwordHash`
 *   (see `hashPasswordCommand`);
 * - `portcullis start --config <file>`: runs a server from a configuration file (or `PORTCULLIS_CONFIG`) and the
 *   environment (see {@link startCommand});
 * - `portcullis doctor [--config <file>] [--url <issuer>]`: checks a configuration (the file with the environment
 *   variables `start` applies on top, so the one `start` would run) and a deployment; exit status 1 when a problem
 *   is found (see {@link diagnose}).
 *
 * Exit status 2 for a usage mistake. The commands are in lib/cli/run.ts (`run`, which tests call in-process with an
 * environment of their own); this file only runs them on `process.argv` and sets the exit status.
 */
import type { CommandIo } from './io.js';
import { run } from './run.js';

const io: CommandIo = { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) };
process.exitCode = await run(process.argv.slice(2), io);
