import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/** The Redis the suite uses: `REDIS_URL` or 127.0.0.1:6379. */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Whether Redis answers. Tests never skip Redis silently: without one they warn loudly, and under CI (CI=true) a
 * missing Redis throws, failing the suite.
 */
export async function redisAvailable(): Promise<boolean> {
  const client = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    connectTimeout: 1000,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    return true;
  } catch {
    if (process.env.CI)
      throw new Error(`CI=true but Redis at ${REDIS_URL} does not answer: the Redis tests cannot run`);
    console.warn(
      `\n!!! Redis at ${REDIS_URL} does not answer: the Redis tests are SKIPPED. Start redis-server to run them. !!!\n`,
    );
    return false;
  } finally {
    client.disconnect();
  }
}

/** A key prefix no other test uses. */
export function uniquePrefix(label: string): string {
  return `portcullis-test:${label}:${randomBytes(6).toString('hex')}:`;
}

/** Deletes every key under `prefix` (SCAN, never KEYS). */
export async function deletePrefix(prefix: string): Promise<void> {
  const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await client.del(...keys);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}

/**
 * Commands that clients other than Redis' own Lua scripts sent while `work` ran and that name a key containing
 * `keyPart`, read from a raw `MONITOR` connection: each limiter consume is one command (one EVALSHA: one round trip).
 * A marker command sent after `work` tells when every command of it has been seen.
 */
export async function countCommands(keyPart: string, work: () => Promise<void>): Promise<number> {
  const { connect } = await import('node:net');
  const url = new URL(REDIS_URL);
  const socket = connect(Number(url.port || 6379), url.hostname);
  socket.setEncoding('latin1');
  const mark = `portcullis-test:monitor-mark:${randomBytes(6).toString('hex')}`;
  let buffered = '';
  let counted = 0;
  let started: () => void = () => {};
  let ended: () => void = () => {};
  const start = new Promise<void>((resolve) => {
    started = resolve;
  });
  const end = new Promise<void>((resolve) => {
    ended = resolve;
  });
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf('\r\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 2);
      if (line === '+OK') started();
      else if (line.includes(mark)) ended();
      else if (/^\+\d+\.\d+ \[\d+ (?!lua\])/.test(line) && line.includes(keyPart)) counted++;
    }
  });
  socket.write('MONITOR\r\n');
  await start;
  const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    await work();
    await client.exists(mark);
    await end;
    return counted;
  } finally {
    client.disconnect();
    socket.destroy();
  }
}
