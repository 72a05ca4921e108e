import { pino, type Logger } from 'pino';

export type { Logger };

/** Keys whose values are never written to logs. */
export const REDACTED_PATHS = [
  'password', '*.password', 'client_secret', '*.client_secret', 'token', '*.token', 'access_token', '*.access_token',
  'refresh_token', '*.refresh_token', 'id_token', '*.id_token', 'code', '*.code', 'code_verifier', '*.code_verifier',
  'req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]',
];

/** Bytes buffered before the default logger writes (fewer write calls under load). */
const LOG_BUFFER_BYTES = 4096;
/** Longest a buffered log line waits when traffic is low, milliseconds. */
const LOG_FLUSH_MS = 1000;

/**
 * The default structured JSON logger (pino) with secrets redacted, writing to stdout asynchronously through
 * pino's non-blocking SonicBoom destination: a log line never blocks a response. Lines are written in batches of
 * 4 KiB, and at least once a second when traffic is low; pino flushes what is left at process exit.
 * Level from `LOG_LEVEL` (default `info`; `silent` under jest unless `LOG_LEVEL` is set).
 */
export function createLogger(env: NodeJS.ProcessEnv = process.env): Logger {
  const level = env.LOG_LEVEL ?? (env.JEST_WORKER_ID ? 'silent' : 'info');
  const destination = pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES });
  setInterval(() => { try { destination.flush(); } catch { /* not ready yet or already closed */ } }, LOG_FLUSH_MS).unref();
  return pino({ name: 'portcullis', level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination);
}
