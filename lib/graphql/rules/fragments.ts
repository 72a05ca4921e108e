import { Kind, type FragmentDefinitionNode } from 'graphql';

/** The fragment definitions of a document by name: the one lookup every limit rule walks spreads with. */
export function fragmentsOf(document: { readonly definitions: readonly { readonly kind: string }[] }): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) {
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set((def as FragmentDefinitionNode).name.value, def as FragmentDefinitionNode);
  }
  return fragments;
}
