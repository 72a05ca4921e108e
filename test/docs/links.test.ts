import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { headingAnchors } from '../../scripts/heading-slug.js';
import { documentationFiles, ROOT } from '../helpers/readme-command.js';

/**
 * Every relative link of README.md and docs/**\/*.md leads somewhere: the file (or folder) exists, and a `#anchor`
 * names a heading of that page (GitHub's anchors, which the docs site uses too). No network: absolute URLs are left
 * alone. Links inside code (fenced blocks, `inline code`) are not links.
 */
const FILES = documentationFiles();

/** `[line, target]` of each Markdown link (`[text](target)`) outside code. */
function links(markdown: string): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  let fence = false;
  markdown.split('\n').forEach((line, i) => {
    if (line.startsWith('```')) {
      fence = !fence;
      return;
    }
    if (fence) return;
    for (const m of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) out.push([i + 1, m[1]!]);
  });
  return out;
}

/** Why a link does not lead anywhere, or undefined when it does. */
function brokenBecause(file: string, target: string): string | undefined {
  const [path, anchor] = target.split('#') as [string, string | undefined];
  const resolved = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)));
  if (resolved.startsWith('..')) return 'points outside the repository';
  if (!existsSync(join(ROOT, resolved))) return `${resolved} does not exist`;
  if (anchor === undefined) return undefined;
  if (!resolved.endsWith('.md') || statSync(join(ROOT, resolved)).isDirectory())
    return `#${anchor} on a file that is not a page`;
  return headingAnchors(readFileSync(join(ROOT, resolved), 'utf8')).has(anchor)
    ? undefined
    : `${resolved} has no heading #${anchor}`;
}

test('the README and docs/ have pages with relative links', () => {
  expect(FILES.map(([file]) => file)).toEqual(expect.arrayContaining(['README.md', 'docs/guides/getting-started.md']));
  expect(
    FILES.flatMap(([, text]) => links(text)).filter(([, t]) => !/^[a-z][a-z+.-]*:/.test(t)).length,
  ).toBeGreaterThan(100);
});

test('every relative link points to an existing file and heading', () => {
  const broken = FILES.flatMap(([file, text]) =>
    links(text)
      .filter(([, target]) => !/^[a-z][a-z+.-]*:/.test(target))
      .map(([line, target]) => [`${file}:${line}`, target, brokenBecause(file, target)] as const)
      .filter(([, , why]) => why !== undefined),
  );
  expect(broken).toEqual([]);
});
