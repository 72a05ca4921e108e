import { pino, type Logger } from 'pino';

export type { Logger };

/** Keys whose values are never written to logs. */
export const REDACTED_PATHS = [
  'password', '*.password', 'client_secret', '*.client_secret', 'token', '*.token', 'access_token', '*.access_token',
  'refresh_token', '*.refresh_token', 'id_token', '*.id_token', 'code', '*.code', 'code_verifier', '*.code_verifier',
  'req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]',
];

/**
 * The default structured JSON logger (pino) with secrets redacted, writing to stdout asynchronously (pino's
 * non-blocking SonicBoom destination: a log line never blocks a response; pino flushes it at process exit).
 * Level from `LOG_LEVEL` (default `info`; `silent` under jest unless `LOG_LEVEL` is set).
 */
export function createLogger(env: NodeJS.ProcessEnv = process.env): Logger {
  const level = env.LOG_LEVEL ?? (env.JEST_WORKER_ID ? 'silent' : 'info');
  return pino({ name: 'portcullis', level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, pino.destination({ dest: 1, sync: false }));
}
