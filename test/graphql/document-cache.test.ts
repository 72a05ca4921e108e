import { createHash } from 'node:crypto';
import { parse } from 'graphql';
import { DocumentCache, type CheckedDocument } from '../../lib/graphql/document-cache.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function entry(text: string): CheckedDocument {
  const document = parse(text);
  return { text, hash: sha256(text), document, introspects: false, measured: document, operations: new Map() };
}

describe('DocumentCache (the gate\'s checked documents, Apollo\'s documentStore)', () => {
  test('Apollo finds a checked document under its own key (<schema hash>:<sha256 of the query>)', async () => {
    const cache = new DocumentCache();
    const checked = entry('{ a }');
    cache.remember(checked);
    expect(await cache.get(`0123abcd:${sha256('{ a }')}`)).toBe(checked.document);
    expect(cache.lookup('{ a }')).toBe(checked);
    expect(cache.of(checked.document)).toBe(checked);
  });

  test('what Apollo stores itself is ignored: only documents the gate validated skip Apollo\'s validation', async () => {
    const cache = new DocumentCache();
    const key = `0123abcd:${sha256('{ unchecked }')}`;
    await cache.set(key, parse('{ unchecked }'));
    expect(await cache.get(key)).toBeUndefined();
    expect(cache.lookup('{ unchecked }')).toBeUndefined();
  });

  test('a rewritten document is served under the hash of the text Apollo is handed', async () => {
    const cache = new DocumentCache();
    const checked = { ...entry('{ b }'), hash: sha256('{\n  b\n}'), rewritten: '{\n  b\n}' };
    cache.remember(checked);
    expect(await cache.get(`x:${sha256('{\n  b\n}')}`)).toBe(checked.document);
    expect(await cache.get(`x:${sha256('{ b }')}`)).toBeUndefined();
  });

  test('bounded by entries: the least recently used document goes first', async () => {
    const cache = new DocumentCache(2);
    const [a, b, c] = ['{ a }', '{ b }', '{ c }'].map(entry) as [CheckedDocument, CheckedDocument, CheckedDocument];
    cache.remember(a);
    cache.remember(b);
    cache.lookup('{ a }'); // a is now the most recently used
    cache.remember(c);
    expect(cache.lookup('{ b }')).toBeUndefined();
    expect(await cache.get(`x:${b.hash}`)).toBeUndefined();
    expect(cache.of(b.document)).toBeUndefined();
    expect(cache.lookup('{ a }')).toBe(a);
    expect(cache.lookup('{ c }')).toBe(c);
  });

  test('repeated lookups of the newest document keep the order right (it is not reordered, the others still are)', async () => {
    const cache = new DocumentCache(2);
    const [a, b, c, d] = ['{ a }', '{ b }', '{ c }', '{ d }'].map(entry) as [CheckedDocument, CheckedDocument, CheckedDocument, CheckedDocument];
    cache.remember(a);
    cache.remember(b);
    expect(cache.lookup('{ b }')).toBe(b); // b is already the newest
    expect(cache.lookup('{ b }')).toBe(b);
    expect(cache.lookup('{ a }')).toBe(a); // a becomes the newest: b is now the oldest
    cache.remember(c);
    expect(cache.lookup('{ b }')).toBeUndefined();
    // The newest (c) dropped by Apollo: a lookup of a still moves a, and the next eviction takes the oldest.
    await cache.delete(`x:${c.hash}`);
    expect(cache.lookup('{ a }')).toBe(a);
    cache.remember(b);
    cache.remember(d);
    expect(cache.lookup('{ a }')).toBeUndefined();
    expect(cache.lookup('{ b }')).toBe(b);
    expect(cache.lookup('{ d }')).toBe(d);
  });

  test('bounded by query text: large documents evict others, one larger than the whole budget is not kept', () => {
    const cache = new DocumentCache(1000, 38);
    const small = entry('{ a }');
    const big = entry(`{ ${'b '.repeat(16)}}`); // 35 characters
    cache.remember(small);
    cache.remember(big);
    expect(cache.lookup(small.text)).toBeUndefined();
    expect(cache.lookup(big.text)).toBe(big);
    const huge = entry(`{ ${'c '.repeat(30)}}`);
    cache.remember(huge);
    expect(cache.lookup(huge.text)).toBeUndefined();
    expect(cache.lookup(big.text)).toBe(big);
  });

  test('Apollo\'s delete drops the document everywhere', async () => {
    const cache = new DocumentCache();
    const checked = entry('{ a }');
    cache.remember(checked);
    expect(await cache.delete(`x:${checked.hash}`)).toBe(true);
    expect(cache.lookup('{ a }')).toBeUndefined();
    expect(cache.of(checked.document)).toBeUndefined();
  });
});
