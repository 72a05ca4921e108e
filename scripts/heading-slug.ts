/**
 * The anchor of a Markdown heading as GitHub makes it (github-slugger): the heading's text without its Markdown
 * (code ticks, emphasis, link targets), lower-cased, every character but letters, marks, digits, `_`, `-` and spaces
 * dropped, spaces turned into `-`. `### Configured clients: private_key_jwt` → `configured-clients-private_key_jwt`.
 * The docs site (docs/.vitepress/config.mts) makes its anchors with it too, so a link `page.md#anchor` works on
 * GitHub and on the site alike; test/docs/links.test.ts checks every link against it. A repeated heading gets `-1`,
 * `-2`, … (done by the caller).
 */
export function headingSlug(text: string): string {
  return text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown page's headings (outside code fences), repeated ones numbered as GitHub does. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    const heading = fence ? null : /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const slug = headingSlug(heading[1]!);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}
