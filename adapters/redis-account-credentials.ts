/**
 * The credentials of a Redis account besides its password, for `RedisAccountStore`
 * (adapters/redis-account-store.ts, which documents every key): passkeys ({@link RedisPasskeys}) and second factors
 * ({@link RedisSecondFactors}), each beside the account's record under its `{<id>}` hash tag.
 */
import type { Account, StoredPasskey, StoredSecondFactor } from '../lib/core/account-store.js';
import { PortcullisError, StorageUnavailableError } from '../lib/core/errors.js';
import type { RedisConnection } from './redis-connection.js';

/** What the credentials need of the account records: an account's key, and the account if it exists. */
export interface AccountRecords {
  key(id: string): string;
  find(id: string): Promise<Account | undefined>;
}

/** The change {@link RedisSecondFactors.update} applies: the new value for the current one (the same to keep it). */
export type SecondFactorChange = (current: StoredSecondFactor | undefined) => StoredSecondFactor | undefined;

/**
 * Compare-and-set of an account's second factors (KEYS[1]) beside its record (KEYS[2], the same `{id}` hash tag, so
 * one slot on a Cluster): ARGV[1] is the value the caller read ('' for none), ARGV[2] the new one ('' removes it).
 * Answers -1 when the stored value is no longer ARGV[1], 0 for an unknown account, 1 when written.
 */
const SET_FACTOR_IF_UNCHANGED = `
if (redis.call('GET', KEYS[1]) or '') ~= ARGV[1] then return -1 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) return 1 end
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1`;

/** How often {@link RedisSecondFactors.update} reads again after another write got in between. */
const UPDATE_ATTEMPTS = 50;

/**
 * An account's passkeys: `<prefix>Passkeys:{<id>}` (a hash, field = credential id, value = JSON of the
 * {@link StoredPasskey}) and `<prefix>PasskeyOwner:{<credential id>}` (the account id, claimed with `SET NX` so a
 * credential id belongs to one account).
 */
export class RedisPasskeys {
  readonly #s: RedisConnection;
  readonly #accounts: AccountRecords;

  constructor(storage: RedisConnection, accounts: AccountRecords) {
    this.#s = storage;
    this.#accounts = accounts;
  }

  #passkeysKey(id: string): string {
    return `${this.#s.keyPrefix}Passkeys:{${id}}`;
  }

  #ownerKey(credentialId: string): string {
    return `${this.#s.keyPrefix}PasskeyOwner:{${credentialId}}`;
  }

  async list(id: string): Promise<StoredPasskey[]> {
    const all = await this.#s.run(() => this.#s.client.hvals(this.#passkeysKey(id)));
    return all.map((raw) => JSON.parse(raw) as StoredPasskey).sort((a, b) => a.createdAt - b.createdAt);
  }

  async save(id: string, passkey: StoredPasskey): Promise<void> {
    const owner = this.#ownerKey(passkey.credentialId);
    // The owner index and the account's hash live in different cluster slots: claim the id first, then write.
    const claimed = await this.#s.run(() => this.#s.client.set(owner, id, 'NX'));
    if (claimed !== 'OK' && (await this.#s.run(() => this.#s.client.get(owner))) !== id) {
      throw new PortcullisError('ERR_CREDENTIAL_TAKEN', 'this credential id is registered to another account', {
        status: 409,
      });
    }
    await this.#s.run(() => this.#s.client.hset(this.#passkeysKey(id), passkey.credentialId, JSON.stringify(passkey)));
  }

  async delete(id: string, credentialId: string): Promise<boolean> {
    const removed = await this.#s.run(() => this.#s.client.hdel(this.#passkeysKey(id), credentialId));
    if (removed === 0) return false;
    const owner = this.#ownerKey(credentialId);
    if ((await this.#s.run(() => this.#s.client.get(owner))) === id) await this.#s.run(() => this.#s.client.del(owner));
    return true;
  }

  async findAccount(credentialId: string): Promise<Account | undefined> {
    const id = await this.#s.run(() => this.#s.client.get(this.#ownerKey(credentialId)));
    if (!id) return undefined;
    // An owner index left behind by an interrupted save does not count: the account must hold the passkey.
    const [account, held] = await Promise.all([
      this.#accounts.find(id),
      this.#s.run(() => this.#s.client.hexists(this.#passkeysKey(id), credentialId)),
    ]);
    return held ? account : undefined;
  }
}

/**
 * An account's second factors: `<prefix>AccountMfa:{<id>}` (JSON), changed by compare-and-set so that concurrent
 * sign-ins cannot undo each other's spent codes.
 */
export class RedisSecondFactors {
  readonly #s: RedisConnection;
  readonly #accounts: AccountRecords;

  constructor(storage: RedisConnection, accounts: AccountRecords) {
    this.#s = storage;
    this.#accounts = accounts;
  }

  #factorKey(id: string): string {
    return `${this.#s.keyPrefix}AccountMfa:{${id}}`;
  }

  async get(id: string): Promise<StoredSecondFactor | undefined> {
    const raw = await this.#s.run(() => this.#s.client.get(this.#factorKey(id)));
    return raw ? (JSON.parse(raw) as StoredSecondFactor) : undefined;
  }

  async set(id: string, value: StoredSecondFactor | undefined): Promise<void> {
    if (!value) {
      await this.#s.run(() => this.#s.client.del(this.#factorKey(id)));
      return;
    }
    if (!(await this.#accounts.find(id))) return;
    await this.#s.run(() => this.#s.client.set(this.#factorKey(id), JSON.stringify(value)));
  }

  /**
   * Optimistic: reads the value, asks `change`, and writes its answer with {@link SET_FACTOR_IF_UNCHANGED} only
   * if the stored JSON is still the one read; otherwise reads again (a sign-in racing another one or a removal).
   * @throws {StorageUnavailableError} after {@link UPDATE_ATTEMPTS} lost races, or when Redis is unavailable.
   */
  async update(id: string, change: SecondFactorChange): Promise<StoredSecondFactor | undefined> {
    const key = this.#factorKey(id);
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const raw = await this.#s.run(() => this.#s.client.get(key));
      const current = raw ? (JSON.parse(raw) as StoredSecondFactor) : undefined;
      const next = change(current);
      if (next === current) return current;
      const written = await this.#s.run(() =>
        this.#s.eval(
          SET_FACTOR_IF_UNCHANGED,
          [key, this.#accounts.key(id)],
          [raw ?? '', next ? JSON.stringify(next) : ''],
        ),
      );
      if (written === 1) return next;
      if (written === 0) return undefined;
    }
    throw new StorageUnavailableError(
      'ERR_STORAGE_UNAVAILABLE',
      'the second factors of this account keep changing; try again later',
    );
  }
}
