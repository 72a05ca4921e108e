import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, MemoryStorage, type PortcullisConfig } from '../../lib/index.js';
import { documentationFiles } from '../helpers/readme-command.js';

/**
 * Every `storage: { … }` form the README, docs/ and the TSDoc of the sources show is one `loadConfig` accepts: a host
 * copies them. (`lib/redis.ts` told hosts to pass `storage: { redisUrl }`, which is refused as an unknown option.)
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const sources = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );

/** `[where, snippet]` of each `storage: { … }` in the README, docs/ and in comment lines of lib/, adapters/ and config/. */
function documentedForms(): Array<[string, string]> {
  const forms: Array<[string, string]> = [];
  const documents = documentationFiles().map(([file]) => file);
  for (const file of [...documents, ...['lib', 'adapters', 'config'].flatMap(sources)]) {
    readFileSync(join(ROOT, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (file.endsWith('.ts') && !/^\s*(\*|\/\/|\/\*\*)/.test(line)) return;
        for (const m of line.matchAll(/storage: (\{[^}]*\})/g)) forms.push([`${file}:${i + 1}`, m[1]!]);
      });
  }
  return forms;
}

/** The snippet as a value: quoted literals as written, each other member a stand-in of its kind. */
function valueOf(snippet: string): Record<string, unknown> {
  const standIn: Record<string, () => unknown> = {
    url: () => 'redis://127.0.0.1:6379',
    client: () => ({}),
    instance: () => new MemoryStorage(),
    keyPrefix: () => 'auth:',
    maxEntries: () => 1000,
  };
  return Object.fromEntries(
    snippet
      .slice(1, -1)
      .split(',')
      .map((member) => member.trim())
      .filter(Boolean)
      .map((member) => {
        const colon = member.indexOf(':');
        const [key, value] =
          colon < 0 ? [member, undefined] : [member.slice(0, colon).trim(), member.slice(colon + 1).trim()];
        const literal = value !== undefined && /^'[^']*'$/.test(value) ? value.slice(1, -1) : undefined;
        return [key, literal ?? (standIn[key] ?? (() => `unknown member ${key}`))()];
      }),
  );
}

const FORMS = documentedForms();

test('the docs and the TSDoc of portcullis/redis show storage forms', () => {
  expect(FORMS.filter(([where]) => where.startsWith('lib/redis.ts')).length).toBeGreaterThanOrEqual(2);
  expect(FORMS.filter(([where]) => where.includes('.md:')).length).toBeGreaterThanOrEqual(3);
});

test.each(FORMS)('%s: storage: %s is accepted by loadConfig', (_where, snippet) => {
  const config = loadConfig({ issuer: 'http://localhost:4351', storage: valueOf(snippet) } as PortcullisConfig, {});
  expect(config.storage.type).toBe(valueOf(snippet).type);
});
