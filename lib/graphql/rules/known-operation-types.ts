import { GraphQLError, type OperationDefinitionNode, type ValidationContext, type ValidationRule } from 'graphql';

/**
 * Refuses an operation whose root type the schema does not define (`mutation { … }` against a schema without
 * a `Mutation` type). graphql-js 16 has no such rule and lets the executor fail with "Schema is not
 * configured to execute mutation operation", which Apollo answers as a 200 `INTERNAL_SERVER_ERROR`; this is
 * graphql-js 17's `KnownOperationTypesRule` (GraphQL spec §5.2.1 "Operation Type Existence", October 2021 draft),
 * with the same message. Reported as `GRAPHQL_VALIDATION_FAILED`.
 */
export const KnownOperationTypesRule: ValidationRule = function KnownOperationTypesRule(context: ValidationContext) {
  const schema = context.getSchema();
  return {
    OperationDefinition(node: OperationDefinitionNode) {
      const root =
        node.operation === 'mutation'
          ? schema.getMutationType()
          : node.operation === 'subscription'
            ? schema.getSubscriptionType()
            : schema.getQueryType();
      if (!root)
        context.reportError(
          new GraphQLError(`The ${node.operation} operation is not supported by the schema.`, { nodes: node }),
        );
      return false;
    },
  };
};
