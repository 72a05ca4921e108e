import type { FieldNode, ValidationContext, ValidationRule } from 'graphql';
import { limitError } from './limit-error.js';

/**
 * Refuses a document that selects more than `maxUniqueFields` distinct schema fields (schema coordinates such
 * as `Product.name`, introspection fields included). Bounds how much of the schema one request can touch; field
 * duplication (`{ name name name … }`) is bounded by the token limit and the cost analysis.
 *
 * Reports `MAX_UNIQUE_FIELDS_EXCEEDED` with `extensions.limit`, once per document.
 *
 * @param maxUniqueFields allowed distinct `Type.field` coordinates.
 */
export function createMaxUniqueFieldsRule(maxUniqueFields: number): ValidationRule {
  return function MaxUniqueFieldsRule(context: ValidationContext) {
    const seen = new Set<string>();
    let reported = false;
    return {
      Field(node: FieldNode) {
        if (reported) return;
        seen.add(`${context.getParentType()?.name ?? '?'}.${node.name.value}`);
        if (seen.size > maxUniqueFields) {
          reported = true;
          context.reportError(
            limitError(
              'MAX_UNIQUE_FIELDS_EXCEEDED',
              `The query selects more than the limit of ${maxUniqueFields} distinct fields.`,
              maxUniqueFields,
              node,
            ),
          );
        }
      },
    };
  };
}
