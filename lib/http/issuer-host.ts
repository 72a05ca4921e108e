import type { IncomingMessage } from 'node:http';
import type { Context, Next } from 'koa';
import { isHostAndPort } from '../core/host-syntax.js';
import { writeError as refuse } from './error-handler.js';

/** `Strict-Transport-Security` sent with every response when the issuer is https (RFC 6797 §6.1): one year. */
export const HSTS_VALUE = 'max-age=31536000';

/** How requests are tied to the configured issuer (see {@link issuerHostGuard}). */
export interface IssuerHostOptions {
  /** The configured issuer URL; every URL the server emits or compares derives from it. */
  issuer: string;
  /** Further `host[:port]` values accepted in `Host` (`allowedHosts`). URLs still name the issuer's host. */
  allowedHosts: readonly string[];
  /** Koa's `proxy`: the host checked is `X-Forwarded-Host` when present, the protocol `X-Forwarded-Proto`. */
  proxy: boolean;
  /**
   * With `proxy`: how many proxies in front append to the forwarded headers (`proxyHops`, Koa's `maxIpsCount`);
   * the entry this many from the right of `X-Forwarded-Host` / `X-Forwarded-Proto` is read. @default 1
   */
  proxyHops?: number;
  /** `NODE_ENV=production`: with an https issuer, requests that arrive over plain http are refused. */
  production: boolean;
}

/** `host[:port]` as the issuer's scheme spells it (default port dropped, lower case), or undefined if malformed. */
function normalizeHost(value: string, protocol: string): string | undefined {
  if (!isHostAndPort(value)) return undefined;
  try {
    return new URL(`${protocol}//${value}`).host.replace(/\.(?=$|:)/, '');
  } catch {
    return undefined;
  }
}

function firstValue(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return undefined;
  // The usual single value (`127.0.0.1:3000`) is taken as it is: no list to split, no whitespace to trim.
  const comma = value.indexOf(',');
  const first = comma === -1 ? value : value.slice(0, comma);
  return (/^\s|\s$/.test(first) ? first.trim() : first) || undefined;
}

/**
 * The entry of a forwarded header (`X-Forwarded-Host`, `X-Forwarded-Proto`) that the trusted proxies wrote: `hops`
 * from the right of its comma-separated list, the rule Koa's `maxIpsCount` applies to `X-Forwarded-For`; the
 * left-most when the list is shorter. Entries further left came from the client: a proxy that appends keeps them.
 */
function forwardedValue(header: string | string[] | undefined, hops: number): string | undefined {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value === undefined || !value.includes(',')) return firstValue(value);
  const entries = value.split(',');
  return entries[Math.max(0, entries.length - hops)]!.trim() || undefined;
}

/**
 * The host a request names: `X-Forwarded-Host` behind a trusted proxy, else `:authority`/`Host` as sent. `Host` holds
 * one value (RFC 9110 §7.2), not a list: `127.0.0.1:3000, evil.example` is malformed, never its first entry.
 */
function requestedHost(req: IncomingMessage, proxy: boolean, hops: number): string | undefined {
  const forwarded = proxy ? forwardedValue(req.headers['x-forwarded-host'], hops) : undefined;
  return forwarded ?? ((req.headers[':authority'] as string | undefined) || req.headers.host || undefined);
}

/**
 * Whether the request has more than one `Host` field line, which RFC 9110 §7.2 makes a bad request. Node keeps the
 * first in `req.headers.host` and drops the others, so only the raw header list shows them.
 */
function repeatsHost(rawHeaders: readonly string[]): boolean {
  let lines = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host' && ++lines > 1) return true;
  }
  return false;
}

/**
 * Pins a Koa request's `protocol`, `host`, `hostname`, `origin`, `href`, `URL` and `secure` to the issuer, so
 * that everything built from them (oidc-provider's `urlFor`: discovery, registration_client_uri, DPoP `htu`,
 * redirects to its own pages; cookies' `Secure` flag) names the issuer, never what the client sent in `Host` or
 * `X-Forwarded-*`. The client IP (`ctx.ip`) is untouched. `base` is what `href` puts before `originalUrl`: the
 * issuer's origin, or the origin and the issuer's path for an app that sees paths under it (oidc-provider's).
 */
export function pinRequestToIssuer(request: object, issuer: URL, base = issuer.origin): void {
  const protocol = issuer.protocol.slice(0, -1);
  Object.defineProperties(request, {
    protocol: { value: protocol, configurable: true },
    secure: { value: protocol === 'https', configurable: true },
    host: { value: issuer.host, configurable: true },
    hostname: { value: issuer.hostname, configurable: true },
    origin: { value: issuer.origin, configurable: true },
    href: {
      get(this: { originalUrl: string }) {
        return base + this.originalUrl;
      },
      configurable: true,
    },
    URL: {
      get(this: { originalUrl: string }) {
        return new URL(base + this.originalUrl);
      },
      configurable: true,
    },
  });
}

/** Koa apps whose request prototype is pinned (their contexts need no per-request pinning). */
const pinnedApps = new WeakSet<object>();

/**
 * Pins a Koa app's request prototype (`app.request`, from which every context's request is created) to the
 * issuer: once, at start-up, so no request pays for it. Used for oidc-provider's own Koa app (it creates several
 * contexts per request, e.g. for cookies and `interactionResult`) and for Portcullis' standalone app.
 * `underIssuerPath`: the app's requests carry paths under the issuer's path (the route table strips it before
 * oidc-provider's app sees them), so `href` names the issuer's path before them.
 */
export function pinAppToIssuer(app: { request: object }, issuer: string, { underIssuerPath = false } = {}): void {
  const url = new URL(issuer);
  pinRequestToIssuer(app.request, url, underIssuerPath ? url.origin + url.pathname.replace(/\/$/, '') : url.origin);
  pinnedApps.add(app);
}

/** The protocol a request arrived over: TLS socket, or with `proxy` the proxies' entry of `X-Forwarded-Proto`. */
function arrivalProtocol(req: IncomingMessage, proxy: boolean, hops: number): string {
  if ((req.socket as { encrypted?: boolean }).encrypted) return 'https';
  if (!proxy) return 'http';
  return forwardedValue(req.headers['x-forwarded-proto'], hops)?.toLowerCase() ?? 'http';
}

/** The fix named when an https issuer sees plain http (docs/guides/production.md, "TLS and proxy"). */
export const PLAIN_HTTP_DESCRIPTION =
  'This server is configured with an https issuer but this request arrived over plain http. ' +
  'If a TLS-terminating proxy or load balancer is in front of it, set the option `proxy: true` ' +
  '(PORTCULLIS_PROXY=true for the standalone server) so that X-Forwarded-Proto is trusted; otherwise connect ' +
  'over https.';

/**
 * Ties every request Portcullis serves to its configured issuer (RFC 9110 §7.4, RFC 9449 §11.1):
 * - a request-target in absolute form (`GET http://host/path`) must name the issuer's origin;
 * - `Host` (or, with `proxy: true`, the proxies' entry of `X-Forwarded-Host`: `proxyHops` from the right) must
 *   be the issuer's host or one of `allowedHosts`, else `421 Misdirected Request` with `invalid_request`; a
 *   malformed or empty Host (a list of values too) or more than one Host line gets `400 invalid_request`;
 * - with an https issuer in production, a request that arrives over plain http (TLS socket, or with
 *   `proxy: true` the proxies' entry of `X-Forwarded-Proto`) gets `400 invalid_request` naming `proxy` as the fix;
 * - with an https issuer, `Strict-Transport-Security` is set on every response;
 * - the request's URL members are then pinned to the issuer ({@link pinRequestToIssuer}).
 *
 * The route table (lib/http/routes.ts) places it on Portcullis' own routes only: a host app mounting the
 * middleware keeps its own Host policy for its paths, and health probes are served under any Host and protocol.
 */
export function issuerHostGuard(options: IssuerHostOptions) {
  const issuer = new URL(options.issuer);
  const https = issuer.protocol === 'https:';
  const allowed = new Set([
    issuer.host,
    ...options.allowedHosts.map((h) => normalizeHost(h, issuer.protocol) ?? h.toLowerCase()),
  ]);
  // Almost every request spells its Host exactly like this; only other spellings are parsed.
  const exact = new Set([issuer.host, ...options.allowedHosts]);
  const hops = options.proxyHops ?? 1;

  // Not async: every check is synchronous, so a passing request costs no extra promise.
  return function requireIssuerHost(ctx: Context, next: Next) {
    const target = ctx.req.url ?? '/';
    if (!target.startsWith('/')) {
      // Absolute-form request-target (RFC 9112 §3.2.2): Koa and oidc-provider would build URLs from it.
      const absolute = URL.canParse(target) ? new URL(target) : undefined;
      // RFC 9110 §4.2.4: user information in an http(s) URI is an error (it disguises the authority), as in Host.
      if (absolute && (absolute.username || absolute.password))
        return refuse(ctx, 400, 'invalid_request', 'The request-target is malformed: it names user information.');
      if (!absolute || absolute.origin !== issuer.origin) {
        return refuse(ctx, 421, 'invalid_request', `This server only answers for ${issuer.origin}.`);
      }
      ctx.req.url = `${absolute.pathname}${absolute.search}`;
      // The path the client named (the route table may have set `ctx.path` to the part under the issuer's path).
      const original = URL.canParse(ctx.originalUrl) ? new URL(ctx.originalUrl) : absolute;
      ctx.originalUrl = `${original.pathname}${original.search}`;
      ctx.request.originalUrl = ctx.originalUrl;
    }
    if (repeatsHost(ctx.req.rawHeaders))
      return refuse(ctx, 400, 'invalid_request', 'The request has more than one Host header.');
    // An http(s) authority is never empty (RFC 9110 §4.2.1), so an empty Host is invalid: 400 (RFC 9112 §3.2), not
    // the 421 of a Host that names another server. Without any Host (HTTP/1.0) no host was named: 421 below.
    if (ctx.req.headers.host === '')
      return refuse(ctx, 400, 'invalid_request', 'The Host header is empty: it must name this server.');
    const raw = requestedHost(ctx.req, options.proxy, hops);
    if (raw === undefined || !exact.has(raw)) {
      const host = raw === undefined ? undefined : normalizeHost(raw, issuer.protocol);
      if (raw !== undefined && host === undefined)
        return refuse(ctx, 400, 'invalid_request', 'The Host header is malformed.');
      if (host === undefined || !allowed.has(host)) {
        return refuse(
          ctx,
          421,
          'invalid_request',
          `This server only answers for ${issuer.host}; the request named another host. Operators: add the ` +
            `name to \`allowedHosts\` if it is yours.`,
        );
      }
    }
    if (https) {
      ctx.set('Strict-Transport-Security', HSTS_VALUE);
      if (options.production && arrivalProtocol(ctx.req, options.proxy, hops) !== 'https')
        return refuse(ctx, 400, 'invalid_request', PLAIN_HTTP_DESCRIPTION);
    }
    // Mounted in a host app: pin this request; our own app's requests are pinned through its prototype.
    if (!pinnedApps.has(ctx.app)) pinRequestToIssuer(ctx.request, issuer);
    return next();
  };
}
