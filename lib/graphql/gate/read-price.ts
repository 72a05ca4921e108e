import type { Context } from 'koa';
import { sendGraphqlError } from '../errors.js';
import { parsePrice } from '../operation-budget.js';
import type { GraphqlRequestItem } from '../request-params.js';
import type { Answer, GateSettings } from './settings.js';

/**
 * Step 1 of the gate, for every request of a batch before anything is parsed: a query text over `maxQueryBytes`
 * bytes is refused (413 `QUERY_TOO_LARGE`), answered once the request's parse price is spent.
 */
export function oversizedQuery(
  s: GateSettings,
  ctx: Context,
  items: readonly GraphqlRequestItem[],
): Answer | undefined {
  const { maxQueryBytes } = s.options.limits;
  for (const item of items) {
    if (Buffer.byteLength(item.query) > maxQueryBytes) {
      return () =>
        sendGraphqlError(ctx, 413, 'QUERY_TOO_LARGE', `The query is larger than the limit of ${maxQueryBytes} bytes.`, {
          limit: maxQueryBytes,
        });
    }
  }
  return undefined;
}

/**
 * Rate-limit points of reading the texts of `items` not checked before ({@link parsePrice} each; a text repeated in
 * a batch once: the first copy checked is remembered for the others). 0 without a limiter or with every text cached.
 */
export function readPrice(s: GateSettings, items: readonly GraphqlRequestItem[]): number {
  if (!s.limiter) return 0;
  let price = 0;
  for (let i = 0; i < items.length; i++) {
    const text = items[i]!.query;
    if (s.documents.has(text)) continue;
    if (i === 0 || items.findIndex((other) => other.query === text) === i) {
      price += parsePrice(Buffer.byteLength(text), s.options.parseBytesPerPoint);
    }
  }
  return price;
}
