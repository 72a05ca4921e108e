import { readFileSync } from 'node:fs';
import { OPTION_DOCS } from '../../config/defaults.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

test('every documented option has a row in the README configuration table, and no row is stale', () => {
  const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## Environment variables'));
  const rows = [...section.matchAll(/^\| `([^`]+)` \| ([^|]+) \|/gm)].map((m) => [m[1], m[2]!.trim()]);
  const documented = OPTION_DOCS.map((o) => o.path);
  expect(rows.map(([path]) => path).sort()).toEqual([...documented].sort());
});

test('the README shows the two commands', () => {
  expect(readme).toContain('npm ci && npm start');
  expect(readme).toContain('npm ci && npm test');
});
