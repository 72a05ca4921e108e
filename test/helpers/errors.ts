import type { ConfigError } from '../../lib/index.js';

/** Runs `fn` and returns the ConfigError it throws; fails the test when it throws nothing. */
export function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}
