import { getOperationAST, type DocumentNode } from 'graphql';
import type { Context } from 'koa';
import type { AuthInfo } from '../auth-context.js';
import type { CheckedDocument } from '../document-cache.js';
import { sendGraphqlError, sendGraphqlErrors } from '../errors.js';
import type { GraphqlRequestItem } from '../request-params.js';
import { analyseOperation, costWithVariables } from './analyse-operation.js';
import { mayIntrospect, refuseIntrospection } from './introspection-refusal.js';
import { parseNewDocument, type ParsedDocument } from './parse-document.js';
import type { Answer, GateSettings } from './settings.js';
import { validateNewDocument } from './validate-document.js';

/** Over GET only queries: GET never changes state (no CSRF preflight protects it), whatever the schema has. */
function refuseGetMutation(
  ctx: Context,
  document: DocumentNode,
  operationName: string | undefined,
): Answer | undefined {
  const chosen = getOperationAST(document, operationName);
  if (!chosen || chosen.operation === 'query') return undefined;
  return () => {
    ctx.set('Allow', 'POST');
    sendGraphqlError(ctx, 405, 'METHOD_NOT_ALLOWED', `GET runs queries only; send this ${chosen.operation} as a POST.`);
  };
}

/**
 * Checks 2 to 8 of one request (size was checked for every request first): its refusal, as an answer to send once
 * the refusal is charged, or the checked document (its operation's analysis kept in it by `operationName`).
 * A document seen before passed steps 2, 3, 5 and 6: a lookup. Synchronous; nothing allocated for a request
 * that passes with a cached document.
 */
export function checkItem(s: GateSettings, ctx: Context, item: GraphqlRequestItem): Answer | CheckedDocument {
  let entry = s.documents.lookup(item.query);
  let parsed: ParsedDocument | undefined;
  if (!entry) {
    const read = parseNewDocument(s, ctx, item.query);
    if (typeof read === 'function') return read;
    parsed = read;
  }
  const document = entry ? entry.document : parsed!.document;
  const introspects = entry ? entry.introspects : parsed!.introspects;
  const auth = ctx.state.auth as AuthInfo | null;
  if (introspects && !mayIntrospect(s.options.introspection, auth)) {
    return () => refuseIntrospection(ctx, s.options.introspection, auth);
  }
  if (ctx.method === 'GET') {
    const refused = refuseGetMutation(ctx, document, item.operationName);
    if (refused) return refused;
  }
  if (!entry) {
    const validated = validateNewDocument(s, ctx, item.query, parsed!);
    if (typeof validated === 'function') return validated;
    entry = validated;
  }
  const operation = analyseOperation(s, entry, item.operationName);
  if (typeof operation === 'string') return () => sendGraphqlError(ctx, 400, 'OPERATION_RESOLUTION_FAILURE', operation);
  if (operation.operation.operation === 'subscription') {
    return () =>
      sendGraphqlError(
        ctx,
        400,
        'SUBSCRIPTIONS_NOT_SUPPORTED',
        'Subscriptions are not supported over HTTP at this endpoint: send a query or a mutation.',
      );
  }
  const cost = costWithVariables(s, entry, operation, item.variables);
  if (typeof cost !== 'number') return () => sendGraphqlErrors(ctx, 400, 'BAD_USER_INPUT', cost.errors);
  const { maxCost } = s.options.limits;
  if (cost > maxCost) {
    return () =>
      sendGraphqlError(ctx, 400, 'MAX_COST_EXCEEDED', `The query costs more than the limit of ${maxCost}.`, {
        limit: maxCost,
      });
  }
  return entry;
}
