import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import {
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import { koaMiddleware } from '@as-integrations/koa';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLError, GraphQLFormattedError, GraphQLSchema } from 'graphql';
import type { Context, Middleware } from 'koa';
import { ConfigError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { createLimiter, type Limiter, type LimiterBackend } from '../core/limiter.js';
import { noteStorageOutage } from '../core/outage-note.js';
import type { GraphqlContext } from './auth-context.js';
import {
  applyScopeDirectives,
  AUTHORIZATION_TYPE_DEFS,
  findPrivateLookingFields,
  findUnknownScopeMarks,
} from './authorization.js';
import { ApolloDocumentStore, handOffPlugin } from './apollo-document-store.js';
import { DocumentCache } from './document-cache.js';
import { documentGate } from './document-gate.js';
import { SUGGESTION } from './errors.js';
import { isGraphqlResponseType, labelGraphqlResponse } from './media-type.js';
import type { ResolvedGraphqlOptions } from './options.js';
import { operationLimitsPlugin, type GateOutcome } from './plugins/operation-limits.js';
import { maskUnexpectedError, resolverErrorLog } from './resolver-errors.js';
import { reportRejection } from './rejections.js';

/**
 * Final shape of every error Apollo sends: suggestions removed — including the variable-coercion messages
 * that `hideSchemaDetailsFromClientErrors` misses (apollo-server#8086) — and no stack trace.
 */
export function formatGraphqlError(formatted: GraphQLFormattedError): GraphQLFormattedError {
  const { stacktrace: _drop, ...extensions } = (formatted.extensions ?? {}) as Record<string, unknown>;
  const message = formatted.message.replace(SUGGESTION, '') || formatted.message;
  return { ...formatted, message, extensions };
}

/**
 * The request's Koa context on its GraphQL context: its `ctx.state` says whether the document gate checked every
 * operation (cost with its variables included), and its Node request takes the note of a storage outage for the
 * request log line. A property, not a WeakMap entry: Apollo hands plugins a shallow copy of the context (one per
 * operation of a batch), which keeps the reference.
 */
const KOA_CONTEXT = Symbol('portcullis.koaContext');
const koaOf = (context: GraphqlContext) =>
  (context as unknown as Record<symbol, { state: Record<string, unknown>; req: object } | undefined>)[KOA_CONTEXT];

/** An error's extensions as the client gets them: Apollo answers `extensions.http` with the status and headers. */
const withoutHttp = ({ http: _http, ...extensions }: Record<string, unknown>) => extensions;

/** Runs one step of building the schema; what graphql-js or graphql-tools throws becomes a ConfigError at `path`. */
function schemaStep(path: 'graphql.typeDefs' | 'graphql.resolvers', build: () => GraphQLSchema): GraphQLSchema {
  try {
    return build();
  } catch (err) {
    const { message, locations } = err as Partial<GraphQLError>;
    const at = locations?.[0] ? ` (line ${locations[0].line}, column ${locations[0].column})` : '';
    throw new ConfigError(path, `${String(message).replace(/\.?\s*\n+\s*/g, '; ')}${at}`, 'ERR_CONFIG_INVALID', {
      cause: err,
    });
  }
}

/**
 * Builds the executable schema: host SDL plus the authorization directives, `@requiresScopes` enforced.
 * The SDL is built first and the resolvers added to it, so that a mistake is named by the option it is in.
 *
 * @throws {ConfigError} at `graphql.typeDefs` when the SDL does not parse or does not make a valid schema (the
 *   graphql-js message, with the line and column of a syntax error); at `graphql.resolvers` when a resolver names
 *   a type or field the schema does not have (graphql-tools' message).
 */
export function buildSchema(config: Pick<ResolvedGraphqlOptions, 'typeDefs' | 'resolvers'>): GraphQLSchema {
  const typeDefs = [AUTHORIZATION_TYPE_DEFS, ...(Array.isArray(config.typeDefs) ? config.typeDefs : [config.typeDefs])];
  const sdl = schemaStep('graphql.typeDefs', () => makeExecutableSchema({ typeDefs: typeDefs as never }));
  return applyScopeDirectives(
    schemaStep('graphql.resolvers', () =>
      makeExecutableSchema({ typeDefs: sdl, resolvers: config.resolvers as never }),
    ),
  );
}

/**
 * One start-up warning naming each `@requiresScopes` mark (`Type.field` or `Type`) whose scope the server does not
 * know, and one for an `introspection.requiredScope` (introspection on) the server does not know. A warning, not a
 * `ConfigError`: the field fails closed (nothing leaks), one schema may serve deployments that
 * configure different scopes (one without the admin scope locks those fields on purpose), and an existing
 * deployment with such a mark keeps starting after an upgrade.
 */
function warnUnknownScopeMarks(schema: GraphQLSchema, options: ResolvedGraphqlOptions, deps: ApolloDeps): void {
  if (!deps.knownScopes) return;
  const introspectionScope = options.introspection.enabled ? options.introspection.requiredScope : undefined;
  if (introspectionScope !== undefined && !deps.knownScopes.includes(introspectionScope)) {
    deps.logger?.warn(
      { scope: introspectionScope },
      `graphql: introspection.requiredScope "${introspectionScope}" is a scope this server does not have ` +
        `(add it to config \`scopes\`), so no token can introspect`,
    );
  }
  const unknown = findUnknownScopeMarks(schema, deps.knownScopes);
  if (!unknown.length) return;
  const list = unknown.map((m) => `${m.at} needs "${m.scope}"`).join(', ');
  deps.logger?.warn(
    { marks: unknown },
    `graphql: @requiresScopes names scopes this server does not have (add them to config \`scopes\`), so no ` +
      `token can read these fields: ${list}`,
  );
}

/**
 * Apollo's Koa middleware with its answers (data, errors, the 429 and 503 its plugins throw) labelled with the media
 * type our own refusals get ({@link labelGraphqlResponse}): Apollo negotiates the same two types by itself, but
 * answers `application/json` to a request without `Accept` or with `*`/`*`. Relabelled once Apollo has written its
 * answer (the integration then calls `next`), before anything after it runs; no extra promise per request.
 */
function answeredAsNegotiated(apolloKoa: Middleware): Middleware {
  return function answerWithApollo(ctx, next) {
    return apolloKoa(ctx, () => {
      if (isGraphqlResponseType(ctx.response.get('Content-Type'))) labelGraphqlResponse(ctx);
      return next();
    });
  };
}

/** Dependencies of {@link startApollo}. */
export interface ApolloDeps {
  issuer: string;
  logger?: Logger;
  /** Backend of the operation rate limiter (memory by default). */
  limiterBackend?: LimiterBackend;
  /**
   * Every scope the authorization server can grant: a `@requiresScopes` mark naming another is logged at `warn`
   * (no token can carry it, so the field could never be read). Unset: not checked.
   */
  knownScopes?: readonly string[];
}

/**
 * The Apollo plugins of {@link startApollo}, in order: no landing page, no inline traces, the gate's document
 * hand-off, the cost and rate limits per operation, the resolver error log, then the host's own.
 */
function apolloPlugins(
  schema: GraphQLSchema,
  options: ResolvedGraphqlOptions,
  deps: ApolloDeps,
  limiter: Limiter | undefined,
  documents: DocumentCache,
): ApolloServerPlugin<GraphqlContext>[] {
  return [
    ApolloServerPluginLandingPageDisabled(),
    // No `extensions.ftv1` trace in responses, even if the host sets up Apollo federation or a graph key.
    ApolloServerPluginInlineTraceDisabled(),
    // Offers Apollo the gate's document for the request's own text (lib/graphql/apollo-document-store.ts).
    handOffPlugin as ApolloServerPlugin<GraphqlContext>,
    operationLimitsPlugin({
      schema,
      maxCost: options.limits.maxCost,
      cost: options.limits,
      limiter,
      documents,
      gate: (context) => koaOf(context)?.state.graphqlGate as GateOutcome | undefined,
      prepaid: (context) => (koaOf(context)?.state.graphqlPrepaid as number | undefined) ?? 0,
      onStorageOutage: (context, err) => {
        const koa = koaOf(context);
        if (koa) noteStorageOutage(koa.req, err);
      },
      // Refused inside Apollo (rate limit, outage): `graphql.onReject` is told what the client gets.
      onRefusal: (context, status, error) => {
        const koa = koaOf(context);
        if (koa)
          reportRejection(koa as unknown as Context, status, [
            formatGraphqlError({ message: error.message, extensions: withoutHttp(error.extensions) }),
          ]);
      },
    }),
    resolverErrorLog(deps.logger, (context) => koaOf(context)?.state.requestId as string | undefined),
    // The host's own (`graphql.plugins`), after ours: a refusal of ours comes first.
    ...(options.plugins as ApolloServerPlugin<GraphqlContext>[]),
  ];
}

/**
 * Starts Apollo Server for the host's schema with secure settings: introspection per {@link documentGate}, no
 * landing page, no stack traces, no suggestions, no APQ, batching only when configured, CSRF prevention on
 * unless an opt-in transport is enabled (the transport guard then protects them), parse-time token limit,
 * cost and rate limits per operation, and unexpected resolver errors masked and logged (lib/graphql/resolver-errors.ts)
 * unless `exposeResolverErrors`.
 *
 * @throws {ConfigError} `graphql.typeDefs` when `privateFieldCheck: 'refuse'` finds private-looking fields, and
 *   what {@link buildSchema} throws.
 */
export async function startApollo(
  config: ResolvedGraphqlOptions,
  deps: ApolloDeps = { issuer: 'http://localhost' },
): Promise<{
  apollo: ApolloServer<GraphqlContext>;
  middleware: Middleware;
  gate: Middleware;
  schema: GraphQLSchema;
  options: ResolvedGraphqlOptions;
}> {
  const options = config;
  const schema = buildSchema(config);
  if (options.privateFieldCheck !== 'off') {
    const exposed = findPrivateLookingFields(schema);
    if (exposed.length) {
      const message = `fields that look private are exposed without @requiresScopes or @public: ${exposed.join(', ')}`;
      if (options.privateFieldCheck === 'refuse') throw new ConfigError('graphql.typeDefs', message);
      deps.logger?.warn({ fields: exposed }, `graphql: ${message}`);
    }
  }
  warnUnknownScopeMarks(schema, options, deps);
  const limiter = options.rateLimit ? createLimiter('graphql-ops', options.rateLimit, deps.limiterBackend) : undefined;
  // Checked and measured once per document by the gate; Apollo keeps its own parsed documents, in a store we bound.
  const documents = new DocumentCache();
  const plugins = apolloPlugins(schema, options, deps, limiter, documents);
  const apollo = new ApolloServer<GraphqlContext>({
    schema,
    // The document gate decides per caller; Apollo's own rule stays as a second line when it is off for all.
    introspection: options.introspection.enabled,
    includeStacktraceInErrorResponses: false,
    hideSchemaDetailsFromClientErrors: true,
    csrfPrevention: !(options.transports.get || options.transports.form),
    persistedQueries: false,
    allowBatchedHttpRequests: options.maxBatchSize > 0,
    parseOptions: { maxTokens: options.limits.maxTokens },
    documentStore: new ApolloDocumentStore(),
    formatError: (formatted, error) =>
      maskUnexpectedError(formatGraphqlError(formatted), error, options.exposeResolverErrors),
    plugins,
  });
  await apollo.start();
  const apolloKoa = koaMiddleware(apollo, {
    context: async ({ ctx }) => {
      const context: GraphqlContext = { auth: (ctx.state.auth as GraphqlContext['auth']) ?? null, ip: ctx.ip };
      (context as unknown as Record<symbol, unknown>)[KOA_CONTEXT] = ctx;
      return context;
    },
  }) as unknown as Middleware;
  const gate = documentGate(schema, options, documents, limiter);
  return { apollo, middleware: answeredAsNegotiated(apolloKoa), gate, schema, options };
}
