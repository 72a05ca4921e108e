import { fileURLToPath } from 'node:url';
import { longLines, MAX_LINE_LENGTH, STRICT_FOLDERS } from '../../scripts/line-length.js';

/** The line-length rule (`npm run check:format`, after `biome format .`) for the shipped sources. */
const root = fileURLToPath(new URL('../../', import.meta.url));

test('a line over the width is listed with its file, line and length', () => {
  expect(longLines(`${root}test/architecture/fixtures/line-length`, ['lib'])).toEqual([
    'lib/long.ts:1: 127 characters',
  ]);
});

describe('line length', () => {
  test(`no line over ${MAX_LINE_LENGTH} characters in ${STRICT_FOLDERS.join('/, ')}/ (npm run check:format)`, () => {
    expect(longLines(root)).toEqual([]);
  });
});
