import { createHash } from 'node:crypto';
import { getOperationAST, GraphQLError, parse, print, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { Context, Middleware, Next } from 'koa';
import type { AuthInfo } from './auth-context.js';
import { challenge, presentedScheme } from './bearer-auth.js';
import { explained, limitRules, resolveOperation, tokenLimitMessages, VALIDATION_RULES } from './document-checks.js';
import { sendGraphqlError, sendGraphqlErrors } from './errors.js';
import { stripLegacyIntrospection, usesIntrospection, withoutIntrospection } from './introspection.js';
import type { ResolvedGraphqlOptions } from './options.js';
import {
  createMaxAliasesRule, createMaxCostRule, createMaxDepthRule, createMaxDirectivesRule, createMaxRecursiveSelectionsRule,
  createMaxRootFieldsRule, createMaxUniqueFieldsRule, coerceVariables, operationCost,
} from './rules/index.js';
import type { GraphqlRequestItem } from './request-params.js';
import type { Limiter } from '../core/limiter.js';
import {
  chargeBatch, parsePrice, parseRateLimitedMessage, REFUSAL_POINTS, refusalRateLimitedMessage, spendFirst,
} from './operation-budget.js';
import { DocumentCache, type CheckedDocument, type OperationAnalysis } from './document-cache.js';
import { nullOverDefaultErrors, variablesNeedingValues } from './null-over-default.js';
import { rootFieldPoints } from './plugins/operation-limits.js';
import { fragmentsOf } from './rules/fragments.js';
import { parallelRules } from './rules/parallel.js';

export { limitRules };

/** A refusal's answer, deferred so that the refusal is charged to the rate limit before it is sent. */
type Answer = () => void;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Text that any document asking for `__schema` or `__type` contains (a quick pre-check before walking it). */
const INTROSPECTION_TEXT = /__schema|__type\b/;

/** Whether `auth` may introspect under `options.introspection`. */
export function mayIntrospect(options: ResolvedGraphqlOptions['introspection'], auth: AuthInfo | null): boolean {
  if (!options.enabled) return false;
  return options.requiredScope === undefined || (auth?.scopes.includes(options.requiredScope) ?? false);
}

/** A scope RFC 6750 §3 can quote in `WWW-Authenticate` (scope-token characters). */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * Refuses introspection with `INTROSPECTION_DISABLED`: `400` when it is off for everyone; when it needs
 * `requiredScope`, the resource-server answers of RFC 6750 §3 with the scope in `WWW-Authenticate` — `401` without a
 * token (no error code, §3.1) and `403 insufficient_scope` for a token without the scope (in the DPoP scheme, with
 * `algs`, when the token came in it: RFC 9449 §7.1) — so a client learns that a token, and which scope, would help.
 */
function refuseIntrospection(ctx: Context, introspection: ResolvedGraphqlOptions['introspection'], auth: AuthInfo | null): void {
  const scope = introspection.requiredScope;
  if (!introspection.enabled || scope === undefined) return sendGraphqlError(ctx, 400, 'INTROSPECTION_DISABLED', 'Introspection is disabled on this endpoint.');
  const quoted = SCOPE_TOKEN.test(scope) ? `scope="${scope}"` : undefined;
  const description = 'error_description="introspection needs a token with the scope named"';
  // A token presented in the DPoP scheme gets a DPoP challenge (RFC 9449 §7.1), with `algs`.
  ctx.set('WWW-Authenticate', auth === null
    ? challenge('Bearer', quoted ? [quoted] : [])
    : challenge(presentedScheme(ctx), ['error="insufficient_scope"', description, ...(quoted ? [quoted] : [])]));
  return sendGraphqlError(ctx, auth === null ? 401 : 403, 'INTROSPECTION_DISABLED', `Introspection needs an access token with scope ${scope}.`);
}



/**
 * Checks every request of `ctx.state.graphqlRequests` before Apollo parses it, cheapest first, and answers the
 * first failure itself, never with a 5xx and never with one error per repeated node:
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
 *    documents that pass 3 to 6 are remembered in `documents` (a bounded LRU keyed by the query text, shared
 *    with Apollo as its `documentStore`, so Apollo neither parses nor validates them again) and not re-checked;
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
export function documentGate(schema: GraphQLSchema, options: ResolvedGraphqlOptions, documents: DocumentCache = new DocumentCache(), limiter?: Limiter): Middleware {
  const { limits } = options;
  const allLimits = [parallelRules(limitRules(limits))];
  const wholeDocumentLimits = [parallelRules([
    createMaxRecursiveSelectionsRule(limits.maxRecursiveSelections), createMaxAliasesRule(limits.maxAliases),
    createMaxRootFieldsRule(limits.maxRootFields), createMaxDirectivesRule(limits.maxDirectives),
  ])];
  const dataLimits = [parallelRules([createMaxDepthRule(limits.maxDepth), createMaxUniqueFieldsRule(limits.maxUniqueFields), createMaxCostRule(limits.maxCost, limits)])];
  const trusted = options.trustedDocuments ? new Set(options.trustedDocuments.map(sha256)) : undefined;
  const { maxQueryBytes, maxTokens, maxCost } = options.limits;
  const { parseBytesPerPoint } = options;
  const tokenLimit = tokenLimitMessages(maxTokens);
  const validationRules = [...VALIDATION_RULES, ...options.validationRules];

  /**
   * The limits of a document. When it introspects, depth, distinct fields and cost measure its data part only
   * (the standard introspection query nests its type references deeper than `maxDepth` and, with GraphiQL's
   * options, costs more than `maxCost`); the expanded selections, aliases, root fields and directives count over
   * the whole document, so that introspection cannot be multiplied by aliases (the standard query has no alias,
   * one root field, no directive). Whether it may run at all is decided per caller below; it spends rate-limit
   * points like a list field ({@link rootFieldPoints}).
   */
  function limitErrors(document: DocumentNode, introspects: boolean) {
    if (!options.introspection.enabled || !introspects) return validate(schema, document, allLimits);
    return [...validate(schema, document, wholeDocumentLimits), ...validate(schema, withoutIntrospection(document), dataLimits)];
  }

  /** The operation `operationName` selects in a checked document, measured once and kept with the document. */
  function analyse(entry: CheckedDocument, operationName: string | undefined): OperationAnalysis | string {
    const known = entry.operations.get(operationName);
    if (known) return known;
    const operation = resolveOperation(entry.document, operationName);
    if (typeof operation === 'string') return operation; // not kept: operationName is the client's, unbounded
    const measuredOperation = entry.measured === entry.document ? operation : getOperationAST(entry.measured, operationName) ?? operation;
    const hasVariables = (operation.variableDefinitions?.length ?? 0) > 0;
    const rootType = operation.operation === 'mutation' ? schema.getMutationType()?.name
      : operation.operation === 'subscription' ? schema.getSubscriptionType()?.name : schema.getQueryType()?.name;
    const analysis: OperationAnalysis = {
      operation,
      measuredOperation,
      hasVariables,
      needingValues: hasVariables ? variablesNeedingValues(schema, entry.document, operation) : [],
      staticCost: hasVariables ? undefined : operationCost(schema, entry.measured, measuredOperation, {}, options.limits),
      // Over the whole operation: `__schema`/`__type` spend points too (introspection is not free to repeat).
      points: rootFieldPoints(operation.selectionSet, fragmentsOf(entry.document), rootType ?? 'Query', options.limits),
    };
    entry.operations.set(operationName, analysis);
    return analysis;
  }

  /**
   * Checks 2 to 8 of one request (size was checked for every request first): its refusal, as an answer to send once
   * the refusal is charged, or the checked document (its operation's analysis kept in it by `operationName`).
   * Synchronous; nothing allocated for a request that passes.
   */
  function checkItem(ctx: Context, item: GraphqlRequestItem): Answer | CheckedDocument {
    // A document seen before passed the trusted-documents, parsing, limit and validation checks: a lookup.
    let entry = documents.lookup(item.query);
    let document: DocumentNode;
    let introspects: boolean;
    let hash = '';
    if (entry) {
      ({ document, introspects } = entry);
    } else {
      hash = sha256(item.query);
      if (trusted && !trusted.has(hash)) {
        return () => sendGraphqlError(ctx, 400, 'UNTRUSTED_DOCUMENT', 'Only trusted documents are accepted here.');
      }
      try {
        document = parse(item.query, { maxTokens });
      } catch (err) {
        if (err instanceof GraphQLError && tokenLimit.has(err.message)) {
          return () => sendGraphqlError(ctx, 400, 'MAX_TOKENS_EXCEEDED', `The query has more than the limit of ${maxTokens} tokens.`, { limit: maxTokens });
        }
        if (err instanceof GraphQLError) return () => sendGraphqlErrors(ctx, 400, 'GRAPHQL_PARSE_FAILED', [err]);
        throw err;
      }
      // Field names are plain tokens (no escapes): without these letters there is no introspection field.
      introspects = INTROSPECTION_TEXT.test(item.query) && usesIntrospection(document);
    }
    if (introspects && !mayIntrospect(options.introspection, ctx.state.auth as AuthInfo | null)) {
      return () => refuseIntrospection(ctx, options.introspection, ctx.state.auth as AuthInfo | null);
    }
    if (ctx.method === 'GET') {
      // GET never changes state (no CSRF preflight protects it): only queries, whatever the schema has.
      const chosen = getOperationAST(document, item.operationName);
      if (chosen && chosen.operation !== 'query') {
        return () => {
          ctx.set('Allow', 'POST');
          sendGraphqlError(ctx, 405, 'METHOD_NOT_ALLOWED', `GET runs queries only; send this ${chosen.operation} as a POST.`);
        };
      }
    }
    if (!entry) {
      // What runs is the document without the legacy `__Directive` members: validate that one.
      if (introspects) document = stripLegacyIntrospection(document);
      const errors = limitErrors(document, introspects);
      if (errors.length > 0) return () => sendGraphqlErrors(ctx, 400, 'GRAPHQL_VALIDATION_FAILED', errors);
      const invalid = validate(schema, document, validationRules, { maxErrors: 100 });
      if (invalid.length > 0) return () => sendGraphqlErrors(ctx, 400, 'GRAPHQL_VALIDATION_FAILED', explained(invalid));
      // Older tools' introspection query names the legacy members: Apollo is handed the stripped document.
      const printed = introspects && /\bon(Operation|Fragment|Field)\b/.test(item.query) ? print(document) : undefined;
      entry = {
        text: item.query,
        hash: printed === undefined ? hash : sha256(printed),
        document,
        introspects,
        measured: introspects ? withoutIntrospection(document) : document,
        rewritten: printed,
        operations: new Map(),
      };
      documents.remember(entry);
    }
    const operation = analyse(entry, item.operationName);
    if (typeof operation === 'string') return () => sendGraphqlError(ctx, 400, 'OPERATION_RESOLUTION_FAILURE', operation);
    if (operation.operation.operation === 'subscription') {
      return () => sendGraphqlError(ctx, 400, 'SUBSCRIPTIONS_NOT_SUPPORTED', 'Subscriptions are not supported over HTTP at this endpoint: send a query or a mutation.');
    }
    // Without variable definitions the executor's variables are `{}` whatever was sent: the cost is fixed.
    let cost = operation.staticCost;
    if (operation.hasVariables) {
      const variables = coerceVariables(schema, operation.operation, item.variables);
      if (variables.errors) return () => sendGraphqlErrors(ctx, 400, 'BAD_USER_INPUT', variables.errors);
      if (operation.needingValues.length > 0) {
        const nulls = nullOverDefaultErrors(operation.needingValues, variables.coerced);
        if (nulls.length > 0) return () => sendGraphqlErrors(ctx, 400, 'BAD_USER_INPUT', nulls);
      }
      // Introspection was allowed for this caller above; only the data part is measured (as in the limits).
      cost = operationCost(schema, entry.measured, operation.measuredOperation, variables.coerced, options.limits);
    }
    if (cost! > maxCost) {
      return () => sendGraphqlError(ctx, 400, 'MAX_COST_EXCEEDED', `The query costs more than the limit of ${maxCost}.`, { limit: maxCost });
    }
    return entry;
  }

  /**
   * Checks 2 to 8 of every request, in order, and answers the first refusal — charged {@link REFUSAL_POINTS} unless
   * `prepaid` points were spent before parsing — or hands the requests to Apollo (a batch charged whole).
   */
  function checkAll(ctx: Context, next: Next, items: GraphqlRequestItem[], prepaid: number): void | Promise<void> {
    let rewritten = false;
    let points = 0;
    for (const item of items) {
      const checked = checkItem(ctx, item);
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
    if (rewritten) {
      if (ctx.method === 'GET') {
        const params = new URLSearchParams(ctx.querystring);
        params.set('query', items[0]!.query);
        ctx.querystring = params.toString();
      } else if (Array.isArray(ctx.request.body)) {
        ctx.request.body = (ctx.request.body as Array<Record<string, unknown>>).map((b, i) => ({ ...b, query: items[i]!.query }));
      } else {
        ctx.request.body = { ...(ctx.request.body as Record<string, unknown>), query: items[0]!.query };
      }
    }
    // Every operation of this request passed, its cost measured with its own variables: the operation-limits
    // plugin does not measure it again; a batch is charged here, whole, before any of it runs.
    if (limiter && items.length > 1) return chargeBatch(ctx, next, limiter, points, items.length, prepaid);
    ctx.state.graphqlGate = 'checked';
    // Spent before parsing: the plugin spends only what the operation's points exceed it by.
    if (prepaid > 0) ctx.state.graphqlPrepaid = prepaid;
    return next();
  }

  // Not async for documents in the cache: every check is synchronous (a cached request costs no extra promise).
  return function checkDocuments(ctx: Context, next: Next) {
    const items = (ctx.state.graphqlRequests ?? []) as GraphqlRequestItem[];
    // Step 1 for every request, and the parse price of the texts not checked before (a text repeated in a batch
    // once: the first copy checked is remembered for the others).
    let price = 0;
    let oversized: Answer | undefined;
    for (let i = 0; i < items.length; i++) {
      const text = items[i]!.query;
      const bytes = Buffer.byteLength(text);
      if (bytes > maxQueryBytes && !oversized) {
        oversized = () => sendGraphqlError(ctx, 413, 'QUERY_TOO_LARGE',
          `The query is larger than the limit of ${maxQueryBytes} bytes.`, { limit: maxQueryBytes });
      }
      if (!limiter || documents.has(text)) continue;
      if (i === 0 || items.findIndex((other) => other.query === text) === i) price += parsePrice(bytes, parseBytesPerPoint);
    }
    // One consume before any parsing: an exhausted budget refuses new documents unread. It covers a refusal too.
    if (limiter && price > 0) {
      const message = (retry: number) => parseRateLimitedMessage(price, parseBytesPerPoint, retry);
      return spendFirst(ctx, limiter, price, message, oversized ?? (() => checkAll(ctx, next, items, price)));
    }
    return oversized ? oversized() : checkAll(ctx, next, items, 0);
  };
}
