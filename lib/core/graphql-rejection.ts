/*
 * The contract of `graphql.onReject` (config/options.ts): what a host's hook is told of a refusal
 * (lib/graphql/rejections.ts).
 */

/**
 * One refusal of the GraphQL endpoint, as a host's `graphql.onReject` sees it: what the client was answered (status,
 * the errors of the body as sent) and which request it was. Every refusal is reported: the transport guard's (method,
 * content type, body, CSRF, batching, persisted queries …), bearer authentication's, the document gate's (size,
 * trusted documents, tokens, syntax, introspection, each limit, validation, operation, variables, cost) and the
 * rate limit's and storage outages' (`RATE_LIMITED`, `TEMPORARILY_UNAVAILABLE`), before Apollo or inside it.
 */
export interface GraphqlRejection {
  /** `extensions.code` of the first error: `MAX_DEPTH_EXCEEDED`, `INTROSPECTION_DISABLED`, `RATE_LIMITED`, … */
  code: string;
  /** HTTP status of the answer (400, 401, 403, 405, 406, 413, 415, 429, 503). */
  status: number;
  /** Message of the first error, as sent. */
  message: string;
  /** Every error of the answer, as sent (message, `extensions.code`, `extensions.limit` when a limit was broken). */
  errors: ReadonlyArray<{ message: string; extensions?: Record<string, unknown> }>;
  /** `operationName` of the (first) request, when the transport guard read one. */
  operationName?: string;
  /** HTTP method and path of the request. */
  method: string;
  path: string;
  /** Client address (`ctx.ip`, after the trusted-proxy rules). */
  ip: string;
  /** The request id of the request log line, when there is one. */
  requestId?: string;
}

/**
 * `graphql.onReject`: told of each refusal after its answer is decided. Synchronous for the endpoint: a returned
 * promise is not awaited, and what the hook throws or rejects with is ignored — the answer stays the same.
 */
export type GraphqlRejectHook = (rejection: GraphqlRejection) => void | Promise<void>;
