import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { accountStoreConformance, storageConformance } from '../../lib/testing/index.js';

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const EXAMPLE = 'examples/custom-storage/conformance.test.ts';

/** `node --test` on a built file, with the TAP summary; a `timeout` in ms ends it. */
function nodeTest(file: string, timeout: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--test', '--test-reporter=tap', file], {
      cwd: root(''),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`timed out; output so far:\n${output}`));
    }, timeout);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

// The guide's example, built (npm run build), run as a host runs it: node:test, importing portcullis/testing
// through the package's "exports" (dist/lib/testing), against the memory storage and the account store it builds.
test('docs/guides/custom-storage.md: the node:test example runs every case of both suites, and they pass', async () => {
  const expected =
    storageConformance(() => {
      throw new Error('not run');
    }).length +
    accountStoreConformance(() => {
      throw new Error('not run');
    }).length;
  expect(expected).toBe(53);
  const { code, output } = await nodeTest('dist/examples/custom-storage/conformance.test.js', 120000);
  expect(output).toMatch(new RegExp(`^# tests ${expected}$`, 'm'));
  expect(output).toMatch(new RegExp(`^# pass ${expected}$`, 'm'));
  expect(output).toMatch(/^# fail 0$/m);
  expect(code).toBe(0);
}, 130000);

test('the guide shows the example file as it is', () => {
  const example = readFileSync(root(EXAMPLE), 'utf8');
  const code = example.slice(example.indexOf('import '));
  expect(readFileSync(root('docs/guides/custom-storage.md'), 'utf8')).toContain(code);
});
