import type { Context, Next } from 'koa';
import { ipLimitKey } from '../core/client-key.js';
import type { StorageUnavailableError } from '../core/errors.js';
import type { Limiter, LimitResult } from '../core/limiter.js';
import { noteStorageOutage, storageOutageOf } from '../core/outage-note.js';
import type { AuthInfo } from './auth-context.js';
import { sendGraphqlError } from './errors.js';
import { sendStorageOutage } from './storage-outage.js';

/**
 * The operation rate limit's key for a caller: `sub:<sub>|client:<client_id>` for a token holder (each token's
 * subject and client share one budget), `ip:<ipLimitKey(ip)>` otherwise. One function for both places that spend
 * (the operation-limits plugin per operation, the document gate per batch), so a batch and a single request of one
 * caller draw on the same budget.
 */
export function operationLimitKey(
  auth: Pick<AuthInfo, 'sub' | 'client_id'> | null | undefined,
  ip: string | undefined,
): string {
  return auth ? `sub:${auth.sub}|client:${auth.client_id}` : `ip:${ip === undefined ? 'unknown' : ipLimitKey(ip)}`;
}

/**
 * The storage outage behind a failed `Limiter.consume`, for the caller to answer 503 its own way (an Apollo error
 * in the plugin, a Koa answer in the gate): a limiter that cannot count never lets operations through. Anything
 * else is thrown on. Synchronous and called from the `catch` only, so spending costs no extra promise.
 */
export function limiterOutage(err: unknown): StorageUnavailableError {
  const outage = storageOutageOf(err);
  if (!outage) throw err;
  return outage;
}

/** The `RATE_LIMITED` message: what would have been spent (by one operation, or by a batch of `operations`). */
export function rateLimitedMessage(points: number, retryAfterSeconds: number, operations = 1): string {
  const what = operations === 1 ? 'this operation' : `this batch of ${operations} operations`;
  const batch = operations === 1 ? '' : '; none of them was run';
  return (
    `Rate limit exceeded: ${what} would spend ${points} point(s) (one per root field and per alias, weighted ` +
    `by field cost)${batch}; retry in ${retryAfterSeconds} s.`
  );
}

/**
 * Rate-limit points of reading documents the server has not checked (not in the document cache): one per started
 * `bytesPerPoint` bytes of query text (`graphql.parseBytesPerPoint`), at least 1 for a non-empty text. Known before
 * any parsing, and an upper bound of the work the checks can do: graphql-js' parse and validation are linear in
 * the text (its tokens) up to the gate's limits, and a refusal only stops them earlier.
 */
export function parsePrice(bytes: number, bytesPerPoint: number): number {
  return Math.ceil(bytes / bytesPerPoint);
}

/** The `RATE_LIMITED` message of the charge taken before parsing ({@link parsePrice}). */
export function parseRateLimitedMessage(points: number, bytesPerPoint: number, retryAfterSeconds: number): string {
  return (
    `Rate limit exceeded: checking the new document(s) of this request would spend ${points} point(s) ` +
    `(one per started ${bytesPerPoint} bytes of query text not checked before); retry in ${retryAfterSeconds} s.`
  );
}

/** Points a refused request spends when every document of it was in the document cache (no parsing was done). */
export const REFUSAL_POINTS = 1;

/** The `RATE_LIMITED` message of a refusal charged {@link REFUSAL_POINTS}. */
export function refusalRateLimitedMessage(retryAfterSeconds: number): string {
  return (
    `Rate limit exceeded: a refused request spends ${REFUSAL_POINTS} point(s) too; ` +
    `retry in ${retryAfterSeconds} s.`
  );
}

/**
 * Spends `points` of the caller's operation budget before the gate goes on with `then` (Koa middleware step):
 * refused, 429 `RATE_LIMITED` with `Retry-After` and `message(retryAfterSeconds)`, and `then` never runs; storage
 * down, the 503 of every other outage at this endpoint (noted for the request log line). One consume, one round
 * trip to the limiter's storage.
 */
export async function spendFirst(
  ctx: Context,
  limiter: Limiter,
  points: number,
  message: (retryAfterSeconds: number) => string,
  then: () => void | Promise<void>,
): Promise<void> {
  let result: LimitResult;
  try {
    result = await limiter.consume(operationLimitKey(ctx.state.auth as AuthInfo | null | undefined, ctx.ip), points);
  } catch (err) {
    noteStorageOutage(ctx.req, limiterOutage(err));
    return sendStorageOutage(ctx);
  }
  if (!result.allowed) {
    ctx.set('Retry-After', String(result.retryAfterSeconds));
    return sendGraphqlError(ctx, 429, 'RATE_LIMITED', message(result.retryAfterSeconds));
  }
  return then();
}

/**
 * Spends the points of a whole batch at once, before Apollo runs any of it (Koa middleware step of the document
 * gate, which measured each operation's points): Apollo runs the operations of a batch concurrently and answers
 * them with one status, so charging each as it resolves let the first ones run — mutations included — and then
 * answered 429 for the batch. `prepaid` points were spent for the batch's new documents before they were parsed
 * ({@link parsePrice}) and count towards `points`: the batch spends the larger of the two, and nothing more when
 * the prepaid points cover it. Refused: 429 `RATE_LIMITED` with `Retry-After` (the message names `points`),
 * nothing run; storage down: 503 (see {@link spendFirst}). Allowed: `ctx.state.graphqlGate` is `charged`, so the
 * operation-limits plugin spends nothing more for these operations.
 */
export function chargeBatch(
  ctx: Context,
  next: Next,
  limiter: Limiter,
  points: number,
  operations: number,
  prepaid = 0,
): Promise<void> {
  const run = () => {
    ctx.state.graphqlGate = 'charged';
    return next();
  };
  if (points - prepaid <= 0) return run();
  return spendFirst(ctx, limiter, points - prepaid, (retry) => rateLimitedMessage(points, retry, operations), run);
}
