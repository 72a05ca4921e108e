import { errors } from 'oidc-provider';
import { StorageUnavailableError } from '../lib/core/errors.js';
import { jsonCopy } from '../lib/core/json-copy.js';
import {
  GRANT_LINKED_MODELS,
  indexValue,
  type Adapter,
  type AdapterFactory,
  type AdapterPayload,
  type Storage,
} from '../lib/core/storage.js';
import { DEFAULTS } from '../config/defaults.js';
import type { AccountSeed, AccountStore } from '../lib/core/account-store.js';
import { memoryLimiterBackend, type LimiterBackend } from '../lib/core/limiter.js';
import { MemoryAccountStore } from './memory-account-store.js';

/**
 * Entries are kept as the plain objects the Redis adapter would hand back after its JSON round trip (made by
 * {@link jsonCopy}, which equals `JSON.parse(JSON.stringify(x))` without the text): both adapters return the same
 * objects (undefined members dropped, dates as strings), each read is a fresh copy (a caller's later mutation never
 * reaches the store), and so is each write (nor does a mutation of the object the caller upserted). The index members
 * and `consumed` are kept beside the payload.
 */
interface Entry {
  payload: AdapterPayload;
  uid?: string;
  userCode?: string;
  grantId?: string;
  consumed?: number;
  expiresAt: number /* epoch ms, Infinity = never */;
}

function decode(entry: Entry): AdapterPayload {
  const payload = jsonCopy(entry.payload);
  if (entry.consumed !== undefined) payload.consumed = entry.consumed;
  return payload;
}

export interface MemoryStorageOptions {
  /** Maximum number of live entries; 0 = unbounded. When full, writes throw {@link StorageUnavailableError} (503). */
  maxEntries?: number;
  /** How often expired entries are swept, ms. @default 60000 */
  sweepIntervalMs?: number;
}

/**
 * Entries a timer-driven sweep looks at per event-loop turn. Deleting 200,000 expired entries in one pass blocked
 * the event loop for 112 ms on the bench machine (50,000: 20 ms); a slice of this size takes about a millisecond
 * at worst, so requests keep being answered between slices.
 */
const SWEEP_SLICE = 2000;

/**
 * The embedded default storage. Unlike oidc-provider's development adapter (an LRU of 1000 that drops live
 * codes and sessions under load) it never evicts a live entry: entries leave when they expire or are destroyed.
 * Secondary indexes keep `findByUid`, `findByUserCode` and `revokeByGrantId` off full scans.
 */
export class MemoryStorage implements Storage {
  readonly #entries = new Map<string, Entry>();
  readonly #uid = new Map<string, string>();
  readonly #userCode = new Map<string, string>();
  readonly #grant = new Map<string, Set<string>>();
  readonly #maxEntries: number;
  readonly #timer: NodeJS.Timeout;
  /** Whether a sliced sweep is under way (the next timer tick does not start another). */
  #sweeping = false;
  #closed = false;

  constructor(options: MemoryStorageOptions = {}) {
    this.#maxEntries = options.maxEntries ?? DEFAULTS.storage.maxEntries;
    this.#timer = setInterval(() => this.#sweepInSlices(), options.sweepIntervalMs ?? 60_000);
    this.#timer.unref();
  }

  readonly adapter: AdapterFactory = (modelName: string) => new MemoryAdapter(this, modelName);

  async ping(): Promise<void> {}

  /** A {@link MemoryAccountStore} seeded with `seed` (this process only, like every memory entry). */
  accountStore(seed: readonly AccountSeed[]): Promise<AccountStore> {
    return MemoryAccountStore.fromSeed(seed);
  }

  /** In-process counters (rate-limiter-flexible's memory limiter). */
  limiterBackend(): LimiterBackend {
    return memoryLimiterBackend;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
  }

  /** Number of live entries (expired ones not yet swept included). */
  get size(): number {
    return this.#entries.size;
  }

  /** Removes every expired entry, in one synchronous pass (the capacity check of a write needs the result at once). */
  sweep(now = Date.now()): void {
    this.#sweepFrom(this.#entries.entries(), now, Infinity);
  }

  /**
   * The timer's sweep: expired entries are removed {@link SWEEP_SLICE} entries per event-loop turn (`setImmediate`),
   * so a store of hundreds of thousands of entries never stalls requests. A Map iterator stays valid while entries are
   * deleted or added: deleted ones are skipped, rewritten ones are looked at again, at the end.
   */
  #sweepInSlices(): void {
    if (this.#sweeping) return;
    this.#sweeping = true;
    const now = Date.now();
    const entries = this.#entries.entries();
    const slice = () => {
      if (this.#closed || this.#sweepFrom(entries, now, SWEEP_SLICE)) this.#sweeping = false;
      else setImmediate(slice).unref();
    };
    slice();
  }

  /** Removes the expired entries among the next `limit` of `entries`; whether `entries` is used up. */
  #sweepFrom(entries: MapIterator<[string, Entry]>, now: number, limit: number): boolean {
    for (let i = 0; i < limit; i++) {
      const next = entries.next();
      if (next.done) return true;
      const [key, entry] = next.value;
      if (entry.expiresAt <= now) this.delete(key);
    }
    return false;
  }

  /** The live entry at `key` (an expired one is deleted on the way). */
  #live(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.delete(key);
      return undefined;
    }
    return entry;
  }

  /** A fresh copy of the payload at `key`, or undefined when missing or expired. */
  get(key: string): AdapterPayload | undefined {
    const entry = this.#live(key);
    return entry && decode(entry);
  }

  /**
   * Stores `payload` at `key` for `expiresIn` seconds (undefined: no expiry; 0 or less: already expired, so removed).
   */
  set(key: string, payload: AdapterPayload, expiresIn?: number): void {
    if (expiresIn !== undefined && expiresIn <= 0) {
      this.delete(key);
      return;
    }
    if (this.#maxEntries && !this.#entries.has(key) && this.#entries.size >= this.#maxEntries) {
      this.sweep();
      if (this.#entries.size >= this.#maxEntries)
        throw new StorageUnavailableError(
          'ERR_STORAGE_FULL',
          'storage is full (storage.maxEntries reached); try again later',
        );
    }
    this.delete(key);
    const expiresAt = expiresIn ? Date.now() + expiresIn * 1000 : Infinity;
    const { consumed, ...rest } = payload;
    // Only string members are indexed (indexValue), as in the Redis storage; any other value is plain data.
    const [uid, userCode, grantId] = [
      indexValue(payload.uid),
      indexValue(payload.userCode),
      indexValue(payload.grantId),
    ];
    this.#entries.set(key, { payload: jsonCopy(rest), uid, userCode, grantId, consumed, expiresAt });
    const model = key.slice(0, key.indexOf(':'));
    if (uid) this.#uid.set(`${model}:${uid}`, key);
    if (userCode) this.#userCode.set(`${model}:${userCode}`, key);
    if (grantId && GRANT_LINKED_MODELS.has(model)) {
      let keys = this.#grant.get(grantId);
      if (!keys) this.#grant.set(grantId, (keys = new Set()));
      keys.add(key);
    }
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    const model = key.slice(0, key.indexOf(':'));
    const { uid, userCode, grantId } = entry;
    if (uid && this.#uid.get(`${model}:${uid}`) === key) this.#uid.delete(`${model}:${uid}`);
    if (userCode && this.#userCode.get(`${model}:${userCode}`) === key) this.#userCode.delete(`${model}:${userCode}`);
    if (grantId) {
      const keys = this.#grant.get(grantId);
      keys?.delete(key);
      if (keys?.size === 0) this.#grant.delete(grantId);
    }
  }

  keyByUid(model: string, uid: string): string | undefined {
    return this.#uid.get(`${model}:${uid}`);
  }

  keyByUserCode(model: string, userCode: string): string | undefined {
    return this.#userCode.get(`${model}:${userCode}`);
  }

  deleteGrant(grantId: string): void {
    for (const key of [...(this.#grant.get(grantId) ?? [])]) this.delete(key);
  }

  /** Atomic in one event-loop turn: marks `key` consumed unless it is missing or already consumed. */
  consume(key: string): boolean {
    const entry = this.#live(key);
    if (!entry || entry.consumed) return false;
    entry.consumed = Math.floor(Date.now() / 1000);
    return true;
  }
}

class MemoryAdapter implements Adapter {
  constructor(
    private readonly storage: MemoryStorage,
    private readonly model: string,
  ) {}

  #key(id: string): string {
    return `${this.model}:${id}`;
  }

  #read(key: string | undefined): AdapterPayload | undefined {
    return key === undefined ? undefined : this.storage.get(key);
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    this.storage.set(this.#key(id), payload, expiresIn);
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    return this.#read(this.#key(id));
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.#read(this.storage.keyByUid(this.model, uid));
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.#read(this.storage.keyByUserCode(this.model, userCode));
  }

  async consume(id: string): Promise<void> {
    if (!this.storage.consume(this.#key(id))) {
      throw new errors.InvalidGrant(`${this.model} already consumed or not found`);
    }
  }

  async destroy(id: string): Promise<void> {
    this.storage.delete(this.#key(id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    this.storage.deleteGrant(grantId);
  }
}
