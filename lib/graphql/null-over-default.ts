import {
  GraphQLError,
  isNonNullType,
  Kind,
  TypeInfo,
  ValidationContext,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';

/**
 * The variables of `operation` that are declared nullable with a default but used where a non-null value is
 * required (`query($t: Boolean = true) { f @include(if: $t) }`), in the operation or a fragment it spreads.
 * GraphQL allows that position because of the default ("All Variable Usages Are Allowed", GraphQL spec §5.8.5);
 * a request that sends an explicit `null` for such a variable overrides the default and fails during execution
 * (CoerceArgumentValues, §6.4.1), where Apollo reports graphql-js' message as `INTERNAL_SERVER_ERROR`. Computed
 * once per document operation; {@link nullOverDefaultErrors} checks each request's values.
 * @returns the variable names, each once, in the order of their definitions; `[]` for most operations.
 */
export function variablesNeedingValues(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): string[] {
  const nullable = new Set(
    (operation.variableDefinitions ?? [])
      .filter((d) => d.type.kind !== Kind.NON_NULL_TYPE)
      .map((d) => d.variable.name.value),
  );
  if (nullable.size === 0) return [];
  const context = new ValidationContext(schema, document, new TypeInfo(schema), () => undefined);
  const needing = new Set<string>();
  for (const usage of context.getRecursiveVariableUsages(operation)) {
    const name = usage.node.name.value;
    if (nullable.has(name) && usage.type && isNonNullType(usage.type)) needing.add(name);
  }
  return [...nullable].filter((name) => needing.has(name));
}

/**
 * One `BAD_USER_INPUT` error per variable of `needing` ({@link variablesNeedingValues}) whose coerced value is
 * `null` (sent as null: an omitted variable takes its default), so the request is refused before execution as a
 * variable `$x: Int!` sent as null is.
 */
export function nullOverDefaultErrors(
  needing: readonly string[],
  coerced: Readonly<Record<string, unknown>>,
): GraphQLError[] {
  return needing
    .filter((name) => coerced[name] === null)
    .map(
      (name) =>
        new GraphQLError(
          `Variable "$${name}" is used where a value is required: null was sent, which replaces its default. ` +
            `Omit it to use the default, or send a value.`,
        ),
    );
}
