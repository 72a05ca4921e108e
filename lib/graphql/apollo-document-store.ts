import type { DocumentStore } from '@apollo/server';
import type { DocumentNode } from 'graphql';

interface Stored { document: DocumentNode; chars: number }

/**
 * Apollo Server's `documentStore` (a `KeyValueCache` of the documents Apollo parsed and validated itself), owned
 * here so that it is bounded: least recently used documents are dropped beyond `maxEntries` documents or `maxChars`
 * characters of source text. Keys are Apollo's and opaque: nothing here reads them (Apollo chooses their format,
 * and may change it). The document gate keeps its own cache of checked documents, by query text
 * (lib/graphql/document-cache.ts); the two never share entries.
 */
export class ApolloDocumentStore implements DocumentStore {
  private readonly byKey = new Map<string, Stored>();
  private chars = 0;
  /** Key of the most recently used entry (last in `byKey`): reading it again needs no reordering. */
  private newest: string | undefined;

  /**
   * @param maxEntries documents kept (default 1000).
   * @param maxChars characters of source text kept in all (default 2 MiB), so large documents evict sooner.
   */
  constructor(private readonly maxEntries = 1000, private readonly maxChars = 2 * 1024 * 1024) {}

  async get(key: string): Promise<DocumentNode | undefined> {
    const stored = this.byKey.get(key);
    if (stored && key !== this.newest) {
      this.byKey.delete(key);
      this.byKey.set(key, stored);
      this.newest = key;
    }
    return stored?.document;
  }

  async set(key: string, document: DocumentNode): Promise<void> {
    const chars = document.loc?.source.body.length ?? 0;
    if (chars > this.maxChars) return;
    this.forget(key);
    this.byKey.set(key, { document, chars });
    this.newest = key;
    this.chars += chars;
    while (this.byKey.size > this.maxEntries || this.chars > this.maxChars) this.forget(this.byKey.keys().next().value!);
  }

  async delete(key: string): Promise<boolean> {
    return this.forget(key);
  }

  private forget(key: string): boolean {
    const stored = this.byKey.get(key);
    if (!stored) return false;
    if (this.newest === key) this.newest = undefined;
    this.byKey.delete(key);
    this.chars -= stored.chars;
    return true;
  }
}
