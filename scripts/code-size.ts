/**
 * `npm run check:size`: lists the functions over {@link MAX_FUNCTION_LINES} lines and the files over
 * {@link MAX_FILE_LINES} lines in lib/ and adapters/ (TypeScript AST, comments and blank lines included), with no
 * exemptions: a longer function is split into named steps. `test/architecture/layers.test.ts` fails when the list is
 * not empty.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

export const MAX_FUNCTION_LINES = 80;
export const MAX_FILE_LINES = 300;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Every function (declaration, method, arrow, expression) and file over the limits, as `path#name: N lines`. */
export function oversized(root: string, folders: readonly string[] = ['lib', 'adapters']): string[] {
  const found: string[] = [];
  for (const file of folders.flatMap((folder) => sourceFiles(join(root, folder)))) {
    const path = relative(root, file).split('\\').join('/');
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n').length;
    if (lines > MAX_FILE_LINES) found.push(`${path}: ${lines} lines (file)`);
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        const name = node.name?.getText(source) ?? `(anonymous at line ${first + 1})`;
        if (last - first + 1 > MAX_FUNCTION_LINES) found.push(`${path}#${name}: ${last - first + 1} lines`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // Compiled to dist/scripts/: the repository is two levels up.
  const found = oversized(fileURLToPath(new URL('../../', import.meta.url)));
  for (const line of found) console.log(line);
  console.log(
    found.length
      ? `${found.length} over the limits (${MAX_FUNCTION_LINES} lines a function, ${MAX_FILE_LINES} a file)`
      : 'no function or file over the limits',
  );
  process.exitCode = found.length ? 1 : 0;
}
