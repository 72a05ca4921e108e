import {
  HeaderMap,
  type ApolloServerPlugin,
  type GraphQLRequestContextDidResolveOperation,
  type GraphQLRequestListener,
} from '@apollo/server';
import {
  getOperationAST,
  GraphQLError,
  Kind,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { StorageUnavailableError } from '../../core/errors.js';
import type { Limiter, LimitResult } from '../../core/limiter.js';
import type { GraphqlContext } from '../auth-context.js';
import { GraphqlErrorCode } from '../errors.js';
import { usesIntrospection, withoutIntrospection } from '../introspection.js';
import { limitError } from '../rules/limit-error.js';
import { coerceVariables, operationCost, type CostOptions } from '../rules/max-cost.js';
import { fragmentsOf, sumOverFields } from '../rules/fragments.js';
import type { DocumentCache } from '../document-cache.js';
import { storageOutageGraphqlError } from '../storage-outage.js';
import { limiterOutage, operationLimitKey, rateLimitedMessage } from '../operation-budget.js';
import { DEFAULTS } from '../../../config/defaults.js';

/**
 * Aliased fields (not `__typename`) in `set` and every selection below it, fragments expanded (each spread counts
 * the fragment's aliases again; memoised, cycles count 0).
 */
function aliasedFieldsIn(
  set: SelectionSetNode | undefined,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  memo: Map<string, number>,
  visiting: Set<string>,
): number {
  const aliased = (field: FieldNode): number =>
    (field.alias && field.name.value !== '__typename' ? 1 : 0) +
    sumOverFields(field.selectionSet, fragments, aliased, memo, visiting);
  return sumOverFields(set, fragments, aliased, memo, visiting);
}

/**
 * Points one operation spends: each root field selection (every alias separately, through fragments, memoised)
 * weighs its `fieldCosts` entry or `defaultFieldCost` (at least 1; `__typename` 0). Introspection (`__schema`,
 * `__type`) weighs like a list field without a size argument, `defaultFieldCost × defaultListSize` (10 with the
 * defaults), unless `fieldCosts` lists `Query.__schema` / `Query.__type`: one standard introspection query spends
 * 10 of the default 600 points a minute. A request with 100 aliases of one field spends 100.
 *
 * Each aliased field below the root spends `defaultFieldCost` too (at least 1): an alias there is another call of
 * the field with arguments of the caller's choosing (`{ me { a1: checkCode(code: "0001") a2: … } }`), the
 * brute force in one request that counting root fields alone let through at one point a request.
 */
export function rootFieldPoints(
  selectionSet: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  rootType: string,
  options: CostOptions,
): number {
  const memo = new Map<string, number>();
  const visiting = new Set<string>();
  const fieldCost = options.defaultFieldCost ?? DEFAULTS.graphql.limits.defaultFieldCost;
  const introspectionCost = fieldCost * (options.defaultListSize ?? DEFAULTS.graphql.limits.defaultListSize);
  const aliasMemo = new Map<string, number>();
  const aliasVisiting = new Set<string>();
  const weigh = (set: SelectionSetNode): number => {
    let n = 0;
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        const name = sel.name.value;
        if (name === '__typename') continue;
        const own = name === '__schema' || name === '__type' ? introspectionCost : fieldCost;
        n += Math.max(1, options.fieldCosts?.[`${rootType}.${name}`] ?? own);
        n += Math.max(1, fieldCost) * aliasedFieldsIn(sel.selectionSet, fragments, aliasMemo, aliasVisiting);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) n += weigh(sel.selectionSet);
      else {
        const name = sel.name.value;
        if (memo.has(name)) {
          n += memo.get(name)!;
          continue;
        }
        const fragment = fragments.get(name);
        if (!fragment || visiting.has(name)) continue;
        visiting.add(name);
        const c = weigh(fragment.selectionSet);
        visiting.delete(name);
        memo.set(name, c);
        n += c;
      }
    }
    return n;
  };
  return weigh(selectionSet);
}

/** What the document gate did for a request, read by {@link operationLimitsPlugin}. */
export type GateOutcome = 'checked' | 'charged';

/** Options of {@link operationLimitsPlugin}. */
export interface OperationLimitsOptions {
  schema: GraphQLSchema;
  maxCost: number;
  cost: CostOptions;
  /** Budget of executed root fields; `undefined` turns rate limiting off. */
  limiter?: Limiter;
  /** The document gate's checked documents, by query text: their analysis is reused. */
  documents?: DocumentCache;
  /**
   * What the document gate did for this request (see `documentGate`): `checked` its operations, cost included, or
   * `charged` — checked them and spent the points of the whole batch, so nothing is measured or spent here.
   * `undefined`: no gate in front (a host's own Apollo Server), everything is measured and spent here.
   */
  gate?: (context: GraphqlContext) => GateOutcome | undefined;
  /**
   * Points the document gate already spent for this request before parsing its document (`parsePrice`, absent:
   * 0): they count towards the operation's points, so only what the operation spends beyond them is consumed here.
   */
  prepaid?: (context: GraphqlContext) => number;
  /**
   * Called when the limiter's storage does not answer, before the operation is refused with 503 (noted for the request
   * log line).
   */
  onStorageOutage?: (context: GraphqlContext, err: StorageUnavailableError) => void;
  /** Called with each refusal of this plugin (its HTTP status and error) before it is thrown: `graphql.onReject`. */
  onRefusal?: (context: GraphqlContext, status: number, error: GraphQLError) => void;
}

/** Tells `options.onRefusal` of `error`, answered with `status`, and gives it back to be thrown. */
function refused(
  options: OperationLimitsOptions,
  context: GraphqlContext,
  status: number,
  error: GraphQLError,
): GraphQLError {
  options.onRefusal?.(context, status, error);
  return error;
}

type ResolvedOperation = GraphQLRequestContextDidResolveOperation<GraphqlContext>;

/**
 * Step 1 of {@link operationLimitsPlugin}: the points of `resolved` (the gate's, else measured here after the cost
 * check); `undefined` when nothing is to be spent (a batch the gate charged, variables Apollo refuses, no limiter).
 */
function operationPoints(options: OperationLimitsOptions, rc: ResolvedOperation, resolved: OperationDefinitionNode) {
  // A document the gate checked for this very request: its cost with these variables was measured there
  // and its points once per document. Anything else (no gate in front, an entry evicted meanwhile) is
  // measured here.
  const gate = options.gate?.(rc.contextValue);
  // A batch the gate charged whole before any of it ran (its points and costs measured there).
  if (gate === 'charged') return undefined;
  const checked = gate === 'checked' && rc.source !== undefined ? options.documents?.ofSource(rc.source) : undefined;
  // The gate kept the analysis under the request's `operationName` (none: `undefined`), as Apollo reads it.
  let points = checked?.operations.get(rc.request.operationName ?? undefined)?.points;
  if (points === undefined) {
    // Introspection was allowed for this caller by the document gate; only the data part is measured for the
    // cost (as the gate does), the whole operation for the points.
    const document =
      /__schema|__type\b/.test(rc.source ?? '') && usesIntrospection(rc.document)
        ? withoutIntrospection(rc.document)
        : rc.document;
    const operation = getOperationAST(document, rc.operationName) ?? resolved;
    // The values the executor will use (defaults, coercion); invalid ones are Apollo's BAD_USER_INPUT.
    const variables = coerceVariables(options.schema, resolved, rc.request.variables);
    if (variables.errors) return undefined;
    const cost = operationCost(options.schema, document, operation, variables.coerced, options.cost);
    if (cost > options.maxCost)
      throw refused(
        options,
        rc.contextValue,
        400,
        limitError('MAX_COST_EXCEEDED', `The query costs more than the limit of ${options.maxCost}.`, options.maxCost),
      );
    if (!options.limiter) return undefined;
    const fragments = fragmentsOf(rc.document);
    const rootType =
      operation.operation === 'mutation'
        ? options.schema.getMutationType()?.name
        : operation.operation === 'subscription'
          ? options.schema.getSubscriptionType()?.name
          : options.schema.getQueryType()?.name;
    points = rootFieldPoints(resolved.selectionSet, fragments, rootType ?? 'Query', options.cost);
  }
  return points;
}

/** Step 2 of {@link operationLimitsPlugin}: spends `points`, less `prepaid`, from the caller's budget (429, 503). */
async function spendPoints(options: OperationLimitsOptions, rc: ResolvedOperation, points: number): Promise<void> {
  if (!options.limiter) return;
  // Nothing to spend (`__typename` only), or covered by what reading the document spent.
  const due = points - (options.prepaid?.(rc.contextValue) ?? 0);
  if (due <= 0) return;
  const { auth, ip } = rc.contextValue;
  let result: LimitResult;
  try {
    result = await options.limiter.consume(operationLimitKey(auth, ip), due);
  } catch (err) {
    // A limiter that cannot count refuses (never lets the operation through); thrown as it is, Apollo would
    // answer 500 INTERNAL_SERVER_ERROR.
    const outage = limiterOutage(err);
    options.onStorageOutage?.(rc.contextValue, outage);
    throw refused(options, rc.contextValue, 503, storageOutageGraphqlError(outage));
  }
  if (!result.allowed) {
    throw refused(
      options,
      rc.contextValue,
      429,
      new GraphQLError(rateLimitedMessage(points, result.retryAfterSeconds), {
        extensions: {
          code: GraphqlErrorCode.RATE_LIMITED,
          http: { status: 429, headers: new HeaderMap([['retry-after', String(result.retryAfterSeconds)]]) },
        },
      }),
    );
  }
}

/**
 * Apollo plugin that runs once the operation is known (`didResolveOperation`, before execution, for every
 * transport and every operation of a batch):
 * - nothing for the operations of a batch the document gate charged as a whole (`gate` answers `charged`);
 * - unless the document gate already did for this request (`gate` answers `checked`, a document from `documents`),
 *   computes the cost with the variables the executor will use (`first: $n`, defaults and coercion applied),
 *   400 `MAX_COST_EXCEEDED`;
 * - spends {@link rootFieldPoints} from the caller's budget — key `sub:<sub>|client:<client_id>` for a
 *   token, `ip:<address>` otherwise; less what the gate spent reading the document (`prepaid`) — and answers
 *   429 `RATE_LIMITED` with `Retry-After` when it is exhausted,
 *   503 `TEMPORARILY_UNAVAILABLE` with `Retry-After` when the limiter's storage does not answer.
 */
export function operationLimitsPlugin(options: OperationLimitsOptions): ApolloServerPlugin<GraphqlContext> {
  // One listener for every request (it keeps no per-request state): nothing allocated per request.
  const listener: GraphQLRequestListener<GraphqlContext> = {
    async didResolveOperation(rc) {
      // No operation (several and no or an unknown operationName): Apollo answers 400
      // OPERATION_RESOLUTION_FAILURE itself once execution finds none; nothing to measure or spend.
      if (!rc.operation) return;
      const points = operationPoints(options, rc, rc.operation);
      if (points !== undefined) await spendPoints(options, rc, points);
    },
  };
  return {
    requestDidStart: () => Promise.resolve(listener),
  };
}

/**
 * The cost limit of a document with the request's variables, for a host that runs its own Apollo Server with the
 * rules of `portcullis/graphql`: {@link createMaxCostRule} runs at validation, without the variables (a size
 * given as `first: $n` counts as `defaultListSize`), so a document cheap at validation may be costly with its
 * variables. This plugin measures each operation with the values the executor will use (variables coerced,
 * defaults applied) in Apollo's `didResolveOperation`, before execution, and refuses it with 400
 * `MAX_COST_EXCEEDED` (`extensions.limit`) above `maxCost`. No rate limit: that one needs Portcullis' server.
 *
 * @param schema the executable schema Apollo runs.
 * @param options `maxCost` (graphql-armor's default is 5000) and the {@link CostOptions} the validation rule uses.
 */
export function costLimitPlugin(
  schema: GraphQLSchema,
  options: CostOptions & { maxCost: number },
): ApolloServerPlugin<GraphqlContext> {
  const { maxCost, ...cost } = options;
  return operationLimitsPlugin({ schema, maxCost, cost });
}
