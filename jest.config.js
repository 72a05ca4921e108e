/** Jest runs the TypeScript sources as ESM (oidc-provider, jose and openid-client are ESM-only). */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  // SWC strips the types (@swc/jest, types removed only, ES modules kept); `npm test` has checked them with tsc
  // before. It replaced ts-jest, which ran the TypeScript compiler on every file in every worker (9.2 s of CPU for
  // the 416 files of a cold cache, against under 3 s for a types-only transform).
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2022', transform: { useDefineForClassFields: true } },
        module: { type: 'es6' },
        sourceMaps: 'inline',
      },
    ],
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 30000,
  // What the run shares (test/helpers/run-resources.ts): one signing key set and one Chromium, made before the
  // workers start instead of once per server or per browser file.
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  // Four test files at a time on CI's 2 cores. Jest's default there is one worker (cores - 1), and many files wait
  // on real servers, browsers, child processes and mail rather than compute. Full suite on a fresh clone of a quiet
  // 2-core machine (Node 22, 172 files, 4161 tests, issue 29), jest's wall time: two workers 333 s (79% of both
  // cores busy), three 297 s, four 280 s. (Three had measured no better than two on 38 files of a loaded machine,
  // before the suite stopped hashing a password at every server start.) Four workers made one timing of
  // test/http/logger.test.ts (a SIGTERM sent 500 ms after spawn) fail: it now waits for the child's handler.
  maxWorkers: 4,
  // The slowest files first (test/helpers/test-durations.json), also on a fresh clone where jest has no timings.
  testSequencer: '<rootDir>/test/helpers/sequencer.cjs',
  reporters: ['default', '<rootDir>/test/helpers/skipped-reporter.cjs'],
};
