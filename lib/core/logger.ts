import { pino, type DestinationStream, type Logger } from 'pino';
import { ConfigError } from './errors.js';

export type { Logger };

/**
 * The methods of a {@link Logger} that Portcullis calls, each pino-style (`logger.warn({ fields }, 'message')`);
 * `child(bindings, options)` must return a logger with the same methods. A `logger` option lacking one is refused
 * at start-up, before anything is logged through it.
 */
export const LOGGER_METHODS = ['info', 'warn', 'error', 'child'] as const;

/** Keys whose values are never written to logs. */
export const REDACTED_PATHS = [
  'password',
  '*.password',
  'client_secret',
  '*.client_secret',
  'token',
  '*.token',
  'access_token',
  '*.access_token',
  'refresh_token',
  '*.refresh_token',
  'id_token',
  '*.id_token',
  'code',
  '*.code',
  'code_verifier',
  '*.code_verifier',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

/** Characters of log lines collected before they are handed to the writer in one piece (fewer writes under load). */
const LOG_BATCH_CHARS = 16 * 1024;
/** Longest a collected log line waits when traffic is low, milliseconds. */
const LOG_FLUSH_MS = 1000;

/** pino's numeric level from which a line is written at once rather than batched: `warn` (40) and above. */
const WRITE_AT_ONCE_LEVEL = 40;

/** The key by which a destination asks pino for each line's level (`stream.lastLevel`) before it is written. */
const PINO_METADATA: unique symbol = Symbol.for('pino.metadata');

type SonicBoom = ReturnType<typeof pino.destination>;

/**
 * Collects log lines and hands them to pino's non-blocking SonicBoom destination in batches of
 * {@link LOG_BATCH_CHARS} characters, at least every {@link LOG_FLUSH_MS} ms, at once for a warning or an error,
 * and synchronously at process exit.
 *
 * Why not SonicBoom's own `minLength` buffering: SonicBoom 4 appends each line to one growing string and measures
 * that string's byte length on every write, which flattens it: the cost of a line grows with the batch (measured
 * on this machine: 4.3 µs per line with a 4 KiB batch, 10.7 µs with 60 KiB, against 2.6 µs for a joined batch).
 * The writing itself (partial writes, EAGAIN, broken pipes, the final flush) stays SonicBoom's.
 */
class BatchedDestination implements DestinationStream {
  #lines: string[] = [];
  #chars = 0;
  /** Asks pino to set {@link lastLevel} before each write (pino's stream metadata). */
  readonly [PINO_METADATA] = true;
  /** Numeric pino level of the line being written (set by pino). */
  lastLevel = 0;

  readonly #out: SonicBoom;

  /** @param fd - the file descriptor written to (1: stdout). */
  constructor(private readonly fd: number) {
    this.#out = pino.destination({ dest: fd, sync: false });
  }

  write(line: string): void {
    this.#lines.push(line);
    this.#chars += line.length;
    // Warnings and errors are handed on at once (with what was collected before them, in order).
    if (this.#chars >= LOG_BATCH_CHARS || this.lastLevel >= WRITE_AT_ONCE_LEVEL) this.flush();
  }

  /** Hands the collected lines to the writer (which writes them asynchronously). */
  flush(): void {
    const text = this.#take();
    if (text) this.#out.write(text);
  }

  /**
   * Writes everything collected so far before returning (process exit). The batches SonicBoom queued are written by
   * its `flushSync`; the lines collected since go through a synchronous SonicBoom (partial writes and EAGAIN retried
   * in place) rather than the asynchronous one: Node still runs a queued threadpool write at exit, but the rest of a
   * partial write would need the event loop, which has stopped.
   */
  flushSync(): void {
    const text = this.#take();
    try {
      this.#out.flushSync();
    } catch {
      /* not open yet, or closed by a broken pipe */
    }
    if (!text) return;
    try {
      pino.destination({ dest: this.fd, sync: true }).write(text);
    } catch {
      /* closed by a broken pipe */
    }
  }

  /** The collected lines as one string ('' when none), and an empty collection. */
  #take(): string {
    if (this.#lines.length === 0) return '';
    const text = this.#lines.join('');
    this.#lines = [];
    this.#chars = 0;
    return text;
  }
}

/** The process' one stdout destination: every logger of this process shares it, so lines keep their order. */
let stdout: BatchedDestination | undefined;
function stdoutDestination(): BatchedDestination {
  if (stdout) return stdout;
  const destination = new BatchedDestination(1);
  setInterval(() => destination.flush(), LOG_FLUSH_MS).unref();
  // An emptying event loop gets one more turn to finish the asynchronous writes still in flight (none is waited for
  // at 'exit': clean-clone CI lost 8 of 5,000 lines once without this).
  process.once('beforeExit', () => destination.flush());
  process.once('exit', () => destination.flushSync());
  return (stdout = destination);
}

/**
 * The default structured JSON logger (pino) with secrets redacted, writing to stdout asynchronously (pino's
 * non-blocking SonicBoom destination): a log line never blocks a response. Lines are written in batches of
 * 16 Ki characters, and at least once a second when traffic is low; a `warn` or higher line is written at once
 * (with the lines before it); what is left is written at process exit.
 * Level from `LOG_LEVEL` (default, also for an empty one: `info`; `silent` under jest unless `LOG_LEVEL` is set).
 *
 * @throws {ConfigError} `LOG_LEVEL` when it names no pino level.
 */
export function createLogger(env: NodeJS.ProcessEnv = process.env): Logger {
  const level = env.LOG_LEVEL || (env.JEST_WORKER_ID ? 'silent' : 'info');
  const levels = [...Object.keys(pino.levels.values), 'silent'];
  if (!levels.includes(level))
    throw new ConfigError(
      'LOG_LEVEL',
      `must be one of ${levels.join(', ')}, got ${JSON.stringify(level.slice(0, 40))}`,
    );
  return pino(
    { name: 'portcullis', level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
    level === 'silent' ? undefined : stdoutDestination(),
  );
}
