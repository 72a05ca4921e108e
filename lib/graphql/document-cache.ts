import { BoundedLru } from './bounded-lru.js';
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
 * The documents the document gate has checked, so that a document is parsed, validated and measured once by the gate
 * and a repeated one costs a map lookup.
 *
 * - The gate looks documents up by their text ({@link lookup}) and stores them only after every check passed
 *   ({@link remember}); least recently used entries are dropped beyond `maxEntries` documents or `maxChars`
 *   characters of query text in all.
 * - {@link ofSource} gives the operation-limits plugin the gate's analysis of the text Apollo runs.
 * - Apollo Server keeps its own parsed documents in its own store (lib/graphql/apollo-document-store.ts): nothing
 *   here depends on how Apollo keys them.
 */
export class DocumentCache {
  /** Entries whose text Apollo is handed rewritten ({@link CheckedDocument.rewritten}), by that text. */
  private readonly byRewritten = new Map<string, CheckedDocument>();
  private readonly byText: BoundedLru<CheckedDocument>;

  /**
   * @param maxEntries documents kept (default 1000).
   * @param maxChars characters of query text kept in all (default 2 MiB), so large documents evict sooner.
   */
  constructor(maxEntries = 1000, maxChars = 2 * 1024 * 1024) {
    this.byText = new BoundedLru(maxEntries, maxChars, (_text, entry) => {
      if (entry.rewritten !== undefined && this.byRewritten.get(entry.rewritten) === entry)
        this.byRewritten.delete(entry.rewritten);
    });
  }

  /** The checked document of this exact query text, marked as recently used; `undefined` when not known. */
  lookup(text: string): CheckedDocument | undefined {
    return this.byText.get(text);
  }

  /** Whether this exact query text was checked (not marked as used: the gate's look-ahead before it charges). */
  has(text: string): boolean {
    return this.byText.has(text);
  }

  /** Stores a document that passed every document-level check of the gate. */
  remember(entry: CheckedDocument): void {
    const kept = this.byText.set(entry.text, entry, entry.text.length);
    if (kept && entry.rewritten !== undefined) this.byRewritten.set(entry.rewritten, entry);
  }

  /**
   * The gate's entry for the query text Apollo was handed (`requestContext.source`): the text the client sent, or
   * the rewritten one. Not marked as used (the gate did when it checked the request).
   */
  ofSource(source: string): CheckedDocument | undefined {
    return this.byText.peek(source) ?? (this.byRewritten.size > 0 ? this.byRewritten.get(source) : undefined);
  }
}
