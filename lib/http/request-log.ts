import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Context, Middleware, Next } from 'koa';
import type { Logger } from '../core/logger.js';
import { notedStorageOutage } from '../core/outage-note.js';

const INCOMING_ID = /^[\w.:-]{1,128}$/;

/**
 * One structured log line per request with a request id (the caller's `X-Request-Id` when well-formed, else a new
 * UUID), echoed in the response. Only the path is logged, never the query string (it carries codes and tokens),
 * and no headers. The line is at `info`, or at `warn` when the answer is a 5xx or the request met a storage outage
 * (then with `outage: { code, message, cause? }`, noted where the outage was met: lib/core/outage-note.ts), so that
 * an outage shows at the level operators watch, once per request, with the request id.
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
      const outage = status >= 500 ? notedStorageOutage(ctx.req) : undefined;
      const fields = { reqId: id, method: ctx.method, path: ctx.path, status, ms: Math.round(ms * 10) / 10 };
      if (status < 500) lines.info(fields, 'request');
      else lines.warn(outage ? { ...fields, outage } : fields, 'request');
    };
    try {
      await next();
    } finally {
      if (ctx.respond === false && !ctx.res.writableFinished) ctx.res.once('finish', done);
      else done();
    }
  };
}
