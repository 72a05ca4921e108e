import { readFileSync } from 'node:fs';
import { OPTION_DOCS, optionsTable } from '../../config/defaults.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const options = readFileSync(new URL('../../docs/reference/options.md', import.meta.url), 'utf8');

test('the option reference holds the table generated from the option schema (npm run docs:options)', () => {
  expect(options).toContain(optionsTable());
});

test('the generated table has one row per documented option, each with a default and a meaning', () => {
  const rows = optionsTable()
    .split('\n')
    .filter((line) => line.startsWith('| `'));
  expect(rows.map((row) => /^\| `([^`]+)`/.exec(row)![1])).toEqual(OPTION_DOCS.map((o) => o.path));
  expect(OPTION_DOCS.length).toBeGreaterThan(70);
  for (const doc of OPTION_DOCS) {
    expect(doc.default).not.toBe('');
    expect(doc.summary).not.toBe('');
  }
  // Spot checks that the cells come from the schema's defaults and annotations.
  expect(rows).toContain(
    '| `ttl.refreshToken` | `1209600` seconds (14 days) | Refresh token lifetime; rotated on every use, reuse revokes the grant |  | RFC 9700 §4.14 |',
  );
  expect(rows.find((r) => r.startsWith('| `graphql.rateLimit` |'))).toContain(
    '| `{ points: 600, durationSeconds: 60 }` |',
  );
});

test('the README shows the two commands, stays short and links the guides', () => {
  expect(readme).toContain('npm ci && npm start');
  expect(readme).toContain('npm ci && npm test');
  expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(20 * 1024);
  expect(readme).toContain('](docs/guides/getting-started.md)');
});
