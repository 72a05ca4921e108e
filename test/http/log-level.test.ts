import { createLogger } from '../../lib/core/logger.js';
import { ConfigError } from '../../lib/core/errors.js';

/**
 * `LOG_LEVEL` that names no pino level: `portcullis start` printed pino's "default level:bogus must be included in
 * custom levels" (a plain Error, no option named). It is a ConfigError at `LOG_LEVEL` listing the levels.
 */
test.each([['bogus'], ['INFO'], ['debug '], ['1']])('LOG_LEVEL=%j is a ConfigError at LOG_LEVEL', (value) => {
  let err: unknown;
  try {
    createLogger({ LOG_LEVEL: value });
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(ConfigError);
  expect(err).toMatchObject({ path: 'LOG_LEVEL' });
  expect((err as Error).message).toContain('must be one of trace, debug, info, warn, error, fatal, silent');
});

test.each([['silent'], ['error'], ['trace']])('LOG_LEVEL=%s is accepted', (value) => {
  expect(createLogger({ LOG_LEVEL: value }).level).toBe(value);
});

test('an empty LOG_LEVEL counts as unset', () => {
  expect(createLogger({ LOG_LEVEL: '', JEST_WORKER_ID: '1' }).level).toBe('silent');
});
