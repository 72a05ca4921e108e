import type { IncomingMessage } from 'node:http';
import type { Context, Middleware, Next } from 'koa';
import { answeredMethod } from './allowed-methods.js';
import {
  encodedBody,
  limitProviderBody,
  readWholeBody,
  refuseEncodedBody,
  refuseLargeBody,
  replayBody,
  replayedBody,
} from './body-limit.js';
import { encodingDefect, FORM_TYPE, strictUtf8 } from './form-encoding.js';
import { writeJsonError } from './json-error.js';
import { PROVIDER_ROUTES } from './paths.js';
import { requestSlot } from '../core/request-slot.js';

/**
 * Answers a request the provider's input checks refuse (`400 invalid_request`, `description` naming the defect):
 * our error page for a browser when `page` (the endpoints a browser visits: authorization, its resume route, logout),
 * else JSON. The route table cannot import the page writer (it would close an import cycle), so the server passes it
 * in; without it the answer is always JSON.
 */
export type RefuseInput = (ctx: Context, status: number, description: string, page: boolean) => void;

const refuseAsJson: RefuseInput = (ctx, status, description) => {
  writeJsonError(ctx, status, 'invalid_request', description);
};

/**
 * The provider endpoints whose POST takes an `application/x-www-form-urlencoded` body, with the section that says so,
 * and whether a POST must have one: userinfo's body is optional (the access token may come in the `Authorization`
 * header, RFC 6750 §2.1), so only a non-empty body there must be a form.
 */
export const FORM_ENDPOINTS: ReadonlyMap<string, { required: boolean; see: string }> = new Map([
  [PROVIDER_ROUTES.authorization, { required: true, see: 'OpenID Connect Core section 3.1.2.1' }],
  [PROVIDER_ROUTES.token, { required: true, see: 'RFC 6749 section 4.1.3' }],
  [PROVIDER_ROUTES.introspection, { required: true, see: 'RFC 7662 section 2.1' }],
  [PROVIDER_ROUTES.revocation, { required: true, see: 'RFC 7009 section 2.1' }],
  [PROVIDER_ROUTES.pushed_authorization_request, { required: true, see: 'RFC 9126 section 2.1' }],
  [PROVIDER_ROUTES.userinfo, { required: false, see: 'RFC 6750 section 2.2' }],
  [`${PROVIDER_ROUTES.end_session}/confirm`, { required: true, see: 'the logout confirmation form' }],
]);

/** The form body of a provider request as our check read it (UTF-8, its encoding checked). */
export const providerForm = requestSlot<string>('portcullis.providerForm');

/** Endpoints a browser visits, whose refusals are pages for a browser: authorization and its resume route, logout. */
function visitedByBrowser(path: string): boolean {
  const authorization = PROVIDER_ROUTES.authorization;
  return path === authorization || path.startsWith(`${authorization}/`) || path.startsWith(PROVIDER_ROUTES.end_session);
}

/** Shows a header value in a description (RFC 6749 §5.2's characters, at most 60). */
function shownHeader(value: string): string {
  return value.replace(/[^\x20-\x21\x23-\x5B\x5D-\x7E]/g, '?').slice(0, 60);
}

/**
 * Reads a form body (at most `limitBytes`, else 413), refuses one that is not UTF-8 or whose percent-encoding is
 * malformed ({@link encodingDefect}), keeps its text in {@link providerForm} and replays the bytes for
 * oidc-provider's own reader. A body a host parser's raw text was replayed as (lib/http/host-body.ts) is checked in
 * place, left to be replayed; one a host parser left only as `req.body` is checked when it is text.
 */
async function readForm(ctx: Context, next: Next, limitBytes: number, refuse: RefuseInput, page: boolean) {
  const req = ctx.req as IncomingMessage & { body?: unknown };
  let text: string | undefined;
  const replayed = replayedBody(req);
  if (replayed || req.readable) {
    const bytes = replayed ?? (await readWholeBody(req, limitBytes));
    if (bytes === 'closed') return undefined;
    if (bytes === 'too large' || bytes.length > limitBytes) return refuseLargeBody(ctx, limitBytes);
    text = strictUtf8(bytes);
    if (text === undefined) {
      return refuse(ctx, 400, `The form body is not UTF-8 (${FORM_TYPE} bodies are UTF-8).`, page);
    }
    if (!replayed) replayBody(req, bytes);
  } else if (typeof req.body === 'string') {
    text = req.body;
  }
  if (text !== undefined) {
    const defect = encodingDefect(text, 'form body');
    if (defect) return refuse(ctx, 400, defect, page);
    providerForm.set(req, text);
  }
  return next();
}

/**
 * The checks of every request to a provider endpoint before oidc-provider reads it, in this order (one place for
 * every endpoint, standalone or in a host app):
 * 1. a method the endpoint does not answer: `405` with `Allow` (`answeredMethod`, `methods` gives the endpoint's set);
 * 2. a malformed query string ({@link encodingDefect}): `400 invalid_request` naming the defect;
 * 3. a body with a Content-Encoding: `415` (`refuseEncodedBody`);
 * 4. a POST to a {@link FORM_ENDPOINTS} endpoint without `Content-Type: application/x-www-form-urlencoded`:
 *    `400 invalid_request` naming the missing or wrong type (oidc-provider took a body without one as empty, and
 *    answered "no client authentication mechanism provided" at /token);
 * 5. a body over `limitBytes`: `413` (`limitProviderBody`); a form body that is not UTF-8 or has a malformed
 *    percent-encoding: `400 invalid_request` naming the defect (`readForm`).
 * @param refuse writes the 400 answers (see {@link RefuseInput}). Default: JSON.
 */
export function providerInput(
  methods: (ctx: Context) => ReadonlySet<string> | undefined,
  limitBytes: number,
  refuse: RefuseInput = refuseAsJson,
) {
  const limitBody = limitProviderBody(limitBytes);
  return function checkProviderInput(ctx: Context, next: Next): unknown {
    const allowed = methods(ctx);
    if (allowed && answeredMethod(ctx, allowed)) return undefined;
    const page = visitedByBrowser(ctx.path);
    const queryDefect = encodingDefect(ctx.querystring, 'query string');
    if (queryDefect) return refuse(ctx, 400, queryDefect, page);
    const headers = ctx.req.headers;
    const hasBody = headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined;
    if (hasBody && encodedBody(ctx)) return refuseEncodedBody(ctx);
    const isForm = ctx.request.type === FORM_TYPE;
    const form = ctx.method === 'POST' ? FORM_ENDPOINTS.get(ctx.path) : undefined;
    const nonEmpty = (ctx.request.length ?? 0) > 0 || headers['transfer-encoding'] !== undefined;
    if (form && !isForm && (form.required || nonEmpty)) {
      const type = ctx.get('content-type');
      const given = type ? `its Content-Type is '${shownHeader(type)}'` : 'it has no Content-Type';
      return refuse(ctx, 400, `POST ${ctx.path} takes an ${FORM_TYPE} body (${form.see}); ${given}.`, page);
    }
    if (!hasBody) return next();
    return limitBody(ctx, isForm && ctx.method === 'POST' ? () => readForm(ctx, next, limitBytes, refuse, page) : next);
  } as Middleware;
}
