import { createHash } from 'node:crypto';
import type { GraphQLSchema, ValidationRule } from 'graphql';
import type { Limiter } from '../../core/limiter.js';
import { limitRules, tokenLimitMessages, VALIDATION_RULES } from '../document-checks.js';
import type { DocumentCache } from '../document-cache.js';
import type { ResolvedGraphqlOptions } from '../options.js';
import {
  createMaxAliasesRule,
  createMaxCostRule,
  createMaxDepthRule,
  createMaxDirectivesRule,
  createMaxRecursiveSelectionsRule,
  createMaxRootFieldsRule,
  createMaxUniqueFieldsRule,
} from '../rules/index.js';
import { parallelRules } from '../rules/parallel.js';

/** SHA-256 (hex) of a query text: the trusted-documents allow-list is kept as these. */
export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** What the document gate's steps read: its options resolved once, at start-up (lib/graphql/document-gate.ts). */
export interface GateSettings {
  schema: GraphQLSchema;
  options: ResolvedGraphqlOptions;
  /** The checked documents, by query text. */
  documents: DocumentCache;
  /** The operation rate limiter; `undefined` with `rateLimit: false`. */
  limiter: Limiter | undefined;
  /** Every limit rule, as one rule: a document that does not introspect. */
  allLimits: ValidationRule[];
  /**
   * The limits measured over a whole introspecting document: recursive selections, aliases, root fields, directives.
   */
  wholeDocumentLimits: ValidationRule[];
  /** The limits measured over its data part only: depth, distinct fields, cost. */
  dataLimits: ValidationRule[];
  /** SHA-256 of each trusted document; `undefined`: any document. */
  trusted: ReadonlySet<string> | undefined;
  /** graphql-js' exact messages for `maxTokens` ({@link tokenLimitMessages}). */
  tokenLimit: ReadonlySet<string>;
  /** `specifiedRules`, known operation types and the host's `graphql.validationRules`. */
  validationRules: readonly ValidationRule[];
}

/** The gate's settings for `schema` and `options` (rule sets built once). */
export function gateSettings(
  schema: GraphQLSchema,
  options: ResolvedGraphqlOptions,
  documents: DocumentCache,
  limiter: Limiter | undefined,
): GateSettings {
  const { limits } = options;
  return {
    schema,
    options,
    documents,
    limiter,
    allLimits: [parallelRules(limitRules(limits))],
    wholeDocumentLimits: [
      parallelRules([
        createMaxRecursiveSelectionsRule(limits.maxRecursiveSelections),
        createMaxAliasesRule(limits.maxAliases),
        createMaxRootFieldsRule(limits.maxRootFields),
        createMaxDirectivesRule(limits.maxDirectives),
      ]),
    ],
    dataLimits: [
      parallelRules([
        createMaxDepthRule(limits.maxDepth),
        createMaxUniqueFieldsRule(limits.maxUniqueFields),
        createMaxCostRule(limits.maxCost, limits),
      ]),
    ],
    trusted: options.trustedDocuments ? new Set(options.trustedDocuments.map(sha256)) : undefined,
    tokenLimit: tokenLimitMessages(limits.maxTokens),
    validationRules: [...VALIDATION_RULES, ...options.validationRules],
  };
}

/** A refusal's answer, deferred so that the refusal is charged to the rate limit before it is sent. */
export type Answer = () => void;
