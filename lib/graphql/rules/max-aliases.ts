import type { FieldNode, ValidationContext, ValidationRule } from 'graphql';
import { limitError } from './limit-error.js';

/**
 * Refuses a document with more than `maxAliases` aliased fields, counted over the whole document (operations
 * and fragments, `__typename` aliases included). Bounds alias overloading (`a1: product(id: 1) a2: …`), the
 * brute-force-in-one-request of SPEC area B (Limits).
 *
 * Reports `MAX_ALIASES_EXCEEDED` with `extensions.limit`, once per document.
 *
 * @param maxAliases allowed aliases (graphql-armor default 15).
 */
export function createMaxAliasesRule(maxAliases: number): ValidationRule {
  return function MaxAliasesRule(context: ValidationContext) {
    let count = 0;
    let reported = false;
    return {
      Field(node: FieldNode) {
        if (!node.alias || reported) return;
        if (++count > maxAliases) {
          reported = true;
          context.reportError(
            limitError(
              'MAX_ALIASES_EXCEEDED',
              `The query uses more than the limit of ${maxAliases} aliases.`,
              maxAliases,
              node,
            ),
          );
        }
      },
    };
  };
}
