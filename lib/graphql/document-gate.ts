import type { GraphQLSchema } from 'graphql';
import type { Context, Middleware, Next } from 'koa';
import type { Limiter } from '../core/limiter.js';
import { DocumentCache } from './document-cache.js';
import { limitRules } from './document-checks.js';
import { checkAll } from './gate/check-all.js';
import { oversizedQuery, readPrice } from './gate/read-price.js';
import { gateSettings } from './gate/settings.js';
import type { ResolvedGraphqlOptions } from './options.js';
import { parseRateLimitedMessage, spendFirst } from './operation-budget.js';
import type { GraphqlRequestItem } from './request-params.js';

export { limitRules };
export { mayIntrospect } from './gate/introspection-refusal.js';

/**
 * Checks every request of `ctx.state.graphqlRequests` before Apollo parses it, cheapest first, and answers the
 * first failure itself, never with a 5xx and never with one error per repeated node. Each step is a named function
 * of lib/graphql/gate/ (read-price.ts 1, parse-document.ts 2–3, introspection-refusal.ts 4, validate-document.ts
 * 5–6, analyse-operation.ts 7–8, check-item.ts their order for one request, check-all.ts for a batch):
 * 1. query size in bytes (413 `QUERY_TOO_LARGE`) — before any parsing, for every request of a batch first;
 * 2. trusted documents, when configured (400 `UNTRUSTED_DOCUMENT`);
 * 3. parsing with graphql-js `maxTokens` (400 `MAX_TOKENS_EXCEEDED`; other syntax errors 400
 *    `GRAPHQL_PARSE_FAILED`);
 * 4. introspection (`__schema`, `__type` on the parsed document, any spelling) for this caller (400
 *    `INTROSPECTION_DISABLED`; with `requiredScope`, 401 without a token and 403 `insufficient_scope` for a token
 *    without it); when allowed, legacy `__Directive` members are stripped;
 * 5. the limit rules alone, so a document that breaks limits gets one error per broken limit and is not
 *    validated further (400 `MAX_…_EXCEEDED` with `extensions.limit`); introspection subtrees are exempt from
 *    depth, distinct fields and cost only;
 * 6. graphql-js validation (`specifiedRules`, {@link KnownOperationTypesRule} and `graphql.validationRules`): 400
 *    `GRAPHQL_VALIDATION_FAILED`, errors of the same message reported once, at most `MAX_REPORTED_ERRORS`;
 *    graphql-js' bare `Validation aborted.` (its own work budgets) is told as {@link VALIDATION_ABORTED};
 *    documents that pass 3 to 6 are remembered in `documents` (a bounded LRU keyed by the query text; Apollo keeps
 *    its own parsed documents, lib/graphql/apollo-document-store.ts) and not re-checked;
 * 7. the operation to run, by `operationName` (400 `OPERATION_RESOLUTION_FAILURE`); a subscription is refused
 *    (400 `SUBSCRIPTIONS_NOT_SUPPORTED`: this endpoint has no streaming transport); over GET only queries
 *    (405 with `Allow: POST`, checked before 5 and 6);
 * 8. the variables, coerced as the executor will (400 `BAD_USER_INPUT`; also an explicit null for a variable with a
 *    default used where a value is required, which would fail during execution), and the cost of the operation with
 *    those values — defaults and coercion included (400 `MAX_COST_EXCEEDED`). The resolved operation, its
 *    cost when it declares no variables and its rate-limit points are measured once per document.
 * When every request passed, `ctx.state.graphqlGate` is set for the operation-limits plugin: `checked`, or, for a
 * batch of several operations with a `limiter`, `charged` once their points, summed, are spent at once
 * ({@link chargeBatch}: the batch runs whole or is refused whole, 429 `RATE_LIMITED`).
 * With a `limiter`, refusals spend the same budget: the texts not in `documents` spend their {@link parsePrice}
 * in one consume before any parsing (over budget 429 `RATE_LIMITED`, unread); it covers any refusal that follows,
 * 413 included, and counts towards the operations' points (`ctx.state.graphqlPrepaid`). A refusal with every
 * document cached spends {@link REFUSAL_POINTS} before it is sent (over budget: 429 instead). A request whose
 * documents are all cached stays synchronous, charged once by the plugin or {@link chargeBatch}. Storage down: 503.
 */
export function documentGate(
  schema: GraphQLSchema,
  options: ResolvedGraphqlOptions,
  documents: DocumentCache = new DocumentCache(),
  limiter?: Limiter,
): Middleware {
  const s = gateSettings(schema, options, documents, limiter);
  const { parseBytesPerPoint } = options;
  // Not async for documents in the cache: every check is synchronous (a cached request costs no extra promise).
  return function checkDocuments(ctx: Context, next: Next) {
    const items = (ctx.state.graphqlRequests ?? []) as GraphqlRequestItem[];
    const oversized = oversizedQuery(s, ctx, items);
    const price = readPrice(s, items);
    // One consume before any parsing: an exhausted budget refuses new documents unread. It covers a refusal too.
    if (limiter && price > 0) {
      const message = (retry: number) => parseRateLimitedMessage(price, parseBytesPerPoint, retry);
      return spendFirst(ctx, limiter, price, message, oversized ?? (() => checkAll(s, ctx, next, items, price)));
    }
    return oversized ? oversized() : checkAll(s, ctx, next, items, 0);
  };
}
