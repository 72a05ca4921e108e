import type { Context, Next as KoaNext } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { readAuthorizationHeader } from '../core/authorization-header.js';
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
    authorization:
      'request_uri by reference is not supported (request_uri_parameter_supported is false): ' +
      'use the request_uri returned by the pushed authorization request endpoint (RFC 9126), or send the ' +
      'request object as request',
    pushed_authorization_request:
      'request_uri cannot be used in a pushed authorization request (RFC 9126 section 2.1): ' +
      'push the authorization parameters or a request object instead',
  }),
  registration_not_supported: Object.freeze({
    authorization:
      'the registration parameter (OpenID Connect Core section 7.2.1) is not supported: ' +
      'register the client beforehand (dynamic registration, RFC 7591) and send only its client_id',
    pushed_authorization_request:
      'the registration parameter (OpenID Connect Core section 7.2.1) is not supported: ' +
      'register the client beforehand (dynamic registration, RFC 7591) and send only its client_id',
  }),
});

/** The description to give `error` on `route`: oidc-provider's own when it has one, else ours (if any). */
export function describedError(route: string | undefined, error: string, description: unknown): string | undefined {
  if (typeof description === 'string' && description) return description;
  return MISSING_DESCRIPTIONS[error]?.[route ?? ''];
}

/** The description on the error page of `renderError` (errors that cannot go to the client). */
export function errorPageDescription(
  ctx: KoaContextWithOIDC,
  out: { error?: unknown; error_description?: unknown },
): string | undefined {
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
  if (body.includes(input))
    return body.replace(input, `${input}\n<input type="hidden" name="error_description" value="${description}"/>`);
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
    const description =
      out.error_description === undefined ? describedError(route, String(out.error), undefined) : undefined;
    if (description) out.error_description = description;
    return;
  }
  for (const error of Object.keys(MISSING_DESCRIPTIONS)) {
    const description = describedError(route, error, undefined);
    if (!description) continue;
    const location = ctx.response.get('location');
    if (location && location.includes(`error=${error}`))
      ctx.response.set('location', describeLocation(location, error, description));
    else if (typeof body === 'string' && body.includes(error)) ctx.body = describePage(ctx, body, error, description);
  }
}

/** An `error_description` auth-param of a challenge as oidc-provider writes it (quoted, `\` escapes). */
const DESCRIPTION_PARAM = /error_description="(?:[^"\\]|\\.)*"/;

/**
 * A header as clients send it and oidc-provider reads it as it is (`Bearer` or `DPoP`, one space, a token68): what
 * {@link readAuthorizationHeader} would find well-formed and leave unchanged, told by one test on every request.
 */
const USUAL_HEADER = /^(?:Bearer|DPoP) [A-Za-z0-9\-._~+/]+=*$/;

/**
 * Pre-middleware of the userinfo endpoint: an `Authorization` header it cannot use gets an `error_description`
 * that says what was wrong (the same as GraphQL's, lib/core/authorization-header.ts) instead of oidc-provider's
 * "invalid authorization header value format" or "authorization header scheme must be `Bearer`".
 *
 * - empty, or Bearer/DPoP without exactly one token68: `400 invalid_request` with an `error="invalid_request"`
 *   challenge (RFC 6750 §3.1); oidc-provider took an empty header for none (`401`);
 * - another scheme (`Basic`): `401 invalid_token` with a challenge without error attributes (RFC 6750 §3.1: an
 *   unsupported authentication method gets no error code), where oidc-provider answered `400 invalid_request`;
 * - several spaces between scheme and token (RFC 6750 §2.1: `1*SP`): accepted, as GraphQL accepts them
 *   (oidc-provider splits the header on one space and refused them).
 *
 * oidc-provider still answers every refusal itself, from a header that it refuses the same way (a scheme without
 * a token, or no header), so the answer keeps its CORS headers, `realm` and DPoP challenge; only the description
 * changes. The request's header is put back afterwards (the request log and a host app see what was sent).
 */
export async function explainAuthorizationHeader(ctx: Context, next: KoaNext): Promise<void> {
  const headers = ctx.req.headers;
  const sent = headers.authorization;
  if (sent === undefined || USUAL_HEADER.test(sent)) return next();
  const read = readAuthorizationHeader(sent);
  let given: string | undefined;
  if (read.kind === 'token') {
    given = `${read.scheme} ${read.token}`;
    if (given.toLowerCase() === sent.toLowerCase()) return next();
  } else if (read.kind === 'malformed') {
    given = 'Bearer';
  }
  if (given === undefined) delete headers.authorization;
  else headers.authorization = given;
  try {
    await next();
  } finally {
    headers.authorization = sent;
  }
  if (read.kind === 'token') return;
  const body = ctx.body as { error?: unknown; error_description?: unknown } | undefined;
  if (ctx.status < 400 || !body || typeof body !== 'object' || typeof body.error_description !== 'string') return;
  body.error_description = read.description;
  // With DPoP on, oidc-provider sends a Bearer and a DPoP challenge (an array); only invalid_request's carry a
  // description.
  const challenges = ctx.response.headers['www-authenticate'];
  const describe = (c: unknown) => String(c).replace(DESCRIPTION_PARAM, `error_description="${read.description}"`);
  if (challenges !== undefined)
    ctx.set('WWW-Authenticate', Array.isArray(challenges) ? challenges.map(describe) : describe(challenges));
}
