import type { Context, Next } from 'koa';
import { readAuthorizationHeader } from '../core/authorization-header.js';

/** An `error_description` auth-param of a challenge as oidc-provider writes it (quoted, `\` escapes). */
const DESCRIPTION_PARAM = /error_description="(?:[^"\\]|\\.)*"/;

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
export async function explainAuthorizationHeader(ctx: Context, next: Next): Promise<void> {
  const headers = ctx.req.headers;
  const sent = headers.authorization;
  if (sent === undefined) return next();
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
  // With DPoP on, oidc-provider sends a Bearer and a DPoP challenge (an array); only invalid_request's carry a description.
  const challenges = ctx.response.headers['www-authenticate'];
  const describe = (c: unknown) => String(c).replace(DESCRIPTION_PARAM, `error_description="${read.description}"`);
  if (challenges !== undefined) ctx.set('WWW-Authenticate', Array.isArray(challenges) ? challenges.map(describe) : describe(challenges));
}
