/**
 * `npm run check:format` (after `biome format .`): lists the lines over {@link MAX_LINE_LENGTH} characters in the
 * shipped sources ({@link STRICT_FOLDERS}). Biome keeps code within that width but cannot break a long string,
 * template or comment; those are split by hand (or by the wrap step of the formatting change), so that every
 * line of lib/, adapters/, config/, scripts/ and bin/ fits. Tests, bench and examples are formatted by Biome too
 * but may keep long string literals (expected texts, fixtures). `test/architecture/line-length.test.ts` fails when
 * the list is not empty.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const MAX_LINE_LENGTH = 120;
export const STRICT_FOLDERS: readonly string[] = ['lib', 'adapters', 'config', 'scripts', 'bin'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sourceFiles(path);
    return /\.(ts|mts|cts|js|mjs|cjs)$/.test(entry.name) ? [path] : [];
  });
}

/** Every line over {@link MAX_LINE_LENGTH} characters (code points) in `folders`, as `path:line: N characters`. */
export function longLines(root: string, folders: readonly string[] = STRICT_FOLDERS): string[] {
  const found: string[] = [];
  for (const file of folders.flatMap((folder) => sourceFiles(join(root, folder)))) {
    const path = relative(root, file).split('\\').join('/');
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const length = [...line].length;
        if (length > MAX_LINE_LENGTH) found.push(`${path}:${i + 1}: ${length} characters`);
      });
  }
  return found;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // Compiled to dist/scripts/: the repository is two levels up.
  const found = longLines(fileURLToPath(new URL('../../', import.meta.url)));
  for (const line of found) console.log(line);
  console.log(
    found.length
      ? `${found.length} line(s) over ${MAX_LINE_LENGTH} characters in ${STRICT_FOLDERS.join(', ')}`
      : `no line over ${MAX_LINE_LENGTH} characters in ${STRICT_FOLDERS.join(', ')}`,
  );
  process.exitCode = found.length ? 1 : 0;
}
