import { jest } from '@jest/globals';

/**
 * The test clock: jest's fake timers for `Date` only, moving on with real time (`advanceTimers`, by the millisecond) and moved forward
 * at once by {@link advanceClock}, so a test about a time window waits for no real second. Timers, promises and I/O
 * stay real. The server runs in the test's own process and realm, so its `Date.now()` (ours: step-up freshness,
 * credential changes, the memory storage's expiry; oidc-provider's `epochTime` behind `auth_time`, `max_age` and the
 * session's sign-in time; jose's `iat`/`exp`) reads this clock, as do openid-client and tough-cookie in the test.
 * Not for Chromium (its own clock) nor for Redis's expiry (the Redis server's clock).
 *
 * Call in a file's top level or a `describe`: installs before its tests, restores the real clock after them.
 */
export function useTestClock(): void {
  beforeAll(() => {
    jest.useFakeTimers({
      // 1 ms every real millisecond: with `true` (20 ms every 20 ms) events a few ms apart read the same time, and a
      // sign-in right after a password change counted as checked "at or after" it (resume-after-change flaked so).
      advanceTimers: 1,
      doNotFake: [
        'hrtime',
        'nextTick',
        'performance',
        'queueMicrotask',
        'requestAnimationFrame',
        'cancelAnimationFrame',
        'requestIdleCallback',
        'cancelIdleCallback',
        'setImmediate',
        'clearImmediate',
        'setInterval',
        'clearInterval',
        'setTimeout',
        'clearTimeout',
      ],
    });
  });
  afterAll(() => {
    jest.useRealTimers();
  });
}

/** Moves the test clock (see {@link useTestClock}) `ms` milliseconds forward. */
export function advanceClock(ms: number): void {
  jest.setSystemTime(Date.now() + ms);
}

/** Moves the test clock (see {@link useTestClock}) to the start of the next second (epoch seconds roll over). */
export function toNextSecond(): void {
  jest.setSystemTime(Math.ceil((Date.now() + 1) / 1000) * 1000);
}
