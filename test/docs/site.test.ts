import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../helpers/readme-command.js';

/**
 * The docs site builds from docs/ as `npm run docs:build` builds it (VitePress; about 5 s here, no network), into a
 * scratch folder: every page renders (a Markdown construct Vue cannot compile fails the build), links within docs/
 * lead to pages (VitePress' dead-link check), anchors are GitHub's, and the search index is built.
 */
const out = mkdtempSync(join(tmpdir(), 'portcullis-site-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

test('the site builds, with GitHub anchors and local search', () => {
  const build = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/vitepress/bin/vitepress.js'), 'build', 'docs', '--outDir', out],
    { cwd: ROOT, encoding: 'utf8' },
  );
  expect([build.status, build.stderr]).toEqual([0, expect.not.stringContaining('dead link')]);
  expect(existsSync(join(out, 'index.html'))).toBe(true);
  expect(readFileSync(join(out, 'guides/client-registration.html'), 'utf8')).toContain(
    'id="configured-clients-private_key_jwt-client_secret_jwt-and-dpop"',
  );
  expect(readFileSync(join(out, 'index.html'), 'utf8')).toContain('Portcullis documentation');
  expect(readdirSync(join(out, 'assets/chunks')).some((f) => f.startsWith('@localSearchIndex'))).toBe(true);
}, 120_000);
