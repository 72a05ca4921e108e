/**
 * `npm run docs:options`: writes the generated pages of docs/reference/ (scripts/reference-pages.ts), the option
 * reference from the option schema (`config/options.ts`, the core's options and the features' slices it composes)
 * among them. `test/docs/reference-pages.test.ts` fails when a committed page is not up to date.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { referencePages, repositoryRoot } from './reference-pages.js';

for (const page of referencePages()) {
  const file = join(repositoryRoot(), page.path);
  let current: string | undefined;
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === page.markdown) {
    console.log(`${page.path} is up to date`);
    continue;
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, page.markdown);
  console.log(`${page.path} regenerated`);
}
