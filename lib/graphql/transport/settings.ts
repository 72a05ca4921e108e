import type { Middleware } from 'koa';
import type { CsrfGuard } from '../../http/csrf.js';
import type { GraphqlRejectHook } from '../rejections.js';

/** What the transport steps read: the options of `graphqlTransportGuard` resolved once, at start-up. */
export interface TransportSettings {
  /** Path of the endpoint; the form transport's CSRF token is served at `csrfTokenPath`. */
  path: string;
  csrfTokenPath: string;
  allowGet: boolean;
  allowForm: boolean;
  /** Operations allowed in one JSON array; 0 refuses arrays. */
  maxBatch: number;
  /** Browser origins allowed by CORS. */
  origins: ReadonlySet<string>;
  /** The `Allow` header of a 405: `POST`, or `GET, POST`. */
  allow: string;
  /** CSRF guard of the form transport; set whenever `allowForm` is. */
  csrf: CsrfGuard | undefined;
  /** The body parser (`@koa/bodyparser`) for the enabled body types, with the endpoint's limits. */
  parse: Middleware;
  /** `graphql.onReject`, set on each request for the refusals written later (lib/graphql/rejections.ts). */
  onReject: GraphqlRejectHook | undefined;
}

/** The request's transport once its method and content type are judged. */
export type Transport = 'get' | 'json' | 'form';
