import { BREAK, getEnterLeaveForKind, type ASTNode, type ASTVisitor, type ValidationRule } from 'graphql';

type VisitFn = (this: unknown, ...args: unknown[]) => unknown;

/** Enter and leave functions of every visitor for one kind of node, or `null` when none has any. */
interface KindLists {
  enter: Array<VisitFn | undefined>;
  leave: Array<VisitFn | undefined>;
}

/**
 * Several validation rules as one rule that runs them in one traversal, in order, with graphql-js's
 * `visitInParallel` semantics (a visitor returning `false` skips the node's subtree for itself only, `BREAK`
 * stops it for the rest of the document, any other value is an edit and is returned), so
 * `validate(schema, document, [parallelRules(rules)])` reports exactly the errors, in the same order, as
 * `validate(schema, document, rules)`.
 *
 * Why: graphql-js 16's `visitInParallel` prepares, on every `validate` call, the enter and leave functions of
 * every rule for every one of the ~45 node kinds (about 1,300 look-ups and as many small objects for the 30
 * standard rules), which is most of the time of validating a small document. Here they are looked up on first
 * use of a kind only (a small operation has half a dozen kinds).
 */
export function parallelRules(rules: readonly ValidationRule[]): ValidationRule {
  return function parallel(context) {
    const visitors = rules.map((rule) => rule(context));
    const skipping: Array<ASTNode | typeof BREAK | null> = visitors.map(() => null);
    const byKind = new Map<string, KindLists | null>();

    function listsFor(kind: string): KindLists | null {
      let lists = byKind.get(kind);
      if (lists !== undefined) return lists;
      let hasVisitor = false;
      const enter: KindLists['enter'] = [];
      const leave: KindLists['leave'] = [];
      for (const visitor of visitors) {
        const fns = getEnterLeaveForKind(visitor, kind as never);
        hasVisitor ||= fns.enter != null || fns.leave != null;
        enter.push(fns.enter as VisitFn | undefined);
        leave.push(fns.leave as VisitFn | undefined);
      }
      lists = hasVisitor ? { enter, leave } : null;
      byKind.set(kind, lists);
      return lists;
    }

    // Generic enter/leave (not keyed by kind): graphql-js's own visitInParallel, around this one visitor, then
    // has a single visitor to prepare per kind.
    const merged: ASTVisitor = {
      enter(...args: unknown[]) {
        const node = args[0] as ASTNode;
        const lists = listsFor(node.kind);
        if (lists === null) return undefined;
        for (let i = 0; i < visitors.length; i++) {
          if (skipping[i] !== null) continue;
          const result = lists.enter[i]?.apply(visitors[i], args);
          if (result === false) skipping[i] = node;
          else if (result === BREAK) skipping[i] = BREAK;
          else if (result !== undefined) return result;
        }
        return undefined;
      },
      leave(...args: unknown[]) {
        const node = args[0] as ASTNode;
        const lists = listsFor(node.kind);
        if (lists === null) return undefined;
        for (let i = 0; i < visitors.length; i++) {
          if (skipping[i] === null) {
            const result = lists.leave[i]?.apply(visitors[i], args);
            if (result === BREAK) skipping[i] = BREAK;
            else if (result !== undefined && result !== false) return result;
          } else if (skipping[i] === node) {
            skipping[i] = null;
          }
        }
        return undefined;
      },
    } as ASTVisitor;
    return merged;
  };
}
