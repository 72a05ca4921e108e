import { errors } from 'oidc-provider';
import { StorageUnavailableError } from '../lib/errors.js';
import { GRANT_LINKED_MODELS, type Adapter, type AdapterFactory, type AdapterPayload, type Storage } from './types.js';

/**
 * Entries are copied through JSON, exactly as the Redis adapter stores them, so both adapters hand back the same
 * plain objects (undefined members dropped) and a caller's later mutation never reaches the store.
 */
function copy(payload: AdapterPayload): AdapterPayload {
  return JSON.parse(JSON.stringify(payload)) as AdapterPayload;
}

interface Entry { payload: AdapterPayload; expiresAt: number /* epoch ms, Infinity = never */ }

export interface MemoryStorageOptions {
  /** Maximum number of live entries; 0 = unbounded. When full, writes throw {@link StorageUnavailableError} (503). */
  maxEntries?: number;
  /** How often expired entries are swept, ms. @default 60000 */
  sweepIntervalMs?: number;
}

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

  constructor(options: MemoryStorageOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 0;
    this.#timer = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 60_000);
    this.#timer.unref();
  }

  readonly adapter: AdapterFactory = (modelName: string) => new MemoryAdapter(this, modelName);

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.#timer);
  }

  /** Number of live entries (expired ones not yet swept included). */
  get size(): number {
    return this.#entries.size;
  }

  /** Removes every expired entry. */
  sweep(now = Date.now()): void {
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.delete(key);
  }

  get(key: string): AdapterPayload | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.delete(key);
      return undefined;
    }
    return entry.payload;
  }

  set(key: string, payload: AdapterPayload, expiresIn?: number): void {
    if (this.#maxEntries && !this.#entries.has(key) && this.#entries.size >= this.#maxEntries) {
      this.sweep();
      if (this.#entries.size >= this.#maxEntries) throw new StorageUnavailableError('ERR_STORAGE_FULL', 'storage is full (storage.maxEntries reached); try again later');
    }
    this.delete(key);
    const expiresAt = expiresIn ? Date.now() + expiresIn * 1000 : Infinity;
    this.#entries.set(key, { payload: copy(payload), expiresAt });
    const model = key.slice(0, key.indexOf(':'));
    if (payload.uid) this.#uid.set(`${model}:${payload.uid}`, key);
    if (payload.userCode) this.#userCode.set(`${model}:${payload.userCode}`, key);
    if (payload.grantId && GRANT_LINKED_MODELS.has(model)) {
      let keys = this.#grant.get(payload.grantId);
      if (!keys) this.#grant.set(payload.grantId, (keys = new Set()));
      keys.add(key);
    }
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    const model = key.slice(0, key.indexOf(':'));
    const { uid, userCode, grantId } = entry.payload;
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
    const payload = this.get(key);
    if (!payload || payload.consumed) return false;
    payload.consumed = Math.floor(Date.now() / 1000);
    return true;
  }
}

class MemoryAdapter implements Adapter {
  constructor(private readonly storage: MemoryStorage, private readonly model: string) {}

  #key(id: string): string {
    return `${this.model}:${id}`;
  }

  #read(key: string | undefined): AdapterPayload | undefined {
    const payload = key === undefined ? undefined : this.storage.get(key);
    return payload && copy(payload);
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
