interface Slot<V> {
  value: V;
  chars: number;
}

/**
 * A least-recently-used map bounded twice: by entries and by characters of source text, so that large documents
 * evict sooner. The gate's checked documents (lib/graphql/document-cache.ts) and Apollo's parsed ones
 * (lib/graphql/apollo-document-store.ts) are kept in one each. Reading the most recently used entry again needs no
 * reordering (the hot path of a repeated document).
 */
export class BoundedLru<V> {
  private readonly slots = new Map<string, Slot<V>>();
  private chars = 0;
  /** Key of the most recently used entry (last in `slots`). */
  private newest: string | undefined;

  /**
   * @param maxEntries entries kept.
   * @param maxChars characters kept in all (each entry's `chars` as given to {@link set}).
   * @param onDrop called with each entry removed (evicted, replaced or deleted), to keep a side index in step.
   */
  constructor(
    private readonly maxEntries: number,
    private readonly maxChars: number,
    private readonly onDrop?: (key: string, value: V) => void,
  ) {}

  /** The value of `key`, marked as recently used; `undefined` when not kept. */
  get(key: string): V | undefined {
    const slot = this.slots.get(key);
    if (slot && key !== this.newest) {
      this.slots.delete(key);
      this.slots.set(key, slot);
      this.newest = key;
    }
    return slot?.value;
  }

  /** The value of `key`, not marked as used. */
  peek(key: string): V | undefined {
    return this.slots.get(key)?.value;
  }

  has(key: string): boolean {
    return this.slots.has(key);
  }

  /**
   * Keeps `value` as the most recently used entry; one larger than `maxChars` on its own is not kept (and an older
   * value of `key` stays). Whether it was kept.
   */
  set(key: string, value: V, chars: number): boolean {
    if (chars > this.maxChars) return false;
    this.delete(key);
    this.slots.set(key, { value, chars });
    this.newest = key;
    this.chars += chars;
    while (this.slots.size > this.maxEntries || this.chars > this.maxChars)
      this.delete(this.slots.keys().next().value!);
    return true;
  }

  /** Removes `key`; whether it was kept. */
  delete(key: string): boolean {
    const slot = this.slots.get(key);
    if (!slot) return false;
    if (this.newest === key) this.newest = undefined;
    this.slots.delete(key);
    this.chars -= slot.chars;
    this.onDrop?.(key, slot.value);
    return true;
  }
}
