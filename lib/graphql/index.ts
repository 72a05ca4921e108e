/**
 * `portcullis/graphql`: the GraphQL limits and authorization of Portcullis for a host that runs its own Apollo
 * Server (or any graphql-js server): validation rules (depth, aliases, root fields, unique fields, directives,
 * recursive selections, cost), the cost function, and the `@requiresScopes` / visibility helpers.
 * @packageDocumentation
 */
export { visibleTo, forbidden, findPrivateLookingFields, AUTHORIZATION_TYPE_DEFS } from './authorization.js';
export {
  createMaxAliasesRule, createMaxCostRule, createMaxDepthRule, createMaxDirectivesRule, createMaxRecursiveSelectionsRule,
  createMaxRootFieldsRule, createMaxUniqueFieldsRule, coerceVariables, KnownOperationTypesRule, operationCost, type CostOptions, type LimitErrorCode,
} from './rules/index.js';
export { hasScope, type AuthInfo, type GraphqlContext } from './auth-context.js';
export { GraphqlErrorCode } from './errors.js';
