export { createMaxDepthRule } from './max-depth.js';
export { createMaxAliasesRule } from './max-aliases.js';
export { createMaxRootFieldsRule, countRootFields } from './max-root-fields.js';
export { createMaxUniqueFieldsRule } from './max-unique-fields.js';
export { createMaxDirectivesRule } from './max-directives.js';
export { createMaxRecursiveSelectionsRule } from './max-recursive-selections.js';
export { createMaxCostRule, coerceVariables, operationCost, type CostOptions } from './max-cost.js';
export { KnownOperationTypesRule } from './known-operation-types.js';
export { limitError, LIMIT_ERROR_CODES, type LimitErrorCode } from './limit-error.js';
