import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer as createTcpServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { REDIS_URL, redisAvailable } from '../helpers/redis.js';
import { freePort } from '../helpers/server.js';
import { suiteIf } from '../helpers/skip.js';

/**
 * A Redis storage that cannot be opened at start-up: `createServer` rejects with the URL (password redacted) and
 * the reason, with `cause` set, and the process then exits by itself (no ioredis client left reconnecting).
 * Each row runs `createServer` from the built library (`npm run build`) in a child node process.
 */
const LIB = fileURLToPath(new URL('../../dist/lib/index.js', import.meta.url));
const available = await redisAvailable();
const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;
if (!hasRedisServer && process.env.CI) throw new Error('CI=true but redis-server is not installed');
const PASSWORD = 'Sup3r-Secret-Pw';

interface Outcome {
  result:
    | {
        name: string;
        code: string;
        message: string;
        path?: string;
        url?: string;
        cause?: { message?: string; code?: string };
      }
    | 'STARTED';
  ms: number;
  exitMs: number;
  exitCode: number | null;
}

/** Runs createServer(config) in a child; resolves when the child exits (or rejects after 20 s, killing it). */
function startInChild(config: Record<string, unknown>): Promise<Outcome> {
  const script = `
    import { createServer } from ${JSON.stringify(LIB)};
    const t0 = Date.now();
    try {
      const server = await createServer(${JSON.stringify({ issuer: 'http://127.0.0.1:9', ...config })});
      console.log('RESULT ' + JSON.stringify({ result: 'STARTED', ms: Date.now() - t0 }));
      await server.close();
    } catch (err) {
      const cause = err.cause ? { message: String(err.cause.message), code: err.cause.code } : undefined;
      console.log('RESULT ' + JSON.stringify({ result: { name: err.name, code: err.code, message: err.message, path: err.path, url: err.url, cause }, ms: Date.now() - t0 }));
    }`;
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child: ChildProcess = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH!, LOG_LEVEL: 'error' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let printedAt = 0;
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (!printedAt && out.includes('RESULT ')) printedAt = Date.now();
    });
    child.stderr!.on('data', (c: Buffer) => {
      out += c.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the child did not exit within 20 s:\n${out}`));
    }, 20000);
    child.on('exit', (exitCode) => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (!line) return reject(new Error(`no result (exit ${exitCode}):\n${out}`));
      const parsed = JSON.parse(line.slice(7)) as Pick<Outcome, 'result' | 'ms'>;
      resolve({ ...parsed, exitMs: Date.now() - (printedAt || started), exitCode });
    });
  });
}

suiteIf(available && hasRedisServer, 'needs Redis and the redis-server binary')(
  'createServer with a Redis storage that cannot be opened',
  () => {
    let protectedPort: number;
    let protectedRedis: ChildProcess;
    let refusedPort: number;
    const tcp: Server[] = [];
    let notRedisPort: number;
    let silentPort: number;

    beforeAll(async () => {
      protectedPort = await freePort();
      protectedRedis = spawn(
        'redis-server',
        [
          '--port',
          String(protectedPort),
          '--bind',
          '127.0.0.1',
          '--requirepass',
          PASSWORD,
          '--save',
          '',
          '--appendonly',
          'no',
        ],
        { stdio: 'ignore' },
      );
      for (
        let i = 0;
        i < 50 &&
        spawnSync('redis-cli', ['-p', String(protectedPort), '-a', PASSWORD, '--no-auth-warning', 'ping'])
          .stdout?.toString()
          .trim() !== 'PONG';
        i++
      )
        await new Promise((r) => setTimeout(r, 100));
      refusedPort = await freePort();
      const listen = async (onConnection: (socket: import('node:net').Socket) => void) => {
        const server = createTcpServer(onConnection);
        tcp.push(server);
        await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
        return (server.address() as { port: number }).port;
      };
      notRedisPort = await listen((s) => {
        s.on('data', () => s.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
        s.on('error', () => {});
      });
      silentPort = await listen((s) => {
        s.on('error', () => {});
      });
    });
    afterAll(async () => {
      protectedRedis?.kill();
      for (const s of tcp) {
        s.close();
      }
    });

    const redis = (url: () => string) => () => ({
      storage: { type: 'redis', url: url(), keyPrefix: 'portcullis-test:startup:' },
    });
    const rows: Array<[string, () => Record<string, unknown>, { code: string; url: () => string; reason: RegExp }]> = [
      [
        'a refused port',
        redis(() => `redis://127.0.0.1:${refusedPort}`),
        {
          code: 'ERR_STORAGE_UNAVAILABLE',
          url: () => `redis://127.0.0.1:${refusedPort}`,
          reason: /connection refused \(ECONNREFUSED: nothing listens on 127\.0\.0\.1:\d+\)/,
        },
      ],
      [
        'a wrong password',
        redis(() => `redis://:wrong-${PASSWORD}@127.0.0.1:${protectedPort}`),
        {
          code: 'ERR_STORAGE_UNAVAILABLE',
          url: () => `redis://:***@127.0.0.1:${protectedPort}`,
          reason: /authentication failed \(WRONGPASS/,
        },
      ],
      [
        'a wrong user name and password',
        redis(() => `redis://someone:${PASSWORD}x@127.0.0.1:${protectedPort}/0`),
        {
          code: 'ERR_STORAGE_UNAVAILABLE',
          url: () => `redis://someone:***@127.0.0.1:${protectedPort}/0`,
          reason: /authentication failed \(WRONGPASS/,
        },
      ],
      [
        'no password for a server that needs one',
        redis(() => `redis://127.0.0.1:${protectedPort}`),
        {
          code: 'ERR_STORAGE_UNAVAILABLE',
          url: () => `redis://127.0.0.1:${protectedPort}`,
          reason: /authentication required \(NOAUTH/,
        },
      ],
      [
        'a host name that does not resolve',
        redis(() => `redis://:${PASSWORD}@redis.invalid:6379`),
        {
          code: 'ERR_STORAGE_UNAVAILABLE',
          url: () => 'redis://:***@redis.invalid:6379',
          reason: /DNS lookup of "redis\.invalid" failed \((ENOTFOUND|EAI_AGAIN)\)/,
        },
      ],
      [
        'a port that is not Redis',
        redis(() => `redis://127.0.0.1:${notRedisPort}`),
        {
          code: 'ERR_STORAGE_UNAVAILABLE',
          url: () => `redis://127.0.0.1:${notRedisPort}`,
          reason: /does not speak the Redis protocol/,
        },
      ],
      [
        'a server that never answers',
        redis(() => `redis://:${PASSWORD}@127.0.0.1:${silentPort}`),
        { code: 'ERR_STORAGE_UNAVAILABLE', url: () => `redis://:***@127.0.0.1:${silentPort}`, reason: /timed out/ },
      ],
      [
        'a database index out of range (the real Redis has 16)',
        redis(() => `${REDIS_URL}/99`),
        {
          code: 'ERR_CONFIG_INVALID',
          url: () => `${REDIS_URL}/99`,
          reason:
            /database index 99 of .* does not exist \(ERR DB index is out of range\); this server has 16 \(0–15\)/,
        },
      ],
      [
        'a database index out of range behind a password',
        redis(() => `redis://:${PASSWORD}@127.0.0.1:${protectedPort}/16`),
        {
          code: 'ERR_CONFIG_INVALID',
          url: () => `redis://:***@127.0.0.1:${protectedPort}/16`,
          reason: /database index 16 .* does not exist/,
        },
      ],
    ];

    // The rows that wait out the 5-s start-up limit (refused and unresolved connections are retried, a silent
    // server is waited for): their children start together once the servers above listen, so the three waits
    // overlap each other and the other rows instead of adding up to 15 s. Each row still gets its own process.
    const WAITING = new Set(['a refused port', 'a host name that does not resolve', 'a server that never answers']);
    const early = new Map<string, Promise<Outcome>>();
    beforeAll(() => {
      for (const [name, config] of rows) {
        if (!WAITING.has(name)) continue;
        const outcome = startInChild(config());
        outcome.catch(() => {}); // awaited (and so reported) by its own test
        early.set(name, outcome);
      }
    });

    test.each(rows)(
      '%s: the error names the redacted URL and the reason, and the process exits by itself',
      async (name, config, expected) => {
        const outcome = await (early.get(name) ?? startInChild(config()));
        expect(outcome.result).not.toBe('STARTED');
        const result = outcome.result as Exclude<Outcome['result'], 'STARTED'>;
        expect(result.code).toBe(expected.code);
        expect(result.message).toContain(expected.url());
        expect(result.message).toMatch(expected.reason);
        expect(result.message).not.toContain(PASSWORD);
        expect(JSON.stringify(result)).not.toContain(PASSWORD);
        expect(result.cause?.message).toEqual(expect.any(String));
        if (expected.code === 'ERR_CONFIG_INVALID') expect(result.path).toBe('storage.url');
        else expect(result.url).toBe(expected.url());
        expect(outcome.ms).toBeLessThan(7000);
        expect(outcome.exitMs).toBeLessThan(2000);
        expect(outcome.exitCode).toBe(0);
      },
      25000,
    );

    test('a client that fails validation after Redis opened: ConfigError naming it, and the process exits by itself', async () => {
      const outcome = await startInChild({
        storage: {
          type: 'redis',
          url: `redis://:${PASSWORD}@127.0.0.1:${protectedPort}`,
          keyPrefix: 'portcullis-test:startup:',
        },
        // Passes the config checks (so Redis opens) and fails oidc-provider's own client validation.
        clients: [
          {
            client_id: 'bad-scope',
            redirect_uris: ['https://rp.example/cb'],
            scope: 'openid no-such-scope',
            token_endpoint_auth_method: 'none',
          },
        ],
      });
      const result = outcome.result as Exclude<Outcome['result'], 'STARTED'>;
      expect(result).toMatchObject({ code: 'ERR_CONFIG_INVALID', path: 'clients[0]' });
      expect(result.message).toContain('bad-scope');
      expect(outcome.exitMs).toBeLessThan(2000);
      expect(outcome.exitCode).toBe(0);
    }, 25000);

    test('the right password and database start (the control row)', async () => {
      const outcome = await startInChild({
        storage: {
          type: 'redis',
          url: `redis://:${PASSWORD}@127.0.0.1:${protectedPort}/3`,
          keyPrefix: 'portcullis-test:startup:',
        },
      });
      expect(outcome.result).toBe('STARTED');
      expect(outcome.exitCode).toBe(0);
      expect(outcome.exitMs).toBeLessThan(2000);
    }, 25000);
  },
);
