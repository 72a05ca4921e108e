import type { DocumentStore } from '@apollo/server';
import type { DocumentNode, OperationDefinitionNode } from 'graphql';

/** What the document gate knows about one operation of a checked document: computed once per document. */
export interface OperationAnalysis {
  /** The operation in {@link CheckedDocument.document} (what Apollo executes). */
  operation: OperationDefinitionNode;
  /** The same operation in {@link CheckedDocument.measured} (introspection fields left out). */
  measuredOperation: OperationDefinitionNode;
  /** Whether the operation declares variables: its cost then depends on each request's values. */
  hasVariables: boolean;
  /** Nullable variables with a default used where a value is required: an explicit null for them is refused. */
  needingValues: readonly string[];
  /** The cost of an operation without variables (the same for every request); `undefined` with variables. */
  staticCost: number | undefined;
  /** Rate-limit points of one run (root field selections, see `rootFieldPoints`); independent of variables. */
  points: number;
}

/** A document that passed the gate's parsing, limit rules and validation, with what was measured of it. */
export interface CheckedDocument {
  /** The query text as the client sent it (the gate's cache key). */
  text: string;
  /** SHA-256 (hex) of the text Apollo is handed ({@link rewritten} when set): Apollo's documentStore key. */
  hash: string;
  /** The document that runs (legacy `__Directive` members stripped); the one that was validated. */
  document: DocumentNode;
  /** Whether it asks for `__schema` or `__type` (allowed or refused per caller, every request). */
  introspects: boolean;
  /** The data part that the limits and the cost measure (`document` itself when it does not introspect). */
  measured: DocumentNode;
  /** The printed `document` handed to Apollo instead of `text` when legacy members were stripped. */
  rewritten?: string;
  /** Operations resolved so far, by the request's `operationName` (`undefined`: the only operation). */
  operations: Map<string | undefined, OperationAnalysis>;
}

/**
 * The documents the document gate has checked, shared with Apollo Server as its `documentStore` so that a
 * document is parsed, validated and measured once (by the gate) and a repeated one costs a map lookup.
 *
 * - The gate looks documents up by their text ({@link lookup}) and stores them only after every check passed
 *   ({@link remember}); least recently used entries are dropped beyond `maxEntries` documents or `maxChars`
 *   characters of query text in all.
 * - Apollo reads it through {@link get} with its own key (`<schema hash>:<sha256 of the query>`); a document it
 *   finds is neither parsed nor validated again — which is why only the gate writes: {@link set} ignores what
 *   Apollo parsed itself (it then parses and validates again next time, as without a store).
 * - {@link of} gives the operation-limits plugin the gate's analysis of the document Apollo runs.
 */
export class DocumentCache implements DocumentStore {
  private readonly byText = new Map<string, CheckedDocument>();
  private readonly byHash = new Map<string, CheckedDocument>();
  private readonly byDocument = new WeakMap<DocumentNode, CheckedDocument>();
  private chars = 0;
  /** The most recently used entry (last in `byText`): looking it up again needs no reordering. */
  private newest: CheckedDocument | undefined;

  /**
   * @param maxEntries documents kept (default 1000).
   * @param maxChars characters of query text kept in all (default 2 MiB), so large documents evict sooner.
   */
  constructor(private readonly maxEntries = 1000, private readonly maxChars = 2 * 1024 * 1024) {}

  /** The checked document of this exact query text, marked as recently used; `undefined` when not known. */
  lookup(text: string): CheckedDocument | undefined {
    const entry = this.byText.get(text);
    if (entry && entry !== this.newest) {
      this.byText.delete(text);
      this.byText.set(text, entry);
      this.newest = entry;
    }
    return entry;
  }

  /** Whether this exact query text was checked (not marked as used: the gate's look-ahead before it charges). */
  has(text: string): boolean {
    return this.byText.has(text);
  }

  /** Stores a document that passed every document-level check of the gate. */
  remember(entry: CheckedDocument): void {
    if (entry.text.length > this.maxChars) return;
    const old = this.byText.get(entry.text);
    if (old) this.forget(old);
    this.byText.set(entry.text, entry);
    this.newest = entry;
    this.byHash.set(entry.hash, entry);
    this.byDocument.set(entry.document, entry);
    this.chars += entry.text.length;
    while (this.byText.size > this.maxEntries || this.chars > this.maxChars) {
      this.forget(this.byText.values().next().value!);
    }
  }

  /** The gate's entry for a document object it stored (the one Apollo got from {@link get}). */
  of(document: DocumentNode): CheckedDocument | undefined {
    return this.byDocument.get(document);
  }

  /** Apollo's documentStore read: `key` is `<prefix>:<sha256 hex>`. */
  async get(key: string): Promise<DocumentNode | undefined> {
    return this.byHash.get(key.slice(key.lastIndexOf(':') + 1))?.document;
  }

  /** Apollo's documentStore write: ignored, only documents the gate checked are served from here. */
  async set(_key: string, _document: DocumentNode): Promise<void> {}

  /** Apollo's documentStore delete. */
  async delete(key: string): Promise<boolean> {
    const entry = this.byHash.get(key.slice(key.lastIndexOf(':') + 1));
    if (entry) this.forget(entry);
    return entry !== undefined;
  }

  private forget(entry: CheckedDocument): void {
    if (this.newest === entry) this.newest = undefined;
    this.byText.delete(entry.text);
    if (this.byHash.get(entry.hash) === entry) this.byHash.delete(entry.hash);
    this.byDocument.delete(entry.document);
    this.chars -= entry.text.length;
  }
}
