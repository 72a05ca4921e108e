import { hashPassword } from '../../adapters/password.js';
import { SEED_PASSWORD_LENGTH } from '../core/password-hash.js';
import { UsageError, type CommandIo } from './io.js';

/** Reads all of standard input as UTF-8. */
async function readStdin(stdin: AsyncIterable<Buffer | string>): Promise<string> {
  let text = '';
  for await (const chunk of stdin) text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
  return text;
}

/**
 * `portcullis hash-password`: reads one password from standard input (its first line, without the line break) and
 * prints its hash for `accounts[].passwordHash` (scrypt, N=2^15, r=8, p=1; lib/core/password-hash.ts). The password
 * comes from standard input, not from an argument, so it stays out of the shell history and the process list.
 * Throws {@link UsageError} (exit status 2) for an argument, or a password shorter than 8 or longer than 256
 * characters.
 */
export async function hashPasswordCommand(
  args: readonly string[],
  io: CommandIo,
  stdin: AsyncIterable<Buffer | string> = process.stdin,
): Promise<number> {
  if (args.length) throw new UsageError(`unknown argument ${args[0]}`);
  const password = (await readStdin(stdin)).split(/\r?\n/)[0] ?? '';
  const { min, max } = SEED_PASSWORD_LENGTH;
  const length = [...password].length;
  if (length < min || length > max) {
    throw new UsageError(
      `hash-password reads the password from standard input (e.g. printf '%s' "$PASSWORD" | npx portcullis ` +
        `hash-password); it must have ${min} to ${max} characters`,
    );
  }
  io.stdout(`${await hashPassword(password)}\n`);
  return 0;
}
