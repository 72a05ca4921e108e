import { BREAK, Kind, visit, type ASTNode, type DocumentNode } from 'graphql';

/** Whether the parsed document asks for `__schema` or `__type` anywhere (operations or fragments, any alias). */
export function usesIntrospection(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value === '__schema' || node.name.value === '__type') {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}

const LEGACY_DIRECTIVE_MEMBERS = new Set(['onOperation', 'onFragment', 'onField']);

/**
 * Removes the pre-2016 `__Directive` members `onOperation`, `onFragment`, `onField` (replaced by `locations`)
 * from selections under a `directives` field, so that the legacy introspection query of older tools runs.
 * Returns the document unchanged (same object) when there is nothing to strip.
 */
export function stripLegacyIntrospection(document: DocumentNode): DocumentNode {
  let changed = false;
  const out = visit(document, {
    Field(node, _key, _parent, _path, ancestors) {
      if (!LEGACY_DIRECTIVE_MEMBERS.has(node.name.value)) return undefined;
      const enclosing = [...ancestors]
        .reverse()
        .find((a): a is ASTNode => !Array.isArray(a) && (a as ASTNode).kind === Kind.FIELD) as
        | { name: { value: string } }
        | undefined;
      if (enclosing?.name.value !== 'directives') return undefined;
      changed = true;
      return null;
    },
  });
  return changed ? out : document;
}

/** The document with every `__schema` and `__type` field removed (for measuring the data part alone). */
export function withoutIntrospection(document: DocumentNode): DocumentNode {
  return visit(document, {
    Field(node) {
      return node.name.value === '__schema' || node.name.value === '__type' ? null : undefined;
    },
  });
}
