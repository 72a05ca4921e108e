import { print, validate, type DocumentNode } from 'graphql';
import type { Context } from 'koa';
import type { CheckedDocument } from '../document-cache.js';
import { explained } from '../document-checks.js';
import { sendGraphqlErrors } from '../errors.js';
import { stripLegacyIntrospection, withoutIntrospection } from '../introspection.js';
import type { ParsedDocument } from './parse-document.js';
import type { Answer, GateSettings } from './settings.js';

/**
 * The limits of a document. When it introspects, depth, distinct fields and cost measure its data part only
 * (the standard introspection query nests its type references deeper than `maxDepth` and, with GraphiQL's
 * options, costs more than `maxCost`); the expanded selections, aliases, root fields and directives count over
 * the whole document, so that introspection cannot be multiplied by aliases (the standard query has no alias,
 * one root field, no directive). Whether it may run at all is decided per caller (step 4); it spends rate-limit
 * points like a list field (`rootFieldPoints`).
 */
function limitErrors(s: GateSettings, document: DocumentNode, introspects: boolean) {
  if (!s.options.introspection.enabled || !introspects) return validate(s.schema, document, s.allLimits);
  return [
    ...validate(s.schema, document, s.wholeDocumentLimits),
    ...validate(s.schema, withoutIntrospection(document), s.dataLimits),
  ];
}

/**
 * Steps 5 and 6 of the gate for a document parsed by step 3: the limit rules alone, so a document that breaks limits
 * gets one error per broken limit and is not validated further (400 `MAX_…_EXCEEDED` with `extensions.limit`), then
 * graphql-js validation (400 `GRAPHQL_VALIDATION_FAILED`, the bare `Validation aborted.` explained). A document
 * that passes is remembered in the document cache, with the legacy `__Directive` members of an introspection query
 * stripped (what is validated is what runs; the printed text is what Apollo is handed).
 */
export function validateNewDocument(
  s: GateSettings,
  ctx: Context,
  query: string,
  parsed: ParsedDocument,
): Answer | CheckedDocument {
  const { introspects } = parsed;
  // What runs is the document without the legacy `__Directive` members: validate that one.
  const document = introspects ? stripLegacyIntrospection(parsed.document) : parsed.document;
  const errors = limitErrors(s, document, introspects);
  if (errors.length > 0) return () => sendGraphqlErrors(ctx, 400, 'GRAPHQL_VALIDATION_FAILED', errors);
  const invalid = validate(s.schema, document, s.validationRules, { maxErrors: 100 });
  if (invalid.length > 0) return () => sendGraphqlErrors(ctx, 400, 'GRAPHQL_VALIDATION_FAILED', explained(invalid));
  // Older tools' introspection query names the legacy members: Apollo is handed the stripped document.
  const printed = introspects && /\bon(Operation|Fragment|Field)\b/.test(query) ? print(document) : undefined;
  const entry: CheckedDocument = {
    text: query,
    document,
    introspects,
    measured: introspects ? withoutIntrospection(document) : document,
    rewritten: printed,
    operations: new Map(),
  };
  s.documents.remember(entry);
  return entry;
}
