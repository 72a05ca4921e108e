import type { ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import type { Logger } from '../core/logger.js';
import type { GraphqlContext } from './auth-context.js';
import { GraphqlErrorCode } from './errors.js';

/** The message a client gets in place of an unexpected resolver error's own (as GraphQL Yoga's masked errors). */
export const UNEXPECTED_ERROR_MESSAGE = 'Unexpected error.';

/**
 * Whether `error` (what Apollo hands `formatError` or `didEncounterErrors`) is unexpected: something a resolver (or
 * the code it calls) threw that is not a `GraphQLError` — a `TypeError`, a database driver's error naming a host,
 * a file path or an SQL text. A `GraphQLError` thrown on purpose, graphql-js' own errors (validation, variable
 * coercion) and Portcullis' refusals (`FORBIDDEN`, `RATE_LIMITED`, …) are expected: their messages are meant for
 * the client.
 */
export function isUnexpectedError(error: unknown): boolean {
  return error !== undefined && !(unwrapResolverError(error) instanceof GraphQLError);
}

/**
 * The formatted error a client gets for an unexpected one (see {@link isUnexpectedError}): message
 * {@link UNEXPECTED_ERROR_MESSAGE}, `extensions.code` `INTERNAL_SERVER_ERROR`, `path` and `locations` kept so the
 * client knows which field is `null`. Anything else is returned as it is.
 *
 * @param expose `graphql.exposeResolverErrors`: when `true`, nothing is masked.
 */
export function maskUnexpectedError(
  formatted: GraphQLFormattedError,
  error: unknown,
  expose: boolean,
): GraphQLFormattedError {
  if (expose || !isUnexpectedError(error)) return formatted;
  const { message: _hidden, extensions: _own, ...kept } = formatted;
  return { ...kept, message: UNEXPECTED_ERROR_MESSAGE, extensions: { code: GraphqlErrorCode.INTERNAL_SERVER_ERROR } };
}

/**
 * Apollo plugin that logs each unexpected resolver error (see {@link isUnexpectedError}) at `error`, with the
 * request id the response carries in `X-Request-Id`, the field's `path` and the error itself (pino's `err`
 * serializer: message and stack): an operator finds in the log what the client was not shown. Runs only for
 * responses with errors (`didEncounterErrors`); nothing on the hot path.
 *
 * @param requestIdOf the request id of an operation's context (`undefined` outside a Koa request).
 */
export function resolverErrorLog(
  logger: Logger | undefined,
  requestIdOf: (context: GraphqlContext) => string | undefined,
): ApolloServerPlugin<GraphqlContext> {
  const listener = {
    async didEncounterErrors(rc: {
      contextValue: GraphqlContext;
      errors: readonly GraphQLError[];
      operationName?: string | null;
    }) {
      for (const error of rc.errors) {
        if (!isUnexpectedError(error)) continue;
        logger?.error(
          {
            reqId: requestIdOf(rc.contextValue),
            operationName: rc.operationName ?? undefined,
            path: error.path,
            err: unwrapResolverError(error),
          },
          'graphql: a resolver failed',
        );
      }
    },
  };
  return logger ? { requestDidStart: () => Promise.resolve(listener) } : {};
}
