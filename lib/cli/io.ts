import { PortcullisError } from '../core/errors.js';

/** Where a command writes (process streams in the CLI, buffers in tests). */
export interface CommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** A mistake in the command line (`ERR_USAGE`): printed with the usage, exit status 2. */
export class UsageError extends PortcullisError {
  static readonly code = 'ERR_USAGE';
  declare readonly code: 'ERR_USAGE';

  constructor(message: string) {
    super(UsageError.code, message, { status: 400 });
  }
}

/** Splits `--name value` / `--name=value` options of a command; flags (no value) are listed in `flags`. */
export function parseOptions(
  args: readonly string[],
  valued: readonly string[],
  flags: readonly string[] = [],
): Record<string, string | true> {
  const out: Record<string, string | true> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (flags.includes(name) && eq < 0) {
      out[name.slice(2)] = true;
      continue;
    }
    if (!valued.includes(name)) throw new UsageError(`unknown argument ${arg}`);
    const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || value === '') throw new UsageError(`${name} needs a value`);
    out[name.slice(2)] = value;
  }
  return out;
}
