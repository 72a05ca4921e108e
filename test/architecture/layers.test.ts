import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MAX_FILE_LINES, MAX_FUNCTION_LINES, oversized } from '../../scripts/code-size.js';

/** The layer rules (`.dependency-cruiser.cjs`) run here so that the README's `npm test` enforces them. */
const root = fileURLToPath(new URL('../../', import.meta.url));
const depcruise = (...paths: string[]) =>
  spawnSync(
    process.execPath,
    [
      `${root}node_modules/dependency-cruiser/bin/dependency-cruise.mjs`,
      ...paths,
      '--config',
      '.dependency-cruiser.cjs',
      '--output-type',
      'err',
    ],
    { cwd: root, encoding: 'utf8' },
  );

test('lib/, adapters/ and config/ keep the layers: no cycle, core ← adapters ← features ← server (npm run check:layers)', () => {
  const run = depcruise('lib', 'adapters', 'config');
  expect(run.stdout + run.stderr).not.toMatch(/error/);
  expect(run.status).toBe(0);
});

test('a circular import fails the check', () => {
  const run = depcruise('test/architecture/fixtures/cycle');
  expect(run.status).not.toBe(0);
  expect(run.stdout).toMatch(/no-circular/);
});

// lib/testing (portcullis/testing) is loaded by tests only, and the library works without a test framework.
test.each([
  ['nothing-imports-testing', 'test/architecture/fixtures/imports-testing'],
  ['no-test-framework', 'test/architecture/fixtures/test-framework'],
])('%s: a violation fails the check', (rule, fixture) => {
  const run = depcruise(fixture);
  expect(run.status).not.toBe(0);
  expect(run.stdout).toContain(rule);
});

// Rules on lib/kernel and lib/features can only be tried from inside those folders: each row writes one module
// there for the run (named so that nothing else picks it up) and removes it.
test.each([
  [
    'features-independent-folders',
    'lib/features/zz-layer-fixture/index.ts',
    "export { passkeys } from '../passkeys/index.js';",
  ],
  [
    'features-use-kernel-types-only',
    'lib/features/zz-layer-fixture/index.ts',
    "export { openKernel } from '../../kernel/kernel.js';",
  ],
  [
    'kernel-knows-no-feature',
    'lib/kernel/zz-layer-fixture.ts',
    "export { health } from '../features/health/index.js';",
  ],
  ['features-below-top', 'lib/accounts/zz-layer-fixture.ts', "export type { Kernel } from '../kernel/types.js';"],
  // config/options.ts composes the features' option slices: they stay schema only, and config/ takes nothing else of a feature.
  [
    'option-slices-are-schema-only',
    'lib/features/zz-layer-fixture/options.ts',
    "export { BODY_LIMITS } from '../../http/body-limit.js';",
  ],
  [
    'config-uses-contracts-only',
    'config/zz-layer-fixture.ts',
    "export { health } from '../lib/features/health/index.js';",
  ],
])('%s: a violation fails the check', (rule, file, source) => {
  const path = `${root}${file}`;
  mkdirSync(path.slice(0, path.lastIndexOf('/')), { recursive: true });
  writeFileSync(path, `// A deliberate layer violation (test/architecture/layers.test.ts).\n${source}\n`);
  try {
    const run = depcruise(file);
    expect(run.status).not.toBe(0);
    expect(run.stdout).toContain(rule);
  } finally {
    rmSync(file.includes('/zz-layer-fixture/') ? path.slice(0, path.lastIndexOf('/')) : path, {
      recursive: true,
      force: true,
    });
  }
});

test(`no function over ${MAX_FUNCTION_LINES} lines and no file over ${MAX_FILE_LINES} lines in lib/ and adapters/ (npm run check:size)`, () => {
  expect(oversized(root)).toEqual([]);
});
