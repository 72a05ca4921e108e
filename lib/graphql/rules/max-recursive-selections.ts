import {
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { limitError } from './limit-error.js';
import { fragmentsOf } from './fragments.js';

/**
 * Refuses an operation whose selections, once every fragment spread is expanded, exceed `maxSelections`. This
 * is the fragment-explosion guard: 24 fragments that each spread the previous one twice are under 1 kB of text
 * but expand to 2^24 selections. Each fragment's expanded size is computed once (memoised), so the check is
 * linear in the document.
 *
 * Reports `MAX_RECURSIVE_SELECTIONS_EXCEEDED` with `extensions.limit`, once per operation.
 *
 * @param maxSelections allowed expanded selections (Apollo's `maxRecursiveSelections` default is 10 000).
 */
export function createMaxRecursiveSelectionsRule(maxSelections: number): ValidationRule {
  return function MaxRecursiveSelectionsRule(context: ValidationContext) {
    const fragments = fragmentsOf(context.getDocument());
    const sizes = new Map<string, number>();
    const visiting = new Set<string>();

    function size(set: SelectionSetNode | undefined): number {
      if (!set) return 0;
      let n = 0;
      for (const sel of set.selections) {
        if (sel.kind === Kind.FIELD) n += 1 + size(sel.selectionSet);
        else if (sel.kind === Kind.INLINE_FRAGMENT) n += size(sel.selectionSet);
        else n += fragmentSize(sel.name.value);
      }
      return n;
    }
    function fragmentSize(name: string): number {
      const known = sizes.get(name);
      if (known !== undefined) return known;
      const fragment = fragments.get(name);
      if (!fragment || visiting.has(name)) return 0; // cycles are NoFragmentCyclesRule's business
      visiting.add(name);
      const n = size(fragment.selectionSet);
      visiting.delete(name);
      sizes.set(name, n);
      return n;
    }

    return {
      OperationDefinition(node: OperationDefinitionNode) {
        if (size(node.selectionSet) > maxSelections) {
          context.reportError(
            limitError(
              'MAX_RECURSIVE_SELECTIONS_EXCEEDED',
              `The query expands to more than the limit of ${maxSelections} selections.`,
              maxSelections,
              node,
            ),
          );
        }
        return false;
      },
    };
  };
}
