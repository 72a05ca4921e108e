import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { StorageUnavailableError } from './errors.js';

/** Outcome of {@link Limiter.consume}. */
export interface LimitResult {
  allowed: boolean;
  /** Points left in the current window (0 when refused). */
  remaining: number;
  /** Seconds until the window resets; send it as `Retry-After` when refused. */
  retryAfterSeconds: number;
}

/** A fixed-window counter per key (rate-limiter-flexible underneath). */
export interface Limiter {
  /** Spends `points` (default 1) for `key`; never throws for an exhausted budget, it answers `allowed: false`. */
  consume(key: string, points?: number): Promise<LimitResult>;
  /** Forgets the key (e.g. after a successful login). */
  reset(key: string): Promise<void>;
}

/** Shape of one limit: `points` per `durationSeconds`. */
export interface LimitSpec {
  points: number;
  durationSeconds: number;
}

/** Creates the backend limiter for one named limit. The memory backend is the default. */
export type LimiterBackend = (name: string, spec: LimitSpec) => RateLimiterAbstract;

export const memoryLimiterBackend: LimiterBackend = (name, spec) =>
  new RateLimiterMemory({ keyPrefix: name, points: spec.points, duration: spec.durationSeconds });

/**
 * Wraps a rate-limiter-flexible limiter so that callers get a plain result. A backend failure (e.g. Redis down)
 * throws {@link StorageUnavailableError} (503): a limiter that cannot count never lets requests through silently.
 */
export function createLimiter(name: string, spec: LimitSpec, backend: LimiterBackend = memoryLimiterBackend): Limiter {
  const limiter = backend(name, spec);
  return {
    async consume(key, points = 1) {
      try {
        const res = await limiter.consume(key, points);
        return { allowed: true, remaining: res.remainingPoints, retryAfterSeconds: Math.ceil(res.msBeforeNext / 1000) };
      } catch (err) {
        if (err instanceof RateLimiterRes) {
          return { allowed: false, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil(err.msBeforeNext / 1000)) };
        }
        throw new StorageUnavailableError(
          'ERR_STORAGE_UNAVAILABLE',
          'rate-limit storage is unavailable; try again later',
          { cause: err },
        );
      }
    },
    async reset(key) {
      try {
        await limiter.delete(key);
      } catch (err) {
        throw new StorageUnavailableError(
          'ERR_STORAGE_UNAVAILABLE',
          'rate-limit storage is unavailable; try again later',
          { cause: err },
        );
      }
    },
  };
}
