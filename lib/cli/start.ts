import { createServer, type PortcullisServer } from '../server.js';
import { readConfigFile } from './config-file.js';
import { loopbackIssuerPort, settingsFromEnvironment, type ServerSettings } from './environment.js';
import { parseOptions, UsageError, type CommandIo } from './io.js';

/**
 * `portcullis start [--config portcullis.config.{json,js,mjs}]`: runs a server from a configuration file
 * (`--config`, else `PORTCULLIS_CONFIG`) merged deeply over the defaults, with the environment variables of the
 * standalone server on top (see `settingsFromEnvironment`). No demo data: clients and accounts come from the file.
 * Resolves once the server listens (the process then runs until SIGINT/SIGTERM, which close it); resolves 1
 * when the configuration is refused, printing only the error's message and code (never its members, which may
 * carry secrets).
 *
 * @throws {UsageError} (exit status 2) when neither `--config` nor `PORTCULLIS_CONFIG` names a file: without one
 *   the server would have no client and no account. A file holding `{}` starts that empty server on purpose.
 */
export async function startCommand(
  args: string[],
  io: CommandIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const opts = parseOptions(args, ['--config']);
  const path = typeof opts.config === 'string' ? opts.config : env.PORTCULLIS_CONFIG;
  if (!path) {
    throw new UsageError(
      'start needs a configuration file, with your clients and accounts: portcullis start --config ' +
        'portcullis.config.json (or PORTCULLIS_CONFIG=portcullis.config.json); see docs/guides/production.md ' +
        '"Running from a configuration file". A file holding {} starts a server configured by the environment ' +
        'variables alone',
    );
  }
  let port: number | undefined;
  try {
    const file = await readConfigFile(path);
    const settings = settingsFromEnvironment(env, { file });
    port = settings.port;
    await serve(settings, (line) => io.stdout(`${line}\n`), path);
    return 0;
  } catch (err) {
    const { message, code } = err as Error & { code?: string };
    io.stderr(`Portcullis failed to start: ${message}${code ? ` (${code})` : ''}\n`);
    if ((code === 'EACCES' || code === 'EADDRINUSE') && port !== undefined) io.stderr(`  ${listenHint(port, env)}\n`);
    return 1;
  }
}

/** What to change when port `port` cannot be listened on: where the port came from (PORT or the issuer). */
function listenHint(port: number, env: NodeJS.ProcessEnv): string {
  return env.PORT
    ? `port ${port} comes from PORT: choose another with PORT`
    : `port ${port} comes from the issuer (without PORT a local issuer's port is listened on): set PORT, or ` +
        `put a free port (above 1023 unless you run as root) in the issuer`;
}

/**
 * Creates the server, listens on `settings.port`/`host`, closes it on SIGINT/SIGTERM (then exits 0) and writes the
 * listening, discovery and GraphQL lines through `write` — the start of `portcullis start` and of `npm start`;
 * plus a note when `PORT` puts it elsewhere than a local issuer's port (the discovery URL then needs a proxy).
 * The signal handlers are installed before the lines are written: whoever reads them may signal at once.
 *
 * @throws what {@link createServer} or `listen` throws (a refused configuration, a port in use).
 */
export async function serve(
  settings: ServerSettings,
  write: (line: string) => void,
  configPath?: string,
): Promise<PortcullisServer> {
  const { port, host, config } = settings;
  const server = await createServer(config);
  await server.listen(port, host);
  const stop = async () => {
    await server.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const issuer = server.config.issuer;
  write(
    `Portcullis listening on ` +
      `http://${host.includes(':') ? `[${host}]` : host}:${port} (issuer ${issuer}${
        configPath ? `, configuration ${configPath}` : ''
      })`,
  );
  const issuerPort = loopbackIssuerPort(issuer);
  if (issuerPort !== undefined && issuerPort !== port)
    write(
      `  note       the issuer names port ${issuerPort}, PORT=${port}: the URLs below answer only through a ` +
        `proxy from ${issuerPort} to ${port} (unset PORT to listen on ${issuerPort})`,
    );
  write(`  discovery  ${issuer}/.well-known/openid-configuration`);
  write(
    server.config.graphql
      ? `  GraphQL    POST ${issuer}${server.config.graphql.path}`
      : '  GraphQL    off (no schema configured)',
  );
  return server;
}
