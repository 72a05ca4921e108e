import { GraphQLError, type ASTNode } from 'graphql';
import type { GraphqlErrorCode } from '../errors.js';

/**
 * `extensions.code` of every limit violation reported by the rules in this folder (400 Bad Request); a subset of
 * {@link GraphqlErrorCode}.
 */
export type LimitErrorCode = Extract<
  GraphqlErrorCode,
  | 'MAX_DEPTH_EXCEEDED'
  | 'MAX_ALIASES_EXCEEDED'
  | 'MAX_ROOT_FIELDS_EXCEEDED'
  | 'MAX_UNIQUE_FIELDS_EXCEEDED'
  | 'MAX_DIRECTIVES_EXCEEDED'
  | 'MAX_RECURSIVE_SELECTIONS_EXCEEDED'
  | 'MAX_COST_EXCEEDED'
  | 'MAX_TOKENS_EXCEEDED'
  | 'QUERY_TOO_LARGE'
>;

/** Every {@link LimitErrorCode}, to tell limit errors apart from others (e.g. when formatting). */
export const LIMIT_ERROR_CODES: ReadonlySet<string> = new Set<LimitErrorCode>([
  'MAX_DEPTH_EXCEEDED',
  'MAX_ALIASES_EXCEEDED',
  'MAX_ROOT_FIELDS_EXCEEDED',
  'MAX_UNIQUE_FIELDS_EXCEEDED',
  'MAX_DIRECTIVES_EXCEEDED',
  'MAX_RECURSIVE_SELECTIONS_EXCEEDED',
  'MAX_COST_EXCEEDED',
  'MAX_TOKENS_EXCEEDED',
  'QUERY_TOO_LARGE',
]);

/**
 * A limit violation: `extensions: { code, limit }` and HTTP 400. Each rule reports at most one per document,
 * whatever the number of offending nodes (an error per repeated node is itself an amplification).
 */
export function limitError(
  code: LimitErrorCode,
  message: string,
  limit: number,
  nodes?: ASTNode | readonly ASTNode[],
): GraphQLError {
  return new GraphQLError(message, { nodes, extensions: { code, limit, http: { status: 400 } } });
}
