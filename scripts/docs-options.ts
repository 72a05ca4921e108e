/**
 * `npm run docs:options`: writes the configuration table generated from the option schema (`config/options.ts`)
 * into README.md between its markers. `test/config/readme.test.ts` fails when the README is not up to date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { optionsTable, README_TABLE_END, README_TABLE_START } from '../config/defaults.js';

const file = new URL('../../README.md', import.meta.url);
const readme = readFileSync(file, 'utf8');
const start = readme.indexOf(README_TABLE_START);
const end = readme.indexOf(README_TABLE_END);
if (start < 0 || end < start) throw new Error(`README.md lacks the markers ${README_TABLE_START} … ${README_TABLE_END}`);
const updated = `${readme.slice(0, start + README_TABLE_START.length)}\n${optionsTable()}${readme.slice(end)}`;
if (updated === readme) console.log('README.md configuration table is up to date');
else {
  writeFileSync(file, updated);
  console.log('README.md configuration table regenerated from config/options.ts');
}
