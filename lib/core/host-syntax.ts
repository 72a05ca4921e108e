/**
 * `host[:port]` as a `Host` header carries it (RFC 9110 §7.2): a reg-name or IPv4 address, or a bracketed IPv6
 * literal, then an optional port. Userinfo, a scheme, a path, a pattern (`*.example.com`) and whitespace are
 * malformed, not another spelling of a host. Checked on each request's `Host` (lib/http/issuer-host.ts) and on
 * each `allowedHosts` entry at start-up (lib/config/load.ts), so both read a host the same way.
 */
const LABEL = /[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?/.source;
const HOST_SYNTAX = new RegExp(`^(?:${LABEL}(?:\\.${LABEL})*\\.?|\\[[0-9a-f:.]+\\])(?::\\d{1,5})?$`, 'i');

/** Whether `value` is written as `host[:port]` ({@link HOST_SYNTAX}). */
export function isHostAndPort(value: string): boolean {
  return HOST_SYNTAX.test(value);
}
