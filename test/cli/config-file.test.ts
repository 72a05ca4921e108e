import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readConfigFile } from '../../lib/cli/config-file.js';
import { ConfigError } from '../../lib/core/errors.js';

/**
 * A `.mjs` configuration that throws while loading: the ConfigError at `--config` names the file and what was thrown
 * (the class, or the kind of value for a module that throws something other than an Error; never `undefined`), and
 * never the thrown message, which may quote a secret.
 */
const dir = mkdtempSync(join(tmpdir(), 'portcullis-config-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const rows: Array<[string, string, string]> = [
  ['an Error at the top level', 'throw new Error("hunter2")', 'Error'],
  ['a TypeError from the default function', 'export default () => { throw new TypeError("hunter2"); }', 'TypeError'],
  [
    'a string from an async default function',
    'export default async () => { throw "hunter2"; }',
    'it threw a string, not an Error',
  ],
  ['an object at the top level', 'throw { secret: "hunter2" };', 'it threw an object, not an Error'],
  [
    'undefined from the default function',
    'export default () => { throw undefined; }',
    'it threw undefined, not an Error',
  ],
  ['null from the default function', 'export default () => { throw null; }', 'it threw null, not an Error'],
];

test.each(rows)('a module that throws %s', async (name, source, what) => {
  const file = join(dir, `${name.replace(/\W+/g, '-')}.mjs`);
  writeFileSync(file, source);
  const err = await readConfigFile(file).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  expect(err).toMatchObject({ path: '--config' });
  expect((err as Error).message).toContain(`cannot load ${file}: ${what}`);
  expect((err as Error).message).not.toContain('hunter2');
  expect((err as Error).message).not.toContain('undefined)');
});
