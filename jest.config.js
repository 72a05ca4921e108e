/** Jest runs the TypeScript sources as ESM (oidc-provider, jose and openid-client are ESM-only). */
export default {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.test.json' }] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 30000,
  reporters: ['default', '<rootDir>/test/helpers/skipped-reporter.cjs'],
};
