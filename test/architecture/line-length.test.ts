import { fileURLToPath } from 'node:url';
import { longLines, MAX_LINE_LENGTH, STRICT_FOLDERS } from '../../scripts/line-length.js';
import { suiteIf } from '../helpers/skip.js';

/** The line-length rule (`npm run check:format`, after `biome format .`) for the shipped sources. */
const root = fileURLToPath(new URL('../../', import.meta.url));

test('a line over the width is listed with its file, line and length', () => {
  expect(longLines(`${root}test/architecture/fixtures/line-length`, ['lib'])).toEqual([
    'lib/long.ts:1: 127 characters',
  ]);
});

// Turned on (FORMATTED = true) by the change that formats the tree with Biome and splits the long strings and
// comments (issue 29): until then the sources still have lines over the width.
const FORMATTED = false;
suiteIf(FORMATTED, 'the tree is not formatted yet (issue 29)')('line length', () => {
  test(`no line over ${MAX_LINE_LENGTH} characters in ${STRICT_FOLDERS.join('/, ')}/ (npm run check:format)`, () => {
    expect(longLines(root)).toEqual([]);
  });
});
