import type { Context } from 'koa';
import type { AuthInfo } from '../auth-context.js';
import { challenge, presentedScheme } from '../bearer-auth.js';
import { sendGraphqlError } from '../errors.js';
import type { ResolvedGraphqlOptions } from '../options.js';

/** Whether `auth` may introspect under `options.introspection`. */
export function mayIntrospect(options: ResolvedGraphqlOptions['introspection'], auth: AuthInfo | null): boolean {
  if (!options.enabled) return false;
  return options.requiredScope === undefined || (auth?.scopes.includes(options.requiredScope) ?? false);
}

/** A scope RFC 6750 §3 can quote in `WWW-Authenticate` (scope-token characters). */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * Refuses introspection with `INTROSPECTION_DISABLED`: `400` when it is off for everyone; when it needs
 * `requiredScope`, the resource-server answers of RFC 6750 §3 with the scope in `WWW-Authenticate` — `401` without a
 * token (no error code, §3.1) and `403 insufficient_scope` for a token without the scope (in the DPoP scheme, with
 * `algs`, when the token came in it: RFC 9449 §7.1) — so a client learns that a token, and which scope, would help.
 */
export function refuseIntrospection(
  ctx: Context,
  introspection: ResolvedGraphqlOptions['introspection'],
  auth: AuthInfo | null,
): void {
  const scope = introspection.requiredScope;
  if (!introspection.enabled || scope === undefined)
    return sendGraphqlError(ctx, 400, 'INTROSPECTION_DISABLED', 'Introspection is disabled on this endpoint.');
  const quoted = SCOPE_TOKEN.test(scope) ? `scope="${scope}"` : undefined;
  const description = 'error_description="introspection needs a token with the scope named"';
  // A token presented in the DPoP scheme gets a DPoP challenge (RFC 9449 §7.1), with `algs`.
  ctx.set(
    'WWW-Authenticate',
    auth === null
      ? challenge('Bearer', quoted ? [quoted] : [])
      : challenge(presentedScheme(ctx), ['error="insufficient_scope"', description, ...(quoted ? [quoted] : [])]),
  );
  return sendGraphqlError(
    ctx,
    auth === null ? 401 : 403,
    'INTROSPECTION_DISABLED',
    `Introspection needs an access token with scope ${scope}.`,
  );
}
