import { AsyncLocalStorage } from 'node:async_hooks';
import type { ApolloServerPlugin, DocumentStore, GraphQLRequestListener } from '@apollo/server';
import type { DocumentNode } from 'graphql';
import { BoundedLru } from './bounded-lru.js';

/** The document the gate checked for this request, offered to Apollo's first store read once armed. */
interface HandOff {
  text: string;
  document: DocumentNode | undefined;
  armed: boolean;
}
const handOff = new AsyncLocalStorage<HandOff>();

/**
 * Runs `next` (Apollo, for one request) with the gate's checked `document` of `text` on offer: Apollo's store read
 * for that text returns it, so a document new to Apollo is not parsed and validated a second time. Public means
 * only: the offer is armed by {@link handOffPlugin} in `didResolveSource` when `requestContext.source` is `text`,
 * and taken by the next read ({@link ApolloDocumentStore.get}), whatever its key; anything else reads the LRU.
 */
export function withCheckedDocument<T>(text: string, document: DocumentNode, next: () => T): T {
  return handOff.run({ text, document, armed: false }, next);
}

const ARMING: GraphQLRequestListener<never> = {
  async didResolveSource(rc) {
    const offer = handOff.getStore();
    if (offer && offer.document && rc.source === offer.text) offer.armed = true;
  },
};

/** Arms the gate's offer ({@link withCheckedDocument}) for the request whose source is the text the gate checked. */
export const handOffPlugin: ApolloServerPlugin<never> = { requestDidStart: () => Promise.resolve(ARMING) };

/**
 * Apollo Server's `documentStore` (a `KeyValueCache` of parsed and validated documents), owned here so that it is
 * bounded: least recently used documents are dropped beyond `maxEntries` documents or `maxChars` characters of
 * source text. Keys are Apollo's and opaque: nothing here reads them (Apollo chooses their format, and may change
 * it). A document new to the gate is the gate's own, offered for its request ({@link withCheckedDocument}) and kept
 * under the key Apollo reads it with; Apollo parses and validates only what no gate offered (a batch, a host's
 * `executeOperation`, an entry evicted here but not from the gate's cache, lib/graphql/document-cache.ts).
 */
export class ApolloDocumentStore implements DocumentStore {
  private readonly documents: BoundedLru<DocumentNode>;

  /**
   * @param maxEntries documents kept (default 1000).
   * @param maxChars characters of source text kept in all (default 2 MiB), so large documents evict sooner.
   */
  constructor(maxEntries = 1000, maxChars = 2 * 1024 * 1024) {
    this.documents = new BoundedLru(maxEntries, maxChars);
  }

  async get(key: string): Promise<DocumentNode | undefined> {
    const offer = handOff.getStore();
    if (offer?.armed) {
      // Read right after didResolveSource armed it for this very text: the gate's document, once, and kept under
      // Apollo's key so that the next request of this text needs no offer.
      const { document } = offer;
      offer.armed = false;
      offer.document = undefined;
      if (document) await this.set(key, document);
      return document;
    }
    return this.documents.get(key);
  }

  async set(key: string, document: DocumentNode): Promise<void> {
    this.documents.set(key, document, document.loc?.source.body.length ?? 0);
  }

  async delete(key: string): Promise<boolean> {
    return this.documents.delete(key);
  }
}
