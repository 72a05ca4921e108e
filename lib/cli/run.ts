/** The `portcullis` commands (see lib/cli/main.ts, the executable that runs them on `process.argv`). */
import { generateCookieKey } from '../oidc/keys.js';
import { UsageError, parseOptions, type CommandIo } from './io.js';
import { keysCommand } from './keys.js';
import { ConfigError } from '../core/errors.js';

export const USAGE = `usage:
  portcullis keys [--alg RS256,ES256,EdDSA] [--out FILE] [--force]
                        print a new private JWKS, or write it to FILE with mode 0600
  portcullis cookie-key print a new cookie-signing secret
  portcullis hash-password
                        print the hash (accounts[].passwordHash) of the password read from standard input
  portcullis start --config FILE.json|FILE.js
                        run a server from a configuration file (or PORTCULLIS_CONFIG=FILE) and the
                        environment; without PORT it listens on the port of an http://localhost issuer
  portcullis doctor [--config FILE.json|FILE.js] [--url https://id.example.com]
                        check a configuration (with the environment variables start applies) and a
                        running deployment; exit 1 on a problem`;

/**
 * Runs one command line with the environment `env` (the `PORTCULLIS_*` variables, `REDIS_URL`, `PORT` and
 * `NODE_ENV` that `start` and `doctor` read); resolves to the exit status. `start` and `doctor` load the server
 * (oidc-provider, Apollo, ioredis, ...) when they run, so `keys` and `cookie-key` start without it (0.13-0.17 s of
 * CPU instead of 1 s, measured on Node 22).
 */
export async function run(argv: string[], io: CommandIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'keys':
        return await keysCommand(rest, io);
      case 'cookie-key':
        if (rest.length) throw new UsageError(`unknown argument ${rest[0]}`);
        io.stdout(`${generateCookieKey()}\n`);
        return 0;
      case 'hash-password':
        return await (await import('./hash-password.js')).hashPasswordCommand(rest, io);
      case 'start':
        return await (await import('./start.js')).startCommand(rest, io, env);
      case 'doctor': {
        const [{ readConfigFile }, { diagnose, formatFindings }, { settingsFromEnvironment }] = await Promise.all([
          import('./config-file.js'),
          import('./doctor.js'),
          import('./environment.js'),
        ]);
        const opts = parseOptions(rest, ['--config', '--url']);
        if (!opts.config && !opts.url) throw new UsageError('doctor needs --config, --url or both');
        // The configuration `portcullis start` would run: the file with the same environment variables on top.
        const config =
          typeof opts.config === 'string'
            ? settingsFromEnvironment(env, { file: await readConfigFile(opts.config) }).config
            : undefined;
        const findings = await diagnose({ config, env, url: typeof opts.url === 'string' ? opts.url : undefined });
        io.stdout(`${formatFindings(findings)}\n`);
        return findings.some((f) => f.level === 'problem') ? 1 : 0;
      }
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        io.stderr(`${USAGE}\n`);
        return 0;
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`${err.message}\n${USAGE}\n`);
      return 2;
    }
    if (err instanceof ConfigError) {
      io.stderr(`${err.message}\n`);
      return 2;
    }
    throw err;
  }
}
