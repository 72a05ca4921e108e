import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster } from 'ioredis';
import { RedisAccountStore } from '../../adapters/redis-account-store.js';
import { RedisStorage } from '../../adapters/redis.js';
import { canonicalEmail } from '../../lib/core/email-address.js';
import { accountStoreConformance, storageConformance } from '../../lib/testing/index.js';
import { freePort } from '../helpers/server.js';
import { uniquePrefix } from '../helpers/redis.js';
import { suiteIf } from '../helpers/skip.js';

/**
 * The same conformance suite against a real three-node Redis Cluster started by the test (redis-server
 * --cluster-enabled, redis-cli --cluster create), through an ioredis `Cluster` client.
 */
const hasRedis =
  spawnSync('redis-server', ['--version']).status === 0 && spawnSync('redis-cli', ['--version']).status === 0;
if (!hasRedis && process.env.CI) throw new Error('CI=true but redis-server/redis-cli are not installed');
if (!hasRedis) console.warn('\n!!! redis-server is not installed: the Redis Cluster tests are SKIPPED !!!\n');

const nodes: ChildProcess[] = [];
const ports: number[] = [];
let dir: string;
let client: Cluster;

/** Starts one cluster-enabled redis-server on a free port and returns the port, once it answers as a cluster node. */
async function startClusterNode(): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const node = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        `nodes-${port}.conf`,
        '--dir',
        dir,
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
      spawnSync('redis-cli', ['-p', String(port), 'ping'])
        .stdout?.toString()
        .trim() !== 'PONG';
      i++
    )
      await new Promise((r) => setTimeout(r, 100));
    const ours =
      node.exitCode === null &&
      /cluster_enabled:1/.test(
        spawnSync('redis-cli', ['-p', String(port), 'info', 'cluster']).stdout?.toString() ?? '',
      );
    if (ours) {
      nodes.push(node);
      return port;
    }
    node.kill();
    if (attempt >= 4) throw new Error(`no cluster node could be started (last port ${port})`);
  }
}

beforeAll(async () => {
  if (!hasRedis) return;
  dir = mkdtempSync(join(tmpdir(), 'portcullis-cluster-'));
  // A free port can be taken by another worker's server (a Redis of another test) between freePort() and the
  // node's bind: then the node is not ours and `cluster create` fails with "is not configured as a cluster node".
  // Each node is checked to be a cluster node, and started again on another port when it is not.
  for (let i = 0; i < 3; i++) ports.push(await startClusterNode());
  const created = spawnSync('redis-cli', [
    '--cluster',
    'create',
    ...ports.map((p) => `127.0.0.1:${p}`),
    '--cluster-replicas',
    '0',
    '--cluster-yes',
  ]);
  if (created.status !== 0) throw new Error(`cluster create failed: ${created.stdout}${created.stderr}`);
  for (let i = 0; i < 100; i++) {
    if (/cluster_state:ok/.test(spawnSync('redis-cli', ['-p', String(ports[0]), 'cluster', 'info']).stdout.toString()))
      break;
    await new Promise((r) => setTimeout(r, 100));
  }
  client = new Cluster(
    ports.map((port) => ({ host: '127.0.0.1', port })),
    { enableOfflineQueue: true },
  );
  await new Promise<void>((resolve, reject) => {
    client.once('ready', () => resolve());
    client.once('error', reject);
  });
}, 30000);

afterAll(async () => {
  client?.disconnect();
  for (const node of nodes) node.kill('SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

suiteIf(hasRedis, 'no redis-server/redis-cli binaries to start a cluster')('Redis Cluster', () => {
  describe('redis cluster storage: oidc-provider adapter contract', () => {
    const cases = storageConformance(() => new RedisStorage({ client, keyPrefix: uniquePrefix('cluster') }));
    for (const c of cases) test(c.name, c.run);
  });
  // the account store's scripts name keys of one account only (one hash tag, one slot)
  describe('redis cluster account store', () => {
    const cases = accountStoreConformance(async (seed) => {
      const storage = new RedisStorage({ client, keyPrefix: uniquePrefix('cluster-accounts') });
      return {
        store: await RedisAccountStore.fromSeed(storage, seed),
        close: () => storage.close(),
        leaveIndexEntry: async (email, id) => {
          await client.set(`${storage.keyPrefix}AccountEmail:{${canonicalEmail(email)}}`, id);
        },
      };
    });
    for (const c of cases) test(c.name, c.run);
  });

  test('e-mail index entries of earlier versions on every master are moved to their canonical keys', async () => {
    const storage = new RedisStorage({ client, keyPrefix: uniquePrefix('cluster-email') });
    const ids = Array.from({ length: 30 }, (_, i) => `legacy-${i}`);
    for (const id of ids) {
      const account = { id, email: `${id}@bücher.example`, emailVerified: true, roles: [], claims: {} };
      await client.set(`${storage.keyPrefix}Account:{${id}}`, JSON.stringify({ account, passwordHash: 'x' }));
      await client.set(`${storage.keyPrefix}AccountEmail:{${id}@bücher.example}`, id);
    }
    // the old entries live on every master (a SCAN of one node would miss the others')
    const perNode = await Promise.all(
      client.nodes('master').map(async (node) => {
        let [cursor, found] = ['0', 0];
        do {
          const [next, keys] = await node.scan(cursor, 'MATCH', `${storage.keyPrefix}AccountEmail:*`, 'COUNT', 1000);
          [cursor, found] = [next, found + keys.length];
        } while (cursor !== '0');
        return found;
      }),
    );
    expect(perNode.filter((n) => n > 0)).toHaveLength(3);
    await RedisAccountStore.fromSeed(storage, []);
    for (const id of ids) {
      expect(await client.get(`${storage.keyPrefix}AccountEmail:{${id}@xn--bcher-kva.example}`)).toBe(id);
      expect(await client.exists(`${storage.keyPrefix}AccountEmail:{${id}@bücher.example}`)).toBe(0);
    }
    expect(await client.exists(`${storage.keyPrefix}AccountEmailCanonical:v1`)).toBe(1);
  });

  test('a grant spread over slots is revoked whole', async () => {
    const storage = new RedisStorage({ client, keyPrefix: uniquePrefix('cluster-grant') });
    const ids = Array.from({ length: 20 }, (_, i) => `token-${i}`);
    for (const id of ids) await storage.adapter('AccessToken').upsert(id, { grantId: 'spread' }, 60);
    await storage.adapter('AccessToken').revokeByGrantId('spread');
    for (const id of ids) expect(await storage.adapter('AccessToken').find(id)).toBeUndefined();
  });
});

if (!hasRedis) test('cluster tests need redis-server (see the warning above)', () => expect(hasRedis).toBe(false));
