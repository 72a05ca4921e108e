import type { DirectiveNode, ValidationContext, ValidationRule } from 'graphql';
import { limitError } from './limit-error.js';

/**
 * Refuses a document with more than `maxDirectives` directive uses (`@include`, `@skip`, custom ones), counted
 * over the whole document. Bounds directive overloading (`{ __typename @a @a @a … }`), which otherwise makes the
 * server build one error per repeated directive.
 *
 * Reports `MAX_DIRECTIVES_EXCEEDED` with `extensions.limit`, once per document.
 *
 * @param maxDirectives allowed directive uses (graphql-armor default 50).
 */
export function createMaxDirectivesRule(maxDirectives: number): ValidationRule {
  return function MaxDirectivesRule(context: ValidationContext) {
    let count = 0;
    let reported = false;
    return {
      Directive(node: DirectiveNode) {
        if (reported) return;
        if (++count > maxDirectives) {
          reported = true;
          context.reportError(
            limitError(
              'MAX_DIRECTIVES_EXCEEDED',
              `The query uses more than the limit of ${maxDirectives} directives.`,
              maxDirectives,
              node,
            ),
          );
        }
      },
    };
  };
}
