import { Kind, type FieldNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';

/** The fragment definitions of a document by name: the one lookup every limit rule walks spreads with. */
export function fragmentsOf(document: {
  readonly definitions: readonly { readonly kind: string }[];
}): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) {
    if (def.kind === Kind.FRAGMENT_DEFINITION)
      fragments.set((def as FragmentDefinitionNode).name.value, def as FragmentDefinitionNode);
  }
  return fragments;
}

/**
 * Sums `fieldValue(field)` over the fields selected at the top of `set`, through inline fragments and fragment
 * spreads. A fragment's sum is memoised in `memo` by name (fragment bombs stay linear); a cycle counts 0.
 * `fieldValue` may itself walk a field's selection set with the same `memo` when it means every depth.
 */
export function sumOverFields(
  set: SelectionSetNode | undefined,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  fieldValue: (field: FieldNode) => number,
  memo = new Map<string, number>(),
  visiting = new Set<string>(),
): number {
  if (!set) return 0;
  let n = 0;
  for (const sel of set.selections) {
    if (sel.kind === Kind.FIELD) n += fieldValue(sel);
    else if (sel.kind === Kind.INLINE_FRAGMENT)
      n += sumOverFields(sel.selectionSet, fragments, fieldValue, memo, visiting);
    else {
      const name = sel.name.value;
      const known = memo.get(name);
      if (known !== undefined) {
        n += known;
        continue;
      }
      const fragment = fragments.get(name);
      if (!fragment || visiting.has(name)) continue;
      visiting.add(name);
      const c = sumOverFields(fragment.selectionSet, fragments, fieldValue, memo, visiting);
      visiting.delete(name);
      memo.set(name, c);
      n += c;
    }
  }
  return n;
}
