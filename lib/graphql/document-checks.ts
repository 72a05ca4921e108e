import {
  getOperationAST,
  GraphQLError,
  Kind,
  specifiedRules,
  type DocumentNode,
  type OperationDefinitionNode,
  type ValidationRule,
} from 'graphql';
import type { ResolvedGraphqlOptions } from './options.js';
import {
  createMaxAliasesRule,
  createMaxCostRule,
  createMaxDepthRule,
  createMaxDirectivesRule,
  createMaxRecursiveSelectionsRule,
  createMaxRootFieldsRule,
  createMaxUniqueFieldsRule,
  KnownOperationTypesRule,
} from './rules/index.js';
import { parallelRules } from './rules/parallel.js';

/* The pure parts of the document gate's checks (lib/graphql/document-gate.ts): rules, messages, operation choice. */

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

/**
 * The messages of graphql-js' `parse` when a document has more than `maxTokens` tokens, exactly: graphql-js 16 writes
 * "more that", the fix of that typo "more than". Compared whole, not searched: every other syntax error quotes the
 * document's own text (`Unexpected Name "tokens"`), so a pattern would take a client's mistake for the limit.
 */
export function tokenLimitMessages(maxTokens: number): ReadonlySet<string> {
  return new Set(
    ['that', 'than'].map(
      (word) => `Syntax Error: Document contains more ${word} ${maxTokens} tokens. Parsing aborted.`,
    ),
  );
}

/**
 * What the client is told instead of graphql-js' bare `Validation aborted.`: `validate` ends with that error (no
 * location) when a document exhausts one of graphql-js' fixed work budgets — comparing fields selected under the
 * same response name (`OverlappingFieldsCanBeMergedRule`, about 1000 repeats of one field) or following fragment
 * spreads. The budgets are not configurable, so there is no `extensions.limit` to give.
 */
export const VALIDATION_ABORTED = new GraphQLError(
  'The query needs more validation work than allowed (graphql-js stopped comparing ' +
    'the fields selected under the same name, or following fragment spreads): select each field once and ' +
    'spread fewer fragments.',
);

/** The errors of `validate` with graphql-js' bare abort error replaced by {@link VALIDATION_ABORTED}. */
export function explained(errors: readonly GraphQLError[]): readonly GraphQLError[] {
  return errors.map((e) => (e.message === 'Validation aborted.' && !e.nodes?.length ? VALIDATION_ABORTED : e));
}

/**
 * The rules every document must pass before it runs: graphql-js's `specifiedRules` plus operation-type existence,
 * as one rule ({@link parallelRules}: the same errors, in the same order, without graphql-js preparing every
 * rule for every node kind on every call).
 */
export const VALIDATION_RULES: readonly ValidationRule[] = [
  parallelRules([...specifiedRules, KnownOperationTypesRule]),
];

/** The operation `operationName` selects, or why there is none (graphql-js's own selection, `getOperationAST`). */
export function resolveOperation(
  document: DocumentNode,
  operationName: string | undefined,
): OperationDefinitionNode | string {
  const operation = getOperationAST(document, operationName);
  if (operation) return operation;
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  if (operationName !== undefined) return `The document has no operation named "${operationName.slice(0, 100)}".`;
  return operations.length === 0
    ? 'The document has no operation to run.'
    : `The document has ${operations.length} operations: name the one to run in operationName.`;
}
