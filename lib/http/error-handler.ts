import type { Context, Next } from 'koa';
import { setPageSecurityHeaders } from './security-headers.js';
import { errorPage } from '../oidc/views.js';

/**
 * Answers `status` with an OAuth-style error: our error page for a browser (`Accept` prefers HTML), else
 * `{ error, error_description }` JSON; never cached.
 */
export function writeError(ctx: Context, status: number, error: string, description: string): void {
  ctx.status = status;
  if (ctx.accepts('json', 'html') === 'html') {
    ctx.type = 'html';
    ctx.body = errorPage(setPageSecurityHeaders(ctx), error, description);
  } else {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { error, error_description: description };
  }
}

/**
 * Last-resort handler for Portcullis' own routes: client errors keep their status and message, anything else
 * becomes a bare 500 with no stack trace or internal message. The error is re-emitted on the app for logging.
 */
export async function handleErrors(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
  } catch (err) {
    const e = err as { status?: number; statusCode?: number; expose?: boolean; message?: string; error_description?: string };
    const status = e.status ?? e.statusCode ?? 500;
    const expose = status < 500 || e.expose === true;
    if (status === 503) ctx.set('Retry-After', '5');
    const error = status === 503 ? 'temporarily_unavailable' : status < 500 ? 'invalid_request' : 'server_error';
    const description = expose ? (e.error_description ?? e.message ?? 'request refused') : 'The server could not complete the request.';
    writeError(ctx, status, error, description);
    if (!expose) ctx.app.emit('error', err, ctx);
  }
}
