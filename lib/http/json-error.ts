import type { Context } from 'koa';
import type { OAuthErrorCode } from '../core/errors.js';

/**
 * An OAuth error as JSON for a machine (RFC 6749 §5.2 body `{ error, error_description }`, `Cache-Control: no-store`),
 * with `status` and any extra `headers` (e.g. `Retry-After` seconds, `Allow`). No page, no imports of the page
 * helpers: the route table answers with it too (lib/http/routes.ts), which the page helpers depend on.
 * `writeError` (lib/http/error-handler.ts) is the writer that also serves browsers; it uses this one for JSON.
 * @param description human-readable `error_description`; never a stack trace or a secret.
 */
export function writeJsonError(
  ctx: Context,
  status: number,
  error: OAuthErrorCode,
  description: string,
  headers?: Readonly<Record<string, string>>,
): void {
  ctx.status = status;
  if (headers) for (const [name, value] of Object.entries(headers)) ctx.set(name, value);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error, error_description: description };
}
