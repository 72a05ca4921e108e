import type { Context, Next } from 'koa';
import { setPageSecurityHeaders } from './security-headers.js';
import { errorPage } from '../oidc/views.js';

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
    ctx.status = status;
    if (status === 503) ctx.set('Retry-After', '5');
    const error = status === 503 ? 'temporarily_unavailable' : status < 500 ? 'invalid_request' : 'server_error';
    const description = expose ? (e.error_description ?? e.message ?? 'request refused') : 'The server could not complete the request.';
    if (ctx.accepts('json', 'html') === 'html') {
      ctx.type = 'html';
      ctx.body = errorPage(setPageSecurityHeaders(ctx), error, description);
    } else {
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { error, error_description: description };
    }
    if (!expose) ctx.app.emit('error', err, ctx);
  }
}
