import { maxHeaderSize } from 'node:http';
import type { Context, Next } from 'koa';
import { writeError } from '../http/error-handler.js';
import { providerForm, type RefuseInput } from '../http/provider-input.js';
import { issuerPath, PROVIDER_ROUTES } from '../http/routes.js';

/**
 * The longest authorization request URL (path and query, in bytes) that {@link postedAuthorization} sends the
 * browser to: half of Node's `maxHeaderSize` (16 KiB by default, so 8192), which bounds the request line and every
 * header of the GET together; the other half is left to the browser's headers (cookies, `User-Agent`, …).
 */
export const AUTHORIZATION_URL_LIMIT = Math.floor(maxHeaderSize / 2);

/** The parameters of a form body a host app's parser left only as an object (`req.body`), repeated keys kept. */
function parsedParams(body: unknown): URLSearchParams {
  const params = new URLSearchParams();
  if (!body || typeof body !== 'object') return params;
  for (const [name, value] of Object.entries(body)) {
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, String(item));
  }
  return params;
}

/**
 * The authorization endpoint's form POST (OpenID Connect Core §3.1.2.1: the endpoint MUST support GET and POST).
 * oidc-provider's own POST route (`enableHttpPostMethods`) stays off: its session cookie is `SameSite=Lax`, so a
 * browser leaves it off a form POST from the client's site, and the request would look like one without a session
 * (`prompt=none` answered `login_required`). Instead a POST is answered `303 See Other` with `Location` the same
 * request as a GET (the authorization endpoint of the discovery document, the form's parameters in its query, in
 * their order, repeated ones repeated), which the browser follows with its cookies. Every check of the GET path then
 * applies as it is: duplicated parameters, request objects by value, PAR's `request_uri`, `prompt=none`.
 *
 * Before it (lib/http/provider-input.ts): the method, Content-Type (`application/x-www-form-urlencoded`), a
 * Content-Encoding (415), the body limit (56 KiB, 413) and the form's encoding. Here:
 * - a POST that also has a query string: `400 invalid_request` (the parameters go in one place);
 * - a request whose GET URL would be longer than {@link AUTHORIZATION_URL_LIMIT}: `413 invalid_request` pointing to
 *   pushed authorization requests (RFC 9126), which carry any size.
 * Errors are our error page for a browser (nothing is sent to an unvalidated redirect_uri), JSON otherwise.
 * @param issuer the issuer URL; the `Location` is under it, as discovery's `authorization_endpoint`.
 */
export function postedAuthorization(issuer: string) {
  const endpoint = `${new URL(issuer).origin}${issuerPath(issuer)}${PROVIDER_ROUTES.authorization}`;
  const path = new URL(endpoint).pathname;
  const par = `${issuerPath(issuer)}${PROVIDER_ROUTES.pushed_authorization_request}`;
  return async function redirectPostedAuthorization(ctx: Context, next: Next): Promise<void> {
    if (ctx.method !== 'POST') return next();
    if (ctx.querystring) {
      const description =
        'A POST to the authorization endpoint carries its parameters in the form body only; ' +
        'this one also has a query string.';
      return writeError(ctx, 400, 'invalid_request', description);
    }
    const form = providerForm.get(ctx.req);
    const params = form === undefined ? parsedParams((ctx.req as { body?: unknown }).body) : new URLSearchParams(form);
    const query = String(params);
    const length = path.length + 1 + query.length;
    if (length > AUTHORIZATION_URL_LIMIT) {
      return writeError(
        ctx,
        413,
        'invalid_request',
        `This authorization request is ${length} bytes as a URL, ` +
          `more than the ${AUTHORIZATION_URL_LIMIT} this server accepts at the authorization endpoint: push it ` +
          `(POST ${par}, RFC 9126) and send only client_id and the request_uri it returns.`,
      );
    }
    ctx.status = 303;
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(query ? `${endpoint}?${query}` : endpoint);
  };
}

/** The provider input checks' refusals ({@link RefuseInput}): our error page for a browser where `page`, else JSON. */
export const refuseProviderInput: RefuseInput = (ctx, status, description, page) => {
  writeError(ctx, status, 'invalid_request', description, { page });
};
