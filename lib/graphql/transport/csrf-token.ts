import type { Context } from 'koa';
import { sendGraphqlError } from '../errors.js';
import type { TransportSettings } from './settings.js';

/**
 * `GET <path>/csrf-token`: the form transport's CSRF token (`{ csrf_token }`, `Cache-Control: no-store`), paired
 * with its cookie. 404 `NOT_FOUND` when the form transport is off or for another method.
 */
export function csrfTokenEndpoint(settings: TransportSettings, ctx: Context): void {
  if (!settings.allowForm || ctx.method !== 'GET') {
    return sendGraphqlError(ctx, 404, 'NOT_FOUND', 'Not found: the form transport is off or this is not a GET.');
  }
  const token = settings.csrf!.issue(ctx, { scope: settings.path, binding: '' });
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { csrf_token: token };
}

/** Path suffix of the endpoint that hands out the form transport's CSRF token. */
export const CSRF_TOKEN_SUFFIX = '/csrf-token';
