/**
 * `portcullis/graphql`: the GraphQL limits and authorization of Portcullis for a host that runs its own Apollo
 * Server (or any graphql-js server): validation rules (depth, aliases, root fields, unique fields, directives,
 * recursive selections, cost), the cost function and the Apollo plugin that checks the cost with the request's
 * variables ({@link costLimitPlugin}), and `@requiresScopes`: its type definitions ({@link AUTHORIZATION_TYPE_DEFS}),
 * its enforcement ({@link applyScopeDirectives}: without it the directive is only a mark) and the visibility helpers.
 * @packageDocumentation
 */
export {
  applyScopeDirectives,
  visibleTo,
  forbidden,
  findPrivateLookingFields,
  AUTHORIZATION_TYPE_DEFS,
} from './authorization.js';
export { costLimitPlugin } from './plugins/operation-limits.js';
export {
  createMaxAliasesRule,
  createMaxCostRule,
  createMaxDepthRule,
  createMaxDirectivesRule,
  createMaxRecursiveSelectionsRule,
  createMaxRootFieldsRule,
  createMaxUniqueFieldsRule,
  coerceVariables,
  KnownOperationTypesRule,
  operationCost,
  type CostOptions,
  type LimitErrorCode,
} from './rules/index.js';
export { hasScope, type AuthInfo, type GraphqlContext } from './auth-context.js';
export { GraphqlErrorCode } from './errors.js';
