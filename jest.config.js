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
  // Two test files at a time. Jest's default on a 2-core machine (CI's) is one worker (cores - 1), and most files
  // wait on real servers, browsers and timers rather than compute: the whole suite took 383 s with two workers
  // against 604-795 s with one on the CI machine, with the same 2868 passes.
  // Three workers measured no better than two (225 s and 226 s on 38 files of mfa, oidc, browser and accounts, on
  // a shared, loaded machine) once the suite stopped sleeping and generating keys per server.
  maxWorkers: 2,
  // The slowest files first (test/helpers/test-durations.json), also on a fresh clone where jest has no timings.
  testSequencer: '<rootDir>/test/helpers/sequencer.cjs',
  reporters: ['default', '<rootDir>/test/helpers/skipped-reporter.cjs'],
};
