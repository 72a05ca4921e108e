import type { AccountStore, StoredSecondFactor } from '../../core/account-store.js';
import { StorageUnavailableError } from '../../core/errors.js';
import { createLimiter, type LimiterBackend } from '../../core/limiter.js';

/** A change of an account's second factors, as {@link AccountStore.updateSecondFactor} takes it. */
export type FactorChange = (current: StoredSecondFactor | undefined) => StoredSecondFactor | undefined;

/** How the second factors of accounts are read and written: reads, whole replacements and atomic changes. */
export interface FactorStore {
  get(id: string): Promise<StoredSecondFactor | undefined>;
  /** Replaces them whole (an enrolment) or removes them (`undefined`). */
  set(id: string, value: StoredSecondFactor | undefined): Promise<void>;
  /** Applies `change` atomically (see {@link AccountStore.updateSecondFactor}); returns what is stored then. */
  update(id: string, change: FactorChange): Promise<StoredSecondFactor | undefined>;
}

/** How long the fallback lock of one account lasts at most, seconds: far beyond one read and write. */
const LOCK_SECONDS = 10;
/** How long a write waits for the fallback lock before answering 503, ms. */
const LOCK_WAIT_MS = 3000;
const LOCK_POLL_MS = 20;

/**
 * The second factors of `accounts`. With {@link AccountStore.updateSecondFactor} (both shipped stores) changes are
 * the store's atomic ones and replacements go straight to the store: a change that lost a race to a replacement
 * sees the new value. A host store without it (written before it existed) gets every write, replacements included,
 * serialised per account by a lock in the rate-limit backend: a point of the `mfa-write` limit, taken by polling
 * and given back when the write is done, or after {@link LOCK_SECONDS} when its holder died. The methods are looked
 * up at each call, not bound once.
 * @throws {StorageUnavailableError} (503) from a write that waited {@link LOCK_WAIT_MS} for the lock.
 */
export function factorStore(accounts: AccountStore, backend: LimiterBackend): FactorStore {
  const lock = createLimiter('mfa-write', { points: 1, durationSeconds: LOCK_SECONDS }, backend);
  const get = (id: string) => accounts.getSecondFactor!(id);
  const set = (id: string, value: StoredSecondFactor | undefined) => accounts.setSecondFactor!(id, value);
  async function locked<T>(id: string, write: () => Promise<T>): Promise<T> {
    for (const until = Date.now() + LOCK_WAIT_MS; !(await lock.consume(id)).allowed; ) {
      if (Date.now() > until)
        throw new StorageUnavailableError(
          'ERR_STORAGE_UNAVAILABLE',
          'the second factors of this account are being changed; try again later',
        );
      await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
    }
    try {
      return await write();
    } finally {
      await lock.reset(id);
    }
  }
  const atomic = () => typeof accounts.updateSecondFactor === 'function';
  return {
    get,
    set: (id, value) => (atomic() ? set(id, value) : locked(id, () => set(id, value))),
    update(id, change) {
      if (atomic()) return accounts.updateSecondFactor!(id, change);
      return locked(id, async () => {
        const current = await get(id);
        const next = change(current);
        if (next !== current) await set(id, next);
        return next;
      });
    },
  };
}
