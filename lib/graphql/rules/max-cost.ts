import {
  getArgumentValues,
  getNamedType,
  getVariableValues,
  getNullableType,
  GraphQLError,
  isAbstractType,
  isListType,
  isObjectType,
  isInterfaceType,
  Kind,
  type FieldNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { limitError } from './limit-error.js';
import { fragmentsOf } from './fragments.js';
import { effectiveFieldCosts } from './field-costs.js';
import { DEFAULTS } from '../../../config/defaults.js';

/** How {@link operationCost} weighs a query. */
export interface CostOptions {
  /** Cost of one field without an entry in `fieldCosts`. Default: `graphql.limits.defaultFieldCost`. */
  defaultFieldCost?: number;
  /** Per-field costs by schema coordinate, e.g. `{ 'Query.products': 10 }`. `__typename` costs 0 unless listed. */
  fieldCosts?: Readonly<Record<string, number>>;
  /** Assumed length of a list field when no size argument bounds it. Default: `graphql.limits.defaultListSize`. */
  defaultListSize?: number;
  /**
   * Arguments that give a list's length (`products(first: 20)`), literal or variable. @default ['first','last','limit']
   */
  listSizeArguments?: readonly string[];
}

/**
 * The length the list-size arguments ask for, read from the argument values the executor will pass to the
 * resolver (graphql-js `getArgumentValues`: literals, variables, the schema's argument defaults, coercion).
 * A number (or a numeric string, for `ID`/custom scalars) is that length, rounded up; a list counts its items.
 * When several are given, the largest counts: which one a resolver reads is its own business (`last` over
 * `first`, `limit` over `first`), so `first: 0, last: 100000` is measured as 100000, not 0.
 * `null`, an absent argument and a negative number bound nothing (a resolver may read `-1` as "no limit" or
 * `slice(0, -1)`): `undefined` when no argument gives a size, so the caller assumes the default list size.
 */
function listSize(args: Readonly<Record<string, unknown>>, names: readonly string[]): number | undefined {
  let size: number | undefined;
  for (const name of names) {
    const value = args[name];
    if (value === undefined || value === null) continue;
    const n = Array.isArray(value)
      ? value.length
      : typeof value === 'number'
        ? value
        : typeof value === 'bigint'
          ? Number(value)
          : typeof value === 'string' && value.trim() !== ''
            ? Number(value)
            : NaN;
    if (Number.isNaN(n) || n < 0) continue;
    size = Math.max(size ?? 0, Math.ceil(n));
  }
  return size;
}

/** The executor's argument values of `field` (`{}` when the document is not valid enough to compute them). */
function argumentValues(
  def: GraphQLField<unknown, unknown> | undefined,
  field: FieldNode,
  variables: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  if (!def) return {};
  try {
    return getArgumentValues(def, field, variables as Record<string, unknown>);
  } catch {
    return {}; // an invalid argument: validation or the executor refuses the document before anything runs
  }
}

/**
 * The variable values the executor runs `operation` with (graphql-js `getVariableValues`: defaults applied,
 * inputs coerced, e.g. `5` for a `[Int]` becomes `[5]`), or the coercion errors it would answer with
 * (`BAD_USER_INPUT`, at most `maxErrors`).
 */
export function coerceVariables(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  inputs: Readonly<Record<string, unknown>> | null | undefined,
  maxErrors = 50,
): { coerced: Record<string, unknown>; errors?: undefined } | { errors: readonly GraphQLError[]; coerced?: undefined } {
  const result = getVariableValues(
    schema,
    operation.variableDefinitions ?? [],
    (inputs ?? {}) as Record<string, unknown>,
    { maxErrors },
  );
  // graphql-js hands back what coercion threw unexpectedly as it is: for a value nested a thousand levels deep in a
  // recursive input type, V8's "Maximum call stack size exceeded" (a RangeError), an engine message for the client.
  if (result.errors?.some((e) => !(e instanceof GraphQLError))) {
    return {
      errors: result.errors.map((e) =>
        e instanceof GraphQLError ? e : new GraphQLError(TOO_DEEP, { originalError: e }),
      ),
    };
  }
  return result;
}

const TOO_DEEP =
  'The variable values are nested too deeply to be read: send input objects and lists nested a few levels deep.';

/** What {@link listSizeOf} reads: the schema, the operation's coerced variables and the list size options. */
interface ListSizing {
  schema: GraphQLSchema;
  variables: Readonly<Record<string, unknown>>;
  sizeArgs: readonly string[];
  defaultListSize: number;
}

/**
 * The list size of `field` (in {@link operationCost}) as its resolver will get it. Selected on an interface, the
 * executor passes the arguments of the runtime object's field, which may give an argument another default or add an
 * optional one (`first: Int = 1000` where the interface says `= 1`): the largest size among the implementations
 * counts.
 */
function listSizeOf(
  sizing: ListSizing,
  field: FieldNode,
  parent: GraphQLNamedType,
  def: GraphQLField<unknown, unknown>,
): number {
  const { schema, variables, sizeArgs, defaultListSize } = sizing;
  let size = listSize(argumentValues(def, field, variables), sizeArgs) ?? defaultListSize;
  if (!isInterfaceType(parent)) return size;
  for (const object of schema.getPossibleTypes(parent)) {
    const own = object.getFields()[field.name.value];
    if (own) size = Math.max(size, listSize(argumentValues(own, field, variables), sizeArgs) ?? defaultListSize);
  }
  return size;
}

/** The root type `operation` starts from: the schema's mutation, subscription or query type. */
function rootTypeOf(schema: GraphQLSchema, operation: OperationDefinitionNode) {
  return operation.operation === 'mutation'
    ? schema.getMutationType()
    : operation.operation === 'subscription'
      ? schema.getSubscriptionType()
      : schema.getQueryType();
}

/**
 * The cost of one operation: each field costs its `fieldCosts` entry (or `defaultFieldCost`; an entry on an
 * interface field or on an implementation's field applies through the other coordinates too, see
 * {@link effectiveFieldCosts}) plus the cost of its children, times the list size for list fields: the
 * `first`/`last`/`limit` argument as the executor will see it (see {@link coerceVariables}; literals in fragments,
 * variables in nested fields and the schema's argument defaults included), else `defaultListSize`. Fragments are
 * followed and their cost memoised. `@skip`/`@include` are ignored (counted as executed). Unknown fields cost the
 * default (validation refuses them anyway).
 *
 * @param variables the operation's coerced variable values ({@link coerceVariables}), not the raw request
 *   input: a variable absent here counts as unbounded (`defaultListSize`).
 */
export function operationCost(
  schema: GraphQLSchema,
  document: { definitions: readonly unknown[] },
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> = {},
  options: CostOptions = {},
): number {
  const defaults = DEFAULTS.graphql.limits;
  const defaultFieldCost = options.defaultFieldCost ?? defaults.defaultFieldCost;
  // A cost given on an interface field or an implementation's field holds however the query selects the field.
  const fieldCosts = effectiveFieldCosts(schema, options.fieldCosts ?? defaults.fieldCosts);
  const sizing: ListSizing = {
    schema,
    variables,
    sizeArgs: options.listSizeArguments ?? ['first', 'last', 'limit'],
    defaultListSize: options.defaultListSize ?? defaults.defaultListSize,
  };
  const fragments = fragmentsOf(document as { definitions: readonly { kind: string }[] });
  const memo = new Map<string, number>();
  const visiting = new Set<string>();

  function setCost(set: SelectionSetNode | undefined, parent: GraphQLNamedType | undefined): number {
    if (!set) return 0;
    let total = 0;
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) total += fieldCost(sel, parent);
      else if (sel.kind === Kind.INLINE_FRAGMENT) {
        const cond = sel.typeCondition ? schema.getType(sel.typeCondition.name.value) : parent;
        total += setCost(sel.selectionSet, cond ?? parent);
      } else {
        const name = sel.name.value;
        const known = memo.get(name);
        if (known !== undefined) {
          total += known;
          continue;
        }
        const fragment = fragments.get(name);
        if (!fragment || visiting.has(name)) continue;
        visiting.add(name);
        const c = setCost(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value) ?? undefined);
        visiting.delete(name);
        memo.set(name, c);
        total += c;
      }
    }
    return total;
  }

  function fieldCost(field: FieldNode, parent: GraphQLNamedType | undefined): number {
    const name = field.name.value;
    const coordinate = `${parent?.name ?? '?'}.${name}`;
    const own = fieldCosts.get(coordinate) ?? (name === '__typename' ? 0 : defaultFieldCost);
    const def = parent && (isObjectType(parent) || isInterfaceType(parent)) ? parent.getFields()[name] : undefined;
    const type = def?.type;
    const childType = type ? getNamedType(type) : undefined;
    const children = setCost(
      field.selectionSet,
      childType && (isObjectType(childType) || isInterfaceType(childType) || isAbstractType(childType))
        ? childType
        : undefined,
    );
    const isList = type ? isListType(getNullableType(type)) : false;
    const multiplier = isList ? listSizeOf(sizing, field, parent!, def!) : 1;
    return (own + children) * multiplier;
  }

  return setCost(operation.selectionSet, rootTypeOf(schema, operation) ?? undefined);
}

/**
 * Refuses an operation whose {@link operationCost} exceeds `maxCost`. Validation runs without the request's
 * variables (list sizes given as variables count as `defaultListSize`); the document gate and the operation
 * limits plugin re-check the operation that runs with its coerced variables (defaults included) before
 * execution. On your own Apollo Server, add `costLimitPlugin` (`portcullis/graphql`) for that check: this rule
 * alone lets `products(first: $n)` through with any `$n`.
 *
 * Reports `MAX_COST_EXCEEDED` with `extensions.limit`, once per operation.
 *
 * @param maxCost allowed cost (graphql-armor default 5000).
 */
export function createMaxCostRule(maxCost: number, options: CostOptions = {}): ValidationRule {
  return function MaxCostRule(context: ValidationContext) {
    return {
      OperationDefinition(node: OperationDefinitionNode) {
        const cost = operationCost(context.getSchema(), context.getDocument(), node, {}, options);
        if (cost > maxCost) {
          context.reportError(
            limitError('MAX_COST_EXCEEDED', `The query costs more than the limit of ${maxCost}.`, maxCost, node),
          );
        }
        return false;
      },
    };
  };
}
