import { GraphQLError, parse, type DocumentNode } from 'graphql';
import type { Context } from 'koa';
import { sendGraphqlError, sendGraphqlErrors } from '../errors.js';
import { usesIntrospection } from '../introspection.js';
import { sha256, type Answer, type GateSettings } from './settings.js';

/** Text that any document asking for `__schema` or `__type` contains (a quick pre-check before walking it). */
const INTROSPECTION_TEXT = /__schema|__type\b/;

/** A query text not checked before, parsed. */
export interface ParsedDocument {
  document: DocumentNode;
  /** Whether it asks for `__schema` or `__type` (any spelling, through fragments). */
  introspects: boolean;
}

/**
 * Steps 2 and 3 of the gate for a text not in the document cache: trusted documents, when configured (400
 * `UNTRUSTED_DOCUMENT`), then parsing with graphql-js `maxTokens` (400 `MAX_TOKENS_EXCEEDED`, recognised by
 * graphql-js' exact message; other syntax errors 400 `GRAPHQL_PARSE_FAILED`). Whether the document introspects is
 * noted for step 4.
 */
export function parseNewDocument(s: GateSettings, ctx: Context, query: string): Answer | ParsedDocument {
  if (s.trusted && !s.trusted.has(sha256(query))) {
    return () => sendGraphqlError(ctx, 400, 'UNTRUSTED_DOCUMENT', 'Only trusted documents are accepted here.');
  }
  const { maxTokens } = s.options.limits;
  let document: DocumentNode;
  try {
    document = parse(query, { maxTokens });
  } catch (err) {
    if (err instanceof GraphQLError && s.tokenLimit.has(err.message)) {
      return () =>
        sendGraphqlError(ctx, 400, 'MAX_TOKENS_EXCEEDED', `The query has more than the limit of ${maxTokens} tokens.`, {
          limit: maxTokens,
        });
    }
    if (err instanceof GraphQLError) return () => sendGraphqlErrors(ctx, 400, 'GRAPHQL_PARSE_FAILED', [err]);
    throw err;
  }
  // Field names are plain tokens (no escapes): without these letters there is no introspection field.
  const introspects = INTROSPECTION_TEXT.test(query) && usesIntrospection(document);
  return { document, introspects };
}
