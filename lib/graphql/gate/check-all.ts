import type { Context, Next } from 'koa';
import { withCheckedDocument } from '../apollo-document-store.js';
import { chargeBatch, REFUSAL_POINTS, refusalRateLimitedMessage, spendFirst } from '../operation-budget.js';
import type { GraphqlRequestItem } from '../request-params.js';
import { checkItem } from './check-item.js';
import type { GateSettings } from './settings.js';

/**
 * Hands Apollo the rewritten query texts (introspection queries without the legacy members) in place of the sent ones.
 */
function handRewrittenTexts(ctx: Context, items: GraphqlRequestItem[]): void {
  if (ctx.method === 'GET') {
    const params = new URLSearchParams(ctx.querystring);
    params.set('query', items[0]!.query);
    ctx.querystring = params.toString();
  } else if (Array.isArray(ctx.request.body)) {
    ctx.request.body = (ctx.request.body as Array<Record<string, unknown>>).map((b, i) => ({
      ...b,
      query: items[i]!.query,
    }));
  } else {
    ctx.request.body = { ...(ctx.request.body as Record<string, unknown>), query: items[0]!.query };
  }
}

/**
 * Checks 2 to 8 of every request, in order, and answers the first refusal — charged {@link REFUSAL_POINTS} unless
 * `prepaid` points were spent before parsing — or hands the requests to Apollo (a batch charged whole).
 */
export function checkAll(
  s: GateSettings,
  ctx: Context,
  next: Next,
  items: GraphqlRequestItem[],
  prepaid: number,
): void | Promise<void> {
  const { limiter } = s;
  let rewritten = false;
  let points = 0;
  // A text new to the gate is new to Apollo: it is offered the gate's document below (once; Apollo keeps it).
  const fresh = items.length === 1 && !s.documents.has(items[0]!.query);
  let last;
  for (const item of items) {
    const checked = checkItem(s, ctx, item);
    last = checked;
    if (typeof checked === 'function') {
      if (!limiter || prepaid > 0) return checked();
      return spendFirst(ctx, limiter, REFUSAL_POINTS, refusalRateLimitedMessage, checked);
    }
    points += checked.operations.get(item.operationName)!.points;
    if (checked.rewritten !== undefined) {
      item.query = checked.rewritten;
      rewritten = true;
    }
  }
  if (rewritten) handRewrittenTexts(ctx, items);
  // Every operation of this request passed, its cost measured with its own variables: the operation-limits
  // plugin does not measure it again; a batch is charged here, whole, before any of it runs.
  if (limiter && items.length > 1) return chargeBatch(ctx, next, limiter, points, items.length, prepaid);
  ctx.state.graphqlGate = 'checked';
  // Spent before parsing: the plugin spends only what the operation's points exceed it by.
  if (prepaid > 0) ctx.state.graphqlPrepaid = prepaid;
  // One new operation: Apollo is offered the checked document rather than parsing and validating the text again.
  if (fresh && last && typeof last !== 'function')
    return withCheckedDocument(last.rewritten ?? last.text, last.document, next);
  return next();
}
