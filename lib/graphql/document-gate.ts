import { createHash } from 'node:crypto';
import { getOperationAST, GraphQLError, parse, validate, type DocumentNode, type GraphQLSchema, type ValidationRule } from 'graphql';
import type { Context, Middleware, Next } from 'koa';
import type { AuthInfo } from './auth-context.js';
import { sendGraphqlError } from './errors.js';
import { stripLegacyIntrospectionText, usesIntrospection, withoutIntrospection } from './introspection.js';
import type { ResolvedGraphqlOptions } from './options.js';
import {
  createMaxAliasesRule, createMaxCostRule, createMaxDepthRule, createMaxDirectivesRule, createMaxRecursiveSelectionsRule,
  createMaxRootFieldsRule, createMaxUniqueFieldsRule,
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

/**
 * Checks every request of `ctx.state.graphqlRequests` before Apollo parses it, cheapest first, and answers the
 * first failure itself:
 * 1. query size in bytes (413 `QUERY_TOO_LARGE`) — before any parsing;
 * 2. trusted documents, when configured (400 `UNTRUSTED_DOCUMENT`);
 * 3. parsing with graphql-js `maxTokens` (400 `MAX_TOKENS_EXCEEDED`); other syntax errors are left to Apollo;
 * 4. introspection (`__schema`, `__type` on the parsed document, any spelling) for this caller (400
 *    `INTROSPECTION_DISABLED`); when allowed, legacy `__Directive` members are stripped;
 * 5. the limit rules alone, so a document that breaks limits gets one error per broken limit and none of
 *    graphql-js's per-occurrence errors (400 `MAX_…_EXCEEDED` with `extensions.limit`); documents that pass are
 *    remembered (bounded cache) and not re-checked;
 * 6. over GET, only queries (405 with `Allow: POST`).
 */
export function documentGate(schema: GraphQLSchema, options: ResolvedGraphqlOptions): Middleware {
  const rules = limitRules(options.limits);
  const trusted = options.trustedDocuments ? new Set(options.trustedDocuments.map(sha256)) : undefined;
  const passed = new Map<string, { document: DocumentNode; introspects: boolean }>();
  const { maxQueryBytes, maxTokens } = options.limits;

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
          continue; // Apollo reports the syntax error (GRAPHQL_PARSE_FAILED, 400)
        }
      }
      const introspects = known ? known.introspects : usesIntrospection(document);
      if (introspects && !mayIntrospect(options.introspection, ctx.state.auth as AuthInfo | null)) {
        return sendGraphqlError(ctx, 400, 'INTROSPECTION_DISABLED', options.introspection.enabled
          ? `Introspection needs an access token with scope ${options.introspection.requiredScope}.`
          : 'Introspection is disabled on this endpoint.');
      }
      if (!known) {
        const errors = limitErrors(document);
        if (errors.length > 0) {
          ctx.status = 400;
          ctx.type = 'application/json';
          ctx.set('Cache-Control', 'no-store');
          ctx.body = { errors: errors.map((e) => ({ message: e.message, extensions: { code: e.extensions.code, limit: e.extensions.limit } })) };
          return;
        }
        if (passed.size >= 1000) passed.delete(passed.keys().next().value!);
        passed.set(hash, { document, introspects });
      }
      if (ctx.method === 'GET') {
        // GET never changes state (no CSRF preflight protects it): only queries, whatever the schema has.
        const operation = getOperationAST(document, item.operationName);
        if (operation && operation.operation !== 'query') {
          ctx.set('Allow', 'POST');
          return sendGraphqlError(ctx, 405, 'METHOD_NOT_ALLOWED', `GET runs queries only; send this ${operation.operation} as a POST.`);
        }
      }
      if (introspects) {
        const legacyFree = stripLegacyIntrospectionText(document);
        if (legacyFree) { item.query = legacyFree; rewritten = true; }
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
