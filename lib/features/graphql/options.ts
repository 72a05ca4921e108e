/**
 * The graphql feature's options: `graphql` (the hardened GraphQL endpoint; off unless given). Its slice of the
 * option schema, composed into the one schema (validation, types, defaults, the option reference) by
 * config/options.ts. Schema only: it imports the option kit (config/option-kit.ts) and nothing else of ours, so
 * that config/ may import it (.dependency-cruiser.cjs).
 */
import { Type } from '@sinclair/typebox';
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import type { DocumentNode, ValidationRule } from 'graphql';
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphqlRejectHook } from '../../core/graphql-rejection.js';
import {
  derived,
  limitSpec,
  maybe,
  oneOf,
  optional,
  required,
  section,
  withDefault,
} from '../../../config/option-kit.js';

const graphqlLimits = {
  maxQueryBytes: withDefault(Type.Integer({ minimum: 16, maximum: 1048576 }), 16384, {
    unit: 'bytes',
    description:
      'Query text size, checked before parsing (`413 QUERY_TOO_LARGE`; the whole body is capped at 100 kB, ' +
      '`413 PAYLOAD_TOO_LARGE`)',
  }),
  maxTokens: withDefault(Type.Integer({ minimum: 1 }), 1000, {
    description:
      "Lexer tokens, enforced by graphql-js while parsing (`MAX_TOKENS_EXCEEDED`, recognised by graphql-js' " +
      'exact message; any other syntax error is `GRAPHQL_PARSE_FAILED` with its own message)',
  }),
  maxDepth: withDefault(Type.Integer({ minimum: 1 }), 6, {
    description:
      'Field nesting depth, fragments followed; `__schema`/`__type` subtrees are not measured (`MAX_DEPTH_EXCEEDED`)',
  }),
  maxAliases: withDefault(Type.Integer({ minimum: 0 }), 15, {
    description: 'Aliases per document, `__typename` and introspection aliases included (`MAX_ALIASES_EXCEEDED`)',
  }),
  maxRootFields: withDefault(Type.Integer({ minimum: 1 }), 15, {
    description: 'Root fields per operation, `__schema`/`__type` included (`MAX_ROOT_FIELDS_EXCEEDED`)',
  }),
  maxUniqueFields: withDefault(Type.Integer({ minimum: 1 }), 50, {
    description:
      'Distinct `Type.field` coordinates per document; `__schema`/`__type` subtrees are not counted ' +
      '(`MAX_UNIQUE_FIELDS_EXCEEDED`)',
  }),
  maxDirectives: withDefault(Type.Integer({ minimum: 0 }), 50, {
    description: 'Directive uses per document, introspection included (`MAX_DIRECTIVES_EXCEEDED`)',
  }),
  maxRecursiveSelections: withDefault(Type.Integer({ minimum: 1 }), 1000, {
    description: 'Selections after expanding fragments: the fragment-bomb guard (`MAX_RECURSIVE_SELECTIONS_EXCEEDED`)',
  }),
  maxCost: withDefault(Type.Integer({ minimum: 1 }), 5000, {
    description:
      'Operation cost = (field cost + children) × list size, the list size from `first`/`last`/`limit` as ' +
      "the executor will see it (literals, variables and their defaults, the schema's argument defaults; the " +
      'largest when several are given), else `defaultListSize`; `null` and negative sizes count as ' +
      '`defaultListSize`; `__schema`/`__type` subtrees are not measured, they spend rate-limit points ' +
      'instead (`MAX_COST_EXCEEDED`)',
  }),
  defaultFieldCost: withDefault(Type.Number({ minimum: 0 }), 1, {
    description: 'Cost of a field without a `fieldCosts` entry (`__typename` costs 0)',
  }),
  fieldCosts: withDefault(
    Type.Unsafe<Record<string, number>>({
      type: 'object',
      propertyNames: { pattern: '^[_A-Za-z][_0-9A-Za-z]*\\.[_A-Za-z][_0-9A-Za-z]*$' },
      additionalProperties: { type: 'number', minimum: 0 },
    }),
    {},
    {
      description:
        'Per-field costs by schema coordinate, e.g. `{ "Query.products": 5 }`. A cost on an interface field ' +
        'also prices that field of every implementation, and a cost on an object field also prices it on the ' +
        'interfaces the object implements, so it holds however a query selects the field (the highest ' +
        'entry wins)',
    },
  ),
  defaultListSize: withDefault(Type.Integer({ minimum: 0 }), 10, {
    description: 'Assumed length of a list field without a `first`/`last`/`limit` argument',
  }),
};

const graphqlSchema = Type.Object(
  {
    path: withDefault(Type.String({ pattern: '^/[A-Za-z0-9/_-]*$' }), '/graphql', {
      description:
        "Path of the GraphQL endpoint on the host, absolute (not under the issuer's path unless written so): " +
        '`/api/graphql`, `/auth/graphql`, …',
    }),
    typeDefs: required(
      Type.Unsafe<string | DocumentNode | Array<string | DocumentNode>>({
        anyOf: [{ type: 'string', minLength: 1 }, { type: 'object' }, { type: 'array' }],
      }),
      {
        description: 'The host schema (SDL, a parsed `DocumentNode`, or an array of them)',
        defaultText: 'unset: GraphQL off',
      },
    ),
    resolvers: withDefault(
      Type.Unsafe<IResolvers | IResolvers[]>({ anyOf: [{ type: 'object' }, { type: 'array' }] }),
      {},
      {
        description:
          'Resolvers of the host schema; `context.auth` is `{ sub, client_id, scope, scopes }` (RFC 7662 ' +
          'names) or `null`',
      },
    ),
    introspection: section('Introspection of the GraphQL schema', {
      enabled: withDefault(Type.Boolean(), false, {
        description:
          'Allow `__schema`/`__type` queries (the full and the legacy introspection query work when on, ' +
          'under the default limits); `__typename` always works. Introspection counts towards aliases, root ' +
          'fields, directives and the rate limit; depth, distinct fields and cost measure the data part only',
        security:
          'off: the schema stays private; refused on the parsed document (`INTROSPECTION_DISABLED`), however ' +
          'spaced, commented, aliased or hidden in a fragment, in every transport',
        see: 'GraphQL spec §4',
      }),
      requiredScope: optional(Type.String({ minLength: 1 }), {
        description:
          'With introspection on, only tokens carrying this scope may introspect (decided per request; ' +
          'others get `INTROSPECTION_DISABLED`, `401` without a token and `403 insufficient_scope` with one, ' +
          'the scope named in `WWW-Authenticate`); a scope this server does not have (standard or `scopes`) ' +
          'is a start-up warning',
      }),
    }),
    transports: section('Transports beyond POST application/json (SPEC area B rule 4)', {
      get: withDefault(Type.Boolean(), false, {
        description:
          'Accept `GET ?query=&variables=&operationName=` (queries only; mutations get `405` with `Allow: POST`)',
        security: 'query text lands in logs and caches; exempt from Apollo CSRF prevention (a GET never mutates)',
        see: 'GraphQL over HTTP',
      }),
      form: withDefault(Type.Boolean(), false, {
        description:
          'Accept `application/x-www-form-urlencoded` POSTs with `query`, `variables`, `operationName` and ' +
          '`csrf_token` from `GET <path>/csrf-token`; without a matching token and cookie `403 ' +
          'CSRF_TOKEN_INVALID`',
        security: 'a form needs no CORS preflight: the CSRF token (signed double-submit cookie) protects it instead',
        see: 'OWASP CSRF Cheat Sheet',
      }),
    }),
    corsOrigins: withDefault(Type.Array(Type.String({ pattern: '^https?://[^/?#]+$' })), [], {
      description:
        'Exact origins (`scheme://host:port`) allowed to call the endpoint from browsers (CORS); others get ' +
        'no CORS headers. The demo allows `http://localhost:8080`',
      security: 'each origin listed can send credentialed requests from its pages',
    }),
    maxBatchSize: withDefault(Type.Integer({ minimum: 0, maximum: 100 }), 0, {
      defaultText: '(batching off)',
      description:
        'Operations allowed in one JSON-array request (`0` refuses batches with `BATCHING_DISABLED`); each ' +
        'runs through every limit, and the rate limit is charged for the whole batch before any of it runs: ' +
        'over budget, `429 RATE_LIMITED` and nothing ran (never some results with a 429)',
      security: 'batches multiply work per request',
    }),
    trustedDocuments: optional(Type.Array(Type.String({ minLength: 1 })), {
      defaultText: 'unset: any document',
      description:
        'Allow-list of exact query texts; others get `400 UNTRUSTED_DOCUMENT`. Requests carry the full text: ' +
        'a persisted-query hash (`extensions.persistedQuery`), even of a listed text, is refused with or ' +
        'without the text (`PERSISTED_QUERY_NOT_SUPPORTED`)',
    }),
    limits: section('Limits of the GraphQL endpoint; each violation is a 400 naming the limit', graphqlLimits),
    rateLimit: withDefault(
      Type.Union([Type.Unsafe<false>({ const: false }), limitSpec]),
      { points: 600, durationSeconds: 60 },
      {
        description:
          'Budget of executed root fields (each alias counts, weighted by its field cost; ' +
          '`__schema`/`__type` weigh like a list field, `defaultFieldCost × defaultListSize` = 10, unless ' +
          'listed in `fieldCosts`) and of aliased fields below the root (each `defaultFieldCost`, at least ' +
          "1: an alias there is another call with arguments of the caller's choosing) per token subject + " +
          'client, or per IP when anonymous; `false` turns it off. Documents not seen before spend points ' +
          'too, before they are parsed, refused or not (`parseBytesPerPoint`). Over it `429 RATE_LIMITED` ' +
          'with `Retry-After`',
        security: 'closes alias brute force (one request, many operations) and floods of refused documents',
      },
    ),
    parseBytesPerPoint: withDefault(Type.Integer({ minimum: 1, maximum: 1048576 }), 1024, {
      unit: 'bytes',
      description:
        'What checking a document costs in `rateLimit` points, refused or not: a query text not in the ' +
        'document cache spends one point per started `parseBytesPerPoint` bytes (16 kB: 16 points), in one ' +
        'consume under the same key, before it is parsed (over budget `429 RATE_LIMITED` with `Retry-After`, ' +
        'unread). That covers any refusal that follows (syntax, `MAX_TOKENS_EXCEEDED`, the limits, ' +
        "validation, `413 QUERY_TOO_LARGE`, …) and counts towards the operation's points: a request that " +
        'runs spends the larger of the two. A refusal whose documents were all cached (variables, ' +
        '`operationName`, cost with the variables, introspection for this caller) spends 1 point. Unused ' +
        'with `rateLimit: false`',
      security:
        'refused documents are throttled like operations: with the defaults an address gets at most 37 new ' +
        '16 kB documents parsed a minute; larger: new documents are cheaper to send',
    }),
    privateFieldCheck: withDefault(oneOf(['warn', 'refuse', 'off'] as const), 'warn', {
      description:
        'Start-up check for fields named like e-mail, password, token, secret, user/account id without ' +
        '`@requiresScopes` or `@public(reason:)`: `warn` logs, `refuse` stops the server, `off` skips it',
    }),
    exposeResolverErrors: withDefault(Type.Boolean(), false, {
      description:
        'Send clients the message of an error a resolver throws that is not a `GraphQLError` (a `TypeError`, ' +
        "a database driver's error). Off: such an error answers `Unexpected error.` with `extensions.code` " +
        '`INTERNAL_SERVER_ERROR` (its `path` kept, its field `null`) and is logged at `error` with the ' +
        'request id; a `GraphQLError` thrown on purpose keeps its message and extensions either way',
      security: 'messages of unexpected errors (hosts, file paths, SQL text) reach every client',
    }),
    plugins: withDefault(
      Type.Unsafe<ApolloServerPlugin<BaseContext>[]>({ type: 'array', items: { type: 'object' } }),
      [],
      {
        description:
          "Extra Apollo Server plugins (tracing, metrics, audit logs), run after Portcullis' own; their " +
          'hooks see `contextValue.auth`',
        security: "runs inside the request: a plugin can read tokens' claims and change responses",
      },
    ),
    onReject: optional(Type.Unsafe<GraphqlRejectHook>({}), {
      defaultText: 'unset',
      description:
        'Told of every refusal of the endpoint, with what the client was answered: `(rejection) => void`, ' +
        '`rejection` `{ code, status, message, errors, operationName?, method, path, ip, requestId? }` ' +
        "(`code` and `message` those of the first error; `errors` the body's, as sent). Every refusal: the " +
        "transport guard's, bearer authentication's, the document gate's (size, trusted documents, tokens, " +
        "syntax, introspection, each limit, validation, operation, variables, cost) and the rate limit's " +
        'inside Apollo (`429 RATE_LIMITED`, `503 TEMPORARILY_UNAVAILABLE`). Called after the answer is ' +
        'decided and not awaited; what it throws or rejects with is ignored, the answer stays the same',
    }),
    validationRules: withDefault(Type.Unsafe<ValidationRule[]>({ type: 'array' }), [], {
      description:
        'Extra graphql-js validation rules, run by the document gate with the standard ones (failures `400 ' +
        'GRAPHQL_VALIDATION_FAILED`); a document that passed is remembered, so a rule must depend on the ' +
        'document and schema only',
    }),
    resource: derived(Type.String({ format: 'uri', not: { pattern: '#' } }), {
      defaultText: "issuer's origin + `graphql.path`",
      description:
        'Resource indicator of the API: tokens requested with `resource=<this>` are JWT access tokens (RFC ' +
        '9068) verified without a storage lookup; tokens for other audiences are refused',
      see: 'RFC 8707, RFC 9068',
    }),
  },
  { additionalProperties: false, title: 'The hardened GraphQL endpoint; off unless `typeDefs` is given' },
);

/** Top-level options of the `graphql` feature. */
export const graphqlOptions = {
  graphql: maybe(graphqlSchema),
};
