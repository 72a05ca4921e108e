import type { Cluster, Redis } from 'ioredis';
import { canonicalEmail } from '../lib/core/email-address.js';
import type { Logger } from '../lib/core/logger.js';
import type { RedisConnection } from './redis-connection.js';

/** Key (after the prefix) set once every e-mail index entry of the prefix is under its canonical address. */
export const EMAIL_INDEX_MARKER = 'AccountEmailCanonical:v1';

/** Longest the start-up migration of the e-mail index runs, ms; what is left is moved on lookup, and next start. */
export const EMAIL_MIGRATION_BUDGET_MS = 10_000;

/** Keys asked of each `SCAN` call (a hint to Redis, not a limit). */
const SCAN_COUNT = 1000;

/** Deletes KEYS[1] only while it still holds ARGV[1] (one key: one slot on a Cluster too). */
const DELETE_IF_EQUAL = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** What {@link migrateEmailIndex} did; counts are index entries. */
export interface EmailIndexMigration {
  /** `true` when the marker was already set and nothing was scanned. */
  skipped: boolean;
  /** `true` when every entry was looked at (the marker is then set). */
  complete: boolean;
  /** Entries moved to their canonical key (or found already moved by another instance). */
  moved: number;
  /** Entries left because the canonical key names another account (logged as a warning each, ids only). */
  conflicts: number;
}

/** `*`, `?`, `[`, `]` and `\` of a key prefix escaped for `SCAN … MATCH`. */
function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/** Each node to scan: every master of a Cluster (SCAN walks one node's keys), else the client itself. */
function scanNodes(s: RedisConnection): Redis[] {
  return s.isCluster ? (s.client as Cluster).nodes('master') : [s.client as Redis];
}

/** The address of the account `id`, or undefined when it has none (or its record does not parse). */
async function addressOf(s: RedisConnection, id: string): Promise<string | undefined> {
  const raw = await s.run(() => s.client.get(`${s.keyPrefix}Account:{${id}}`));
  try {
    const email = raw ? (JSON.parse(raw) as { account?: { email?: unknown } }).account?.email : undefined;
    return typeof email === 'string' ? email : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Moves every e-mail index entry an earlier version wrote under a spelling that is not canonical
 * (`<prefix>AccountEmail:{<address lower-cased>}`: an IDN domain in Unicode, a trailing dot, a decomposed letter) to
 * `<prefix>AccountEmail:{<canonicalEmail(address)>}`, once per key prefix: until then a sign-up under the canonical
 * spelling would not see the old entry and would claim the mailbox's canonical key (a second account, and the first
 * one locked out of its address).
 *
 * Walks the keys with `SCAN` (never `KEYS`; on a Cluster on each master), and for an entry that is not canonical:
 * claims the canonical key with `SET NX`, and deletes the old entry only when the canonical key then names the same
 * account (compare-and-delete). Idempotent and safe when several instances run it at once. Left alone: entries whose
 * account no longer has that address (an interrupted e-mail change, or one in flight), addresses the canonical form
 * refuses (still found when typed as stored), and conflicts: the canonical key names another account, which keeps
 * signing in by address (a warning names both account ids, never the address). When every key was looked at, sets
 * `<prefix>`{@link EMAIL_INDEX_MARKER}, and a later start skips the walk.
 *
 * Bounded: stops after `budgetMs` (default {@link EMAIL_MIGRATION_BUDGET_MS}) without setting the marker, and a
 * Redis error stops it too; both are logged as warnings and never fail the start-up (lookups still move an old
 * entry when the address is typed its old way).
 */
export async function migrateEmailIndex(
  s: RedisConnection,
  logger?: Logger,
  budgetMs = EMAIL_MIGRATION_BUDGET_MS,
): Promise<EmailIndexMigration> {
  const result: EmailIndexMigration = { skipped: false, complete: false, moved: 0, conflicts: 0 };
  const marker = `${s.keyPrefix}${EMAIL_INDEX_MARKER}`;
  try {
    if (await s.run(() => s.client.exists(marker))) return { ...result, skipped: true, complete: true };
    const deadline = Date.now() + budgetMs;
    for (const node of scanNodes(s)) {
      if (!(await scanNode(s, node, deadline, result, logger))) {
        logger?.warn(
          { moved: result.moved, budgetMs },
          'Redis account e-mail index: the start-up migration to canonical keys did not finish in time; the ' +
            'rest moves on lookup, and the next start continues',
        );
        return result;
      }
    }
    await s.run(() => s.client.set(marker, String(Math.floor(Date.now() / 1000))));
    result.complete = true;
    if (result.moved > 0)
      logger?.info(
        { moved: result.moved, conflicts: result.conflicts },
        'Redis account e-mail index: entries of an earlier version moved to their canonical keys',
      );
  } catch (err) {
    logger?.warn(
      { err: { name: (err as Error).name, message: (err as Error).message }, moved: result.moved },
      'Redis account e-mail index: the start-up migration to canonical keys stopped; the rest moves on ' +
        'lookup, and the next start tries again',
    );
  }
  return result;
}

/** Walks one node's index entries; false when the deadline passed first. */
async function scanNode(
  s: RedisConnection,
  node: Redis,
  deadline: number,
  result: EmailIndexMigration,
  logger?: Logger,
): Promise<boolean> {
  const head = `${s.keyPrefix}AccountEmail:{`;
  const pattern = `${globEscape(head)}*}`;
  let cursor = '0';
  do {
    if (Date.now() >= deadline) return false;
    const [next, keys] = await s.run(() => node.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT));
    cursor = next;
    for (const key of keys) {
      if (Date.now() >= deadline) return false;
      await migrateEntry(s, key, key.slice(head.length, -1), result, logger);
    }
  } while (cursor !== '0');
  return true;
}

/** Moves the entry `key` (of `address`) to its canonical key when that is another key and the entry is current. */
async function migrateEntry(
  s: RedisConnection,
  key: string,
  address: string,
  result: EmailIndexMigration,
  logger?: Logger,
): Promise<void> {
  const canonical = canonicalEmail(address);
  if (canonical === undefined || canonical === address) return;
  const id = await s.run(() => s.client.get(key));
  if (!id) return;
  const email = await addressOf(s, id);
  if (email === undefined || canonicalEmail(email) !== canonical) return;
  const target = `${s.keyPrefix}AccountEmail:{${canonical}}`;
  const claim = async () =>
    (await s.run(() => s.client.set(target, id, 'NX'))) === 'OK' ? id : s.run(() => s.client.get(target));
  // A second try when the canonical entry went away between the two commands (an e-mail change moving off it).
  const holder = (await claim()) ?? (await claim());
  if (holder === id) {
    await s.run(() => s.eval(DELETE_IF_EQUAL, [key], [id]));
    result.moved++;
    return;
  }
  if (!holder) return; // still moving: left to the lookup fallback and the next start
  result.conflicts++;
  logger?.warn(
    { account: id, canonicalAccount: holder },
    'Redis account e-mail index: an entry of an earlier version was not moved, its canonical key names ' +
      'another account (two accounts for one mailbox, or an e-mail change under way); the account under the ' +
      'canonical key keeps signing in by address: merge or remove one in Redis, then delete the marker key ' +
      EMAIL_INDEX_MARKER +
      ' to run the migration again',
  );
}
