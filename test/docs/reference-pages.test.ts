import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { referencePages } from '../../scripts/reference-pages.js';
import { ROOT } from '../helpers/readme-command.js';

/** The committed pages of docs/reference/ are exactly what `npm run docs:options` generates from the code. */
test.each(referencePages().map((page) => [page.path, page] as const))('%s is up to date (npm run docs:options)', (_path, page) => {
  expect(readFileSync(join(ROOT, page.path), 'utf8')).toBe(page.markdown);
});

test('the option reference is generated from the option schema', () => {
  expect(referencePages().map((page) => page.path)).toContain('docs/reference/options.md');
});
