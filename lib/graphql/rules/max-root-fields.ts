import {
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { limitError } from './limit-error.js';
import { fragmentsOf, sumOverFields } from './fragments.js';

/**
 * Counts the fields selected at the top of `set`, through inline fragments and fragment spreads. Fragment
 * counts are memoised in `memo` (fragment bombs stay linear); cycles count 0.
 */
export function countRootFields(
  set: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  memo = new Map<string, number>(),
  visiting = new Set<string>(),
): number {
  return sumOverFields(set, fragments, () => 1, memo, visiting);
}

/**
 * Refuses an operation that selects more than `maxRootFields` fields at its root (aliases and `__typename`
 * included, fragments followed). Each root field is a separate resolver call against the backend.
 *
 * Reports `MAX_ROOT_FIELDS_EXCEEDED` with `extensions.limit`, once per operation.
 *
 * @param maxRootFields allowed root selections.
 */
export function createMaxRootFieldsRule(maxRootFields: number): ValidationRule {
  return function MaxRootFieldsRule(context: ValidationContext) {
    const fragments = fragmentsOf(context.getDocument());
    return {
      OperationDefinition(node: OperationDefinitionNode) {
        if (countRootFields(node.selectionSet, fragments) > maxRootFields) {
          context.reportError(
            limitError(
              'MAX_ROOT_FIELDS_EXCEEDED',
              `The operation selects more than the limit of ${maxRootFields} root fields.`,
              maxRootFields,
              node,
            ),
          );
        }
        return false;
      },
    };
  };
}
