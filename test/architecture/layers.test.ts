import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
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

// Each row below is a deliberate violation: a fixture under test/architecture/fixtures, or a module written for the
// run into lib/kernel, lib/features, lib/accounts or config (rules on those folders can only be tried from inside
// them; named so that nothing else picks them up, and removed after). One dependency-cruiser run checks them all
// (about 1.3 s per run, mostly its start-up: ten runs took 12 s): each row's rule must be reported as an error
// from that row's own file or folder, and the run must fail.
const FIXTURES: Array<[rule: string, from: string, source?: string]> = [
  ['no-circular', 'test/architecture/fixtures/cycle/'],
  // lib/testing (portcullis/testing) is loaded by tests only, and the library works without a test framework.
  ['nothing-imports-testing', 'test/architecture/fixtures/imports-testing/'],
  ['no-test-framework', 'test/architecture/fixtures/test-framework/'],
  [
    'features-independent-folders',
    'lib/features/zz-layer-fixture/index.ts',
    "export { passkeys } from '../passkeys/index.js';",
  ],
  [
    'features-use-kernel-types-only',
    'lib/features/zz-layer-fixture-kernel/index.ts',
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
    'lib/features/zz-layer-fixture-options/options.ts',
    "export { BODY_LIMITS } from '../../http/body-limit.js';",
  ],
  [
    'config-uses-contracts-only',
    'config/zz-layer-fixture.ts',
    "export { health } from '../lib/features/health/index.js';",
  ],
];

describe('a violation fails the check', () => {
  let run: ReturnType<typeof depcruise>;
  beforeAll(() => {
    const written = FIXTURES.filter(([, , source]) => source !== undefined);
    try {
      for (const [, file, source] of written) {
        const path = `${root}${file}`;
        mkdirSync(path.slice(0, path.lastIndexOf('/')), { recursive: true });
        writeFileSync(path, `// A deliberate layer violation (test/architecture/layers.test.ts).\n${source}\n`);
      }
      run = depcruise(...FIXTURES.map(([, from]) => from.replace(/\/$/, '')));
    } finally {
      for (const [, file] of written) {
        const path = `${root}${file}`;
        rmSync(file.includes('/zz-layer-fixture') && file.startsWith('lib/features/') ? dirname(path) : path, {
          recursive: true,
          force: true,
        });
      }
    }
  });

  test('the run fails', () => {
    expect(run.status).not.toBe(0);
  });

  test.each(FIXTURES)('%s: reported as an error from %s', (rule, from) => {
    const escaped = from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect(run.stdout).toMatch(new RegExp(`^\\s*error ${rule}: ${escaped}`, 'm'));
  });
});

test(`no function over ${MAX_FUNCTION_LINES} lines and no file over ${MAX_FILE_LINES} lines in lib/ and adapters/ (npm run check:size)`, () => {
  expect(oversized(root)).toEqual([]);
});
