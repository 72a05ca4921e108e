import { parse } from 'graphql';
import { ApolloDocumentStore, handOffPlugin, withCheckedDocument } from '../../lib/graphql/apollo-document-store.js';
import { DocumentCache, type CheckedDocument } from '../../lib/graphql/document-cache.js';

function entry(text: string): CheckedDocument {
  const document = parse(text);
  return { text, document, introspects: false, measured: document, operations: new Map() };
}

describe("DocumentCache (the gate's checked documents, by query text)", () => {
  test('the gate finds a checked document by its text; the plugin by the text Apollo is handed', () => {
    const cache = new DocumentCache();
    const checked = entry('{ a }');
    cache.remember(checked);
    expect(cache.lookup('{ a }')).toBe(checked);
    expect(cache.has('{ a }')).toBe(true);
    expect(cache.ofSource('{ a }')).toBe(checked);
    expect(cache.lookup('{ unchecked }')).toBeUndefined();
    expect(cache.ofSource('{ unchecked }')).toBeUndefined();
  });

  test('a rewritten document is found by the text Apollo is handed, and looked up by the text sent', () => {
    const cache = new DocumentCache();
    const checked = { ...entry('{ b }'), rewritten: '{\n  b\n}' };
    cache.remember(checked);
    expect(cache.ofSource('{\n  b\n}')).toBe(checked);
    expect(cache.lookup('{ b }')).toBe(checked);
    expect(cache.lookup('{\n  b\n}')).toBeUndefined();
  });

  test('bounded by entries: the least recently used document goes first', async () => {
    const cache = new DocumentCache(2);
    const [a, b, c] = ['{ a }', '{ b }', '{ c }'].map(entry) as [CheckedDocument, CheckedDocument, CheckedDocument];
    cache.remember(a);
    cache.remember(b);
    cache.lookup('{ a }'); // a is now the most recently used
    cache.remember(c);
    expect(cache.lookup('{ b }')).toBeUndefined();
    expect(cache.ofSource('{ b }')).toBeUndefined();
    expect(cache.lookup('{ a }')).toBe(a);
    expect(cache.lookup('{ c }')).toBe(c);
  });

  test('repeated lookups of the newest document keep the order right (it is not reordered, the others still are)', async () => {
    const cache = new DocumentCache(2);
    const [a, b, c, d] = ['{ a }', '{ b }', '{ c }', '{ d }'].map(entry) as [
      CheckedDocument,
      CheckedDocument,
      CheckedDocument,
      CheckedDocument,
    ];
    cache.remember(a);
    cache.remember(b);
    expect(cache.lookup('{ b }')).toBe(b); // b is already the newest
    expect(cache.lookup('{ b }')).toBe(b);
    expect(cache.lookup('{ a }')).toBe(a); // a becomes the newest: b is now the oldest
    cache.remember(c);
    expect(cache.lookup('{ b }')).toBeUndefined();
    expect(cache.lookup('{ a }')).toBe(a); // a is the newest again: c the oldest
    cache.remember(d);
    expect(cache.lookup('{ c }')).toBeUndefined();
    expect(cache.lookup('{ a }')).toBe(a);
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

  test('a rewritten entry evicted is no longer found by its rewritten text', () => {
    const cache = new DocumentCache(1);
    cache.remember({ ...entry('{ b }'), rewritten: '{\n  b\n}' });
    cache.remember(entry('{ a }'));
    expect(cache.ofSource('{\n  b\n}')).toBeUndefined();
  });
});

describe("ApolloDocumentStore (Apollo's own parsed documents, its keys opaque)", () => {
  test('what Apollo stores under a key it reads back under that key, and deletes', async () => {
    const store = new ApolloDocumentStore();
    const document = parse('{ a }');
    await store.set('any key Apollo chooses', document);
    expect(await store.get('any key Apollo chooses')).toBe(document);
    expect(await store.get('another')).toBeUndefined();
    expect(await store.delete('any key Apollo chooses')).toBe(true);
    expect(await store.get('any key Apollo chooses')).toBeUndefined();
    expect(await store.delete('any key Apollo chooses')).toBe(false);
  });

  test('bounded by entries: the least recently read document goes first', async () => {
    const store = new ApolloDocumentStore(2);
    const [a, b, c] = ['{ a }', '{ b }', '{ c }'].map((t) => parse(t));
    await store.set('a', a!);
    await store.set('b', b!);
    await store.get('a');
    await store.set('c', c!);
    expect(await store.get('b')).toBeUndefined();
    expect(await store.get('a')).toBe(a);
    expect(await store.get('c')).toBe(c);
  });

  test('bounded by source text: a large document evicts others, one over the whole budget is not kept', async () => {
    const store = new ApolloDocumentStore(1000, 38);
    await store.set('small', parse('{ a }'));
    await store.set('big', parse(`{ ${'b '.repeat(16)}}`));
    expect(await store.get('small')).toBeUndefined();
    expect(await store.get('big')).toBeDefined();
    await store.set('huge', parse(`{ ${'c '.repeat(30)}}`));
    expect(await store.get('huge')).toBeUndefined();
    expect(await store.get('big')).toBeDefined();
  });
});

describe("the gate's document offered to Apollo (withCheckedDocument)", () => {
  const armFor = async (source: string) => {
    const listener = await handOffPlugin.requestDidStart!({} as never);
    await listener!.didResolveSource!({ source } as never);
  };

  test('taken by the first read after didResolveSource armed it for the same text, once, whatever the key, and kept under it', async () => {
    const store = new ApolloDocumentStore();
    const document = parse('{ a }');
    await withCheckedDocument('{ a }', document, async () => {
      expect(await store.get('k')).toBeUndefined(); // not armed yet
      await armFor('{ a }');
      expect(await store.get('k')).toBe(document);
      expect(await store.get('other key')).toBeUndefined(); // taken: offered once
    });
    expect(await store.get('k')).toBe(document); // kept under Apollo's key for the next request
  });

  test('not armed for another text (a nested operation of the same request reads the store)', async () => {
    const store = new ApolloDocumentStore();
    const other = parse('{ b }');
    await store.set('k', other);
    await withCheckedDocument('{ a }', parse('{ a }'), async () => {
      await armFor('{ b }');
      expect(await store.get('k')).toBe(other);
    });
  });

  test('outside a gated request there is no offer', async () => {
    const store = new ApolloDocumentStore();
    await armFor('{ a }');
    expect(await store.get('k')).toBeUndefined();
  });
});
