import { getOperationAST, type GraphQLError } from 'graphql';
import type { CheckedDocument, OperationAnalysis } from '../document-cache.js';
import { resolveOperation } from '../document-checks.js';
import { nullOverDefaultErrors, variablesNeedingValues } from '../null-over-default.js';
import { rootFieldPoints } from '../plugins/operation-limits.js';
import { coerceVariables, operationCost } from '../rules/index.js';
import { fragmentsOf } from '../rules/fragments.js';
import type { GateSettings } from './settings.js';

/**
 * The operation `operationName` selects in a checked document, measured once and kept with the document; a string
 * says why there is none (graphql-js' own selection).
 */
export function analyseOperation(
  s: GateSettings,
  entry: CheckedDocument,
  operationName: string | undefined,
): OperationAnalysis | string {
  const known = entry.operations.get(operationName);
  if (known) return known;
  const operation = resolveOperation(entry.document, operationName);
  if (typeof operation === 'string') return operation; // not kept: operationName is the client's, unbounded
  const { schema } = s;
  const measuredOperation =
    entry.measured === entry.document ? operation : (getOperationAST(entry.measured, operationName) ?? operation);
  const hasVariables = (operation.variableDefinitions?.length ?? 0) > 0;
  const rootType =
    operation.operation === 'mutation'
      ? schema.getMutationType()?.name
      : operation.operation === 'subscription'
        ? schema.getSubscriptionType()?.name
        : schema.getQueryType()?.name;
  const analysis: OperationAnalysis = {
    operation,
    measuredOperation,
    hasVariables,
    needingValues: hasVariables ? variablesNeedingValues(schema, entry.document, operation) : [],
    staticCost: hasVariables
      ? undefined
      : operationCost(schema, entry.measured, measuredOperation, {}, s.options.limits),
    // Over the whole operation: `__schema`/`__type` spend points too (introspection is not free to repeat).
    points: rootFieldPoints(operation.selectionSet, fragmentsOf(entry.document), rootType ?? 'Query', s.options.limits),
  };
  entry.operations.set(operationName, analysis);
  return analysis;
}

/** Why the variables of this request are refused (`BAD_USER_INPUT`), or its operation's cost with them. */
export function costWithVariables(
  s: GateSettings,
  entry: CheckedDocument,
  analysis: OperationAnalysis,
  variables: Record<string, unknown> | undefined,
): number | { errors: readonly GraphQLError[] } {
  // Without variable definitions the executor's variables are `{}` whatever was sent: the cost is fixed.
  if (!analysis.hasVariables) return analysis.staticCost!;
  const coerced = coerceVariables(s.schema, analysis.operation, variables);
  if (coerced.errors) return { errors: coerced.errors };
  if (analysis.needingValues.length > 0) {
    const nulls = nullOverDefaultErrors(analysis.needingValues, coerced.coerced);
    if (nulls.length > 0) return { errors: nulls };
  }
  // Introspection was allowed for this caller (step 4); only the data part is measured (as in the limits).
  return operationCost(s.schema, entry.measured, analysis.measuredOperation, coerced.coerced, s.options.limits);
}
