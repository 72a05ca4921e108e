import type { Context } from 'koa';

/**
 * The media types of a GraphQL response (GraphQL over HTTP §Media Types), with the charset named as Apollo Server
 * names it (§Body: the server SHOULD indicate the encoding). `application/graphql-response+json` says "this body is
 * a GraphQL response whatever the status": clients such as Apollo Client 4 read a non-2xx answer as GraphQL errors
 * only under this type. `application/json` is the legacy type, for clients that ask for it.
 */
export const GRAPHQL_RESPONSE_TYPES = Object.freeze({
  graphqlResponse: 'application/graphql-response+json; charset=utf-8',
  json: 'application/json; charset=utf-8',
} as const);

/** One of {@link GRAPHQL_RESPONSE_TYPES}. */
export type GraphqlResponseType = (typeof GRAPHQL_RESPONSE_TYPES)[keyof typeof GRAPHQL_RESPONSE_TYPES];

/** In the server's order of preference: a tie (`*`/`*`, `application/*`, no `Accept`) goes to the first. */
const OFFERED = [GRAPHQL_RESPONSE_TYPES.graphqlResponse, GRAPHQL_RESPONSE_TYPES.json];

/** The negotiated type kept on `ctx.state` once worked out for the request (`null`: neither is acceptable). */
const NEGOTIATED = 'graphqlResponseType';

/**
 * The media type the request's `Accept` header prefers among {@link GRAPHQL_RESPONSE_TYPES} (GraphQL over HTTP
 * §Body: "respect the given Accept header and attempt to encode the response in the highest priority media type
 * listed"), by RFC 9110 §12.5.1 as Koa's `ctx.accepts` reads it (negotiator: q-values, `q=0` excludes, the more
 * specific range wins, then the order listed):
 * - no `Accept` (or an empty one), or a range that takes both alike (`*`/`*`, `application/*`):
 *   `application/graphql-response+json`, the spec's type (its rule for a missing header since 2025-01-01, and
 *   graphql-http's);
 * - both named with the same q: the one listed first;
 * - `application/json` alone, or with the higher q: `application/json`;
 * - a charset other than UTF-8 on a range (`application/json; charset=utf-16`) does not match it.
 * `undefined` when neither is acceptable (`Accept: text/html`): the transport guard answers 406 `NOT_ACCEPTABLE`.
 * Worked out once per request and kept on `ctx.state`.
 */
export function graphqlResponseType(ctx: Context): GraphqlResponseType | undefined {
  const known = ctx.state[NEGOTIATED] as GraphqlResponseType | null | undefined;
  if (known !== undefined) return known ?? undefined;
  const accept = ctx.get('Accept').trim();
  const chosen = accept === '' ? OFFERED[0]! : (ctx.accepts(OFFERED) as GraphqlResponseType | false) || null;
  ctx.state[NEGOTIATED] = chosen;
  return chosen ?? undefined;
}

/**
 * Labels the GraphQL response being written with the negotiated media type (`application/json` when neither is
 * acceptable: what Apollo Server falls back to, for an answer given before the 406 check, such as a 405) and adds
 * `Vary: Accept`, since the same request with another `Accept` gets another type. The status is not changed: the
 * same codes go out under both types (GraphQL over HTTP allows 4xx and 5xx with `application/json` for legacy
 * servers; see docs/guides/graphql-clients.md).
 */
export function labelGraphqlResponse(ctx: Context): void {
  ctx.set('Content-Type', graphqlResponseType(ctx) ?? GRAPHQL_RESPONSE_TYPES.json);
  // every GraphQL answer passes here: no Vary yet (the usual case) is set, not parsed and merged
  if (ctx.response.get('Vary') === '') ctx.set('Vary', 'Accept');
  else ctx.vary('Accept');
}

/** Whether a response's `Content-Type` is one of the two GraphQL response types (any parameters). */
export function isGraphqlResponseType(contentType: string): boolean {
  // Apollo Server writes exactly one of these two on every answer: no split, trim or lower-casing for them
  if (contentType === GRAPHQL_RESPONSE_TYPES.json || contentType === GRAPHQL_RESPONSE_TYPES.graphqlResponse)
    return true;
  const type = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || type === 'application/graphql-response+json';
}
