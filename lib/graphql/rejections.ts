import type { Context } from 'koa';
import type { GraphqlRejection, GraphqlRejectHook } from '../core/graphql-rejection.js';

export type { GraphqlRejection, GraphqlRejectHook } from '../core/graphql-rejection.js';

const ignore = () => {};

/** Makes `hook` the observer of this request's refusals (set by the transport guard, first thing). */
export function observeRejections(ctx: Context, hook: GraphqlRejectHook): void {
  ctx.state.graphqlOnReject = hook;
}

/** Tells the request's `graphql.onReject` (if any) that it was refused with `status` and `errors`. */
export function reportRejection(ctx: Context, status: number, errors: GraphqlRejection['errors']): void {
  const hook = ctx.state.graphqlOnReject as GraphqlRejectHook | undefined;
  if (!hook) return;
  const first = errors[0];
  const items = ctx.state.graphqlRequests as ReadonlyArray<{ operationName?: string }> | undefined;
  const rejection: GraphqlRejection = {
    code: String(first?.extensions?.code ?? ''),
    status,
    message: first?.message ?? '',
    errors,
    operationName: items?.[0]?.operationName,
    method: ctx.method,
    path: ctx.path,
    ip: ctx.ip,
    requestId: ctx.state.requestId as string | undefined,
  };
  try {
    const done = hook(rejection);
    if (done && typeof (done as Promise<void>).then === 'function') (done as Promise<void>).then(undefined, ignore);
  } catch {
    // The host's hook failing changes nothing of the answer.
  }
}
