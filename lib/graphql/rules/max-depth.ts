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
 * Refuses an operation whose field nesting is deeper than `maxDepth` (`{ a { b } }` has depth 2), following
 * fragment spreads. The depth of each fragment is computed once and cached, so a document of fragments that
 * each spread the previous one twice costs linear time — unlike `graphql-depth-limit` 1.1.0, which re-walks
 * every spread and takes seconds on 24 such fragments. Fragment cycles count as depth 0 here and are refused by
 * graphql-js's own `NoFragmentCyclesRule`.
 *
 * Reports `MAX_DEPTH_EXCEEDED` with `extensions.limit`, once per operation.
 *
 * @param maxDepth deepest allowed nesting, counted in fields (graphql-armor default 6).
 */
export function createMaxDepthRule(maxDepth: number): ValidationRule {
  return function MaxDepthRule(context: ValidationContext) {
    const fragments = fragmentsOf(context.getDocument());
    const cache = new Map<string, number>();
    const visiting = new Set<string>();

    function depthOf(set: SelectionSetNode | undefined): number {
      if (!set) return 0;
      let max = 0;
      for (const sel of set.selections) {
        let d = 0;
        if (sel.kind === Kind.FIELD) d = sel.selectionSet ? 1 + depthOf(sel.selectionSet) : 1;
        else if (sel.kind === Kind.INLINE_FRAGMENT) d = depthOf(sel.selectionSet);
        else d = fragmentDepth(sel.name.value);
        if (d > max) max = d;
        if (max > maxDepth) return max; // enough to refuse; stop walking
      }
      return max;
    }
    function fragmentDepth(name: string): number {
      const cached = cache.get(name);
      if (cached !== undefined) return cached;
      const fragment = fragments.get(name);
      if (!fragment || visiting.has(name)) return 0;
      visiting.add(name);
      const d = depthOf(fragment.selectionSet);
      visiting.delete(name);
      cache.set(name, d);
      return d;
    }

    return {
      OperationDefinition(node: OperationDefinitionNode) {
        const depth = depthOf(node.selectionSet);
        if (depth > maxDepth) {
          context.reportError(
            limitError(
              'MAX_DEPTH_EXCEEDED',
              `The query is nested deeper than the limit of ${maxDepth} levels.`,
              maxDepth,
              node,
            ),
          );
        }
        return false;
      },
    };
  };
}
