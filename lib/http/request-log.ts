import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Context, Middleware, Next } from 'koa';
import type { Logger } from '../core/logger.js';

const INCOMING_ID = /^[\w.:-]{1,128}$/;

/**
 * One structured log line per request with a request id (the caller's `X-Request-Id` when well-formed, else a new
 * UUID), echoed in the response. Only the path is logged, never the query string (it carries codes and tokens),
 * and no headers.
 */
export function requestLog(logger: Logger): Middleware {
  // The line's fields are fixed (id, method, path, status, ms) and none is a redacted key: the logger's
  // redaction pass would find nothing, yet cost most of the line's CPU time. Same bindings, level and output.
  const lines = logger.child({}, { redact: [] });
  return async function logRequest(ctx: Context, next: Next) {
    const incoming = ctx.get('X-Request-Id');
    const id = INCOMING_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = id;
    ctx.set('X-Request-Id', id);
    const started = performance.now();
    const done = () => {
      const ms = performance.now() - started;
      // Requests handed to oidc-provider (ctx.respond = false) finish on the raw response.
      const status = ctx.respond === false ? ctx.res.statusCode : ctx.status;
      lines.info({ reqId: id, method: ctx.method, path: ctx.path, status, ms: Math.round(ms * 10) / 10 }, 'request');
    };
    try {
      await next();
    } finally {
      if (ctx.respond === false && !ctx.res.writableFinished) ctx.res.once('finish', done);
      else done();
    }
  };
}
