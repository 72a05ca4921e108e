import type { KoaContextWithOIDC } from 'oidc-provider';
import { isPlainTokenRefusal, PLAIN_TOKEN_DESCRIPTION, scriptHashSource } from './authorization-rules.js';

type Next = () => Promise<unknown>;

/**
 * `error_description` for the errors oidc-provider answers without one, per route (`ctx.oidc.route`). RFC 6749
 * §4.1.2.1 and §5.2 give the description to help the client's developer; without one a relying party sees only
 * `request_uri_not_supported` and cannot tell that a pushed request's `request_uri` would work. Values stay within
 * RFC 6749's `error_description` characters (no `"` or `\`) and need no HTML escaping.
 */
const MISSING_DESCRIPTIONS: Readonly<Record<string, Readonly<Record<string, string>>>> = Object.freeze({
  request_uri_not_supported: Object.freeze({
    authorization: 'request_uri by reference is not supported (request_uri_parameter_supported is false): '
      + 'use the request_uri returned by the pushed authorization request endpoint (RFC 9126), or send the request object as request',
    pushed_authorization_request: 'request_uri cannot be used in a pushed authorization request (RFC 9126 section 2.1): '
      + 'push the authorization parameters or a request object instead',
  }),
  registration_not_supported: Object.freeze({
    authorization: 'the registration parameter (OpenID Connect Core section 7.2.1) is not supported: '
      + 'register the client beforehand (dynamic registration, RFC 7591) and send only its client_id',
    pushed_authorization_request: 'the registration parameter (OpenID Connect Core section 7.2.1) is not supported: '
      + 'register the client beforehand (dynamic registration, RFC 7591) and send only its client_id',
  }),
});

/** The description to give `error` on `route`: oidc-provider's own when it has one, else ours (if any). */
export function describedError(route: string | undefined, error: string, description: unknown): string | undefined {
  if (typeof description === 'string' && description) return description;
  return MISSING_DESCRIPTIONS[error]?.[route ?? ''];
}

/** The description on the error page of `renderError` (errors that cannot go to the client). */
export function errorPageDescription(ctx: KoaContextWithOIDC, out: { error?: unknown; error_description?: unknown }): string | undefined {
  if (isPlainTokenRefusal(ctx, out.error)) return PLAIN_TOKEN_DESCRIPTION;
  return describedError(ctx.oidc?.route, String(out.error), out.error_description);
}

/** Adds `error_description` to the query or fragment of a redirect carrying `error` without one. */
function describeLocation(location: string, error: string, description: string): string {
  const url = new URL(location);
  for (const part of ['search', 'hash'] as const) {
    const params = new URLSearchParams(url[part].slice(1));
    if (params.get('error') === error && !params.has('error_description')) {
      params.set('error_description', description);
      url[part] = params.toString();
    }
  }
  return url.href;
}

/** Adds the description to oidc-provider's `form_post` and `web_message` pages (the latter's script hash too). */
function describePage(ctx: KoaContextWithOIDC, body: string, error: string, description: string): string {
  if (body.includes('name="error_description"') || body.includes('"error_description":')) return body;
  const input = `<input type="hidden" name="error" value="${error}"/>`;
  if (body.includes(input)) return body.replace(input, `${input}\n<input type="hidden" name="error_description" value="${description}"/>`);
  const member = `"error":${JSON.stringify(error)}`;
  if (!body.includes(member)) return body;
  const after = body.replace(member, `${member},"error_description":${JSON.stringify(description)}`);
  const csp = ctx.response.get('content-security-policy');
  if (csp) ctx.set('content-security-policy', csp.replace(scriptHashSource(body), scriptHashSource(after)));
  return after;
}

/**
 * Post-middleware of the authorization and pushed authorization request endpoints: an error oidc-provider sent
 * without `error_description` gets the one of {@link MISSING_DESCRIPTIONS}, in every place it can go (a redirect's
 * query or fragment, the `form_post` and `web_message` pages, the JSON answer). The error page of errors that
 * cannot go to the client gets it from `renderError` ({@link describedError}).
 */
export async function describeUndescribedErrors(ctx: KoaContextWithOIDC, next: Next): Promise<void> {
  await next();
  if (ctx.status < 300) return;
  const route = ctx.oidc?.route;
  const body = ctx.body as unknown;
  if (body && typeof body === 'object' && !Buffer.isBuffer(body) && 'error' in body) {
    const out = body as { error: unknown; error_description?: unknown };
    const description = out.error_description === undefined ? describedError(route, String(out.error), undefined) : undefined;
    if (description) out.error_description = description;
    return;
  }
  for (const error of Object.keys(MISSING_DESCRIPTIONS)) {
    const description = describedError(route, error, undefined);
    if (!description) continue;
    const location = ctx.response.get('location');
    if (location && location.includes(`error=${error}`)) ctx.response.set('location', describeLocation(location, error, description));
    else if (typeof body === 'string' && body.includes(error)) ctx.body = describePage(ctx, body, error, description);
  }
}
