import { createHash } from 'node:crypto';
import {
  getOperationAST, GraphQLError, Kind, parse, print, specifiedRules, validate,
  type DocumentNode, type GraphQLSchema, type OperationDefinitionNode, type ValidationRule,
} from 'graphql';
import type { Context, Middleware, Next } from 'koa';
import type { AuthInfo } from './auth-context.js';
import { sendGraphqlError, sendGraphqlErrors } from './errors.js';
import { stripLegacyIntrospection, usesIntrospection, withoutIntrospection } from './introspection.js';
import type { ResolvedGraphqlOptions } from './options.js';
import {
  createMaxAliasesRule, createMaxCostRule, createMaxDepthRule, createMaxDirectivesRule, createMaxRecursiveSelectionsRule,
  createMaxRootFieldsRule, createMaxUniqueFieldsRule, coerceVariables, KnownOperationTypesRule, operationCost,
} from './rules/index.js';
import type { GraphqlRequestItem } from './transport.js';

/** The limit rules of the options, in the order their errors are reported. */
export function limitRules(limits: ResolvedGraphqlOptions['limits']): ValidationRule[] {
  return [
    createMaxRecursiveSelectionsRule(limits.maxRecursiveSelections),
    createMaxDepthRule(limits.maxDepth),
    createMaxAliasesRule(limits.maxAliases),
    createMaxRootFieldsRule(limits.maxRootFields),
    createMaxUniqueFieldsRule(limits.maxUniqueFields),
    createMaxDirectivesRule(limits.maxDirectives),
    createMaxCostRule(limits.maxCost, limits),
  ];
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Whether `auth` may introspect under `options.introspection`. */
export function mayIntrospect(options: ResolvedGraphqlOptions['introspection'], auth: AuthInfo | null): boolean {
  if (!options.enabled) return false;
  return options.requiredScope === undefined || (auth?.scopes.includes(options.requiredScope) ?? false);
}

/** The rules every document must pass before it runs: graphql-js's `specifiedRules` plus operation-type existence. */
const VALIDATION_RULES: readonly ValidationRule[] = [...specifiedRules, KnownOperationTypesRule];

/** The operation `operationName` selects, or why there is none (graphql-js's own selection, `getOperationAST`). */
function resolveOperation(document: DocumentNode, operationName: string | undefined): OperationDefinitionNode | string {
  const operation = getOperationAST(document, operationName);
  if (operation) return operation;
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (operationName !== undefined) return `The document has no operation named "${operationName.slice(0, 100)}".`;
  return operations.length === 0 ? 'The document has no operation to run.'
    : `The document has ${operations.length} operations: name the one to run in operationName.`;
}

/**
 * Checks every request of `ctx.state.graphqlRequests` before Apollo parses it, cheapest first, and answers the
 * first failure itself, never with a 5xx and never with one error per repeated node:
 * 1. query size in bytes (413 `QUERY_TOO_LARGE`) — before any parsing;
 * 2. trusted documents, when configured (400 `UNTRUSTED_DOCUMENT`);
 * 3. parsing with graphql-js `maxTokens` (400 `MAX_TOKENS_EXCEEDED`; other syntax errors 400
 *    `GRAPHQL_PARSE_FAILED`);
 * 4. introspection (`__schema`, `__type` on the parsed document, any spelling) for this caller (400
 *    `INTROSPECTION_DISABLED`); when allowed, legacy `__Directive` members are stripped;
 * 5. the limit rules alone, so a document that breaks limits gets one error per broken limit and is not
 *    validated further (400 `MAX_…_EXCEEDED` with `extensions.limit`);
 * 6. graphql-js validation (`specifiedRules` and {@link KnownOperationTypesRule}): 400
 *    `GRAPHQL_VALIDATION_FAILED`, errors of the same message reported once, at most `MAX_REPORTED_ERRORS`;
 *    documents that pass 5 and 6 are remembered (bounded cache) and not re-checked;
 * 7. the operation to run, by `operationName` (400 `OPERATION_RESOLUTION_FAILURE`); a subscription is refused
 *    (400 `SUBSCRIPTIONS_NOT_SUPPORTED`: this endpoint has no streaming transport); over GET only queries
 *    (405 with `Allow: POST`, checked before 5 and 6);
 * 8. the variables, coerced as the executor will (400 `BAD_USER_INPUT`), and the cost of the operation with
 *    those values — defaults and coercion included (400 `MAX_COST_EXCEEDED`).
 */
export function documentGate(schema: GraphQLSchema, options: ResolvedGraphqlOptions): Middleware {
  const rules = limitRules(options.limits);
  const trusted = options.trustedDocuments ? new Set(options.trustedDocuments.map(sha256)) : undefined;
  const passed = new Map<string, { document: DocumentNode; introspects: boolean }>();
  const { maxQueryBytes, maxTokens, maxCost } = options.limits;

  const selectionsRule = createMaxRecursiveSelectionsRule(options.limits.maxRecursiveSelections);
  /**
   * The limits of a document. Introspection subtrees are left out of every limit but the expanded-selections
   * one (as graphql-armor's `ignoreIntrospection`): the standard introspection query is deeper and wider than
   * any sane data query, and whether it may run at all is decided per caller below.
   */
  function limitErrors(document: DocumentNode) {
    if (!options.introspection.enabled || !usesIntrospection(document)) return validate(schema, document, rules);
    const dataOnly = withoutIntrospection(document);
    return [...validate(schema, document, [selectionsRule]), ...validate(schema, dataOnly, rules.slice(1))];
  }

  return async function checkDocuments(ctx: Context, next: Next) {
    const items = (ctx.state.graphqlRequests ?? []) as GraphqlRequestItem[];
    let rewritten = false;
    for (const item of items) {
      if (Buffer.byteLength(item.query) > maxQueryBytes) {
        return sendGraphqlError(ctx, 413, 'QUERY_TOO_LARGE', `The query is larger than the limit of ${maxQueryBytes} bytes.`, { limit: maxQueryBytes });
      }
      const hash = sha256(item.query);
      if (trusted && !trusted.has(hash)) {
        return sendGraphqlError(ctx, 400, 'UNTRUSTED_DOCUMENT', 'Only trusted documents are accepted here.');
      }
      const known = passed.get(hash);
      let document = known?.document;
      if (!document) {
        try {
          document = parse(item.query, { maxTokens });
        } catch (err) {
          if (err instanceof GraphQLError && /tokens/.test(err.message)) {
            return sendGraphqlError(ctx, 400, 'MAX_TOKENS_EXCEEDED', `The query has more than the limit of ${maxTokens} tokens.`, { limit: maxTokens });
          }
          if (err instanceof GraphQLError) return sendGraphqlErrors(ctx, 400, 'GRAPHQL_PARSE_FAILED', [err]);
          throw err;
        }
      }
      const introspects = known ? known.introspects : usesIntrospection(document);
      if (introspects && !mayIntrospect(options.introspection, ctx.state.auth as AuthInfo | null)) {
        return sendGraphqlError(ctx, 400, 'INTROSPECTION_DISABLED', options.introspection.enabled
          ? `Introspection needs an access token with scope ${options.introspection.requiredScope}.`
          : 'Introspection is disabled on this endpoint.');
      }
      if (ctx.method === 'GET') {
        // GET never changes state (no CSRF preflight protects it): only queries, whatever the schema has.
        const chosen = getOperationAST(document, item.operationName);
        if (chosen && chosen.operation !== 'query') {
          ctx.set('Allow', 'POST');
          return sendGraphqlError(ctx, 405, 'METHOD_NOT_ALLOWED', `GET runs queries only; send this ${chosen.operation} as a POST.`);
        }
      }
      if (!known) {
        // What runs is the document without the legacy `__Directive` members: validate that one.
        if (introspects) document = stripLegacyIntrospection(document);
        const errors = limitErrors(document);
        if (errors.length > 0) return sendGraphqlErrors(ctx, 400, 'GRAPHQL_VALIDATION_FAILED', errors);
        const invalid = validate(schema, document, VALIDATION_RULES, { maxErrors: 100 });
        if (invalid.length > 0) return sendGraphqlErrors(ctx, 400, 'GRAPHQL_VALIDATION_FAILED', invalid);
        if (passed.size >= 1000) passed.delete(passed.keys().next().value!);
        passed.set(hash, { document, introspects });
      }
      const operation = resolveOperation(document, item.operationName);
      if (typeof operation === 'string') return sendGraphqlError(ctx, 400, 'OPERATION_RESOLUTION_FAILURE', operation);
      if (operation.operation === 'subscription') {
        return sendGraphqlError(ctx, 400, 'SUBSCRIPTIONS_NOT_SUPPORTED', 'Subscriptions are not supported over HTTP at this endpoint: send a query or a mutation.');
      }
      const variables = coerceVariables(schema, operation, item.variables);
      if (variables.errors) return sendGraphqlErrors(ctx, 400, 'BAD_USER_INPUT', variables.errors);
      // Introspection was allowed for this caller above; only the data part is measured (as in the limits).
      const measured = introspects ? withoutIntrospection(document) : document;
      const measuredOperation = measured === document ? operation : getOperationAST(measured, item.operationName) ?? operation;
      if (operationCost(schema, measured, measuredOperation, variables.coerced, options.limits) > maxCost) {
        return sendGraphqlError(ctx, 400, 'MAX_COST_EXCEEDED', `The query costs more than the limit of ${maxCost}.`, { limit: maxCost });
      }
      if (introspects && /\bon(Operation|Fragment|Field)\b/.test(item.query)) {
        item.query = print(document);
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
    return next();
  };
}
