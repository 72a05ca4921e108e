import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction, Socket } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { buildConnector, Dispatcher } from 'undici';
import { DEFAULTS } from '../../config/defaults.js';
import { PortcullisError } from '../core/errors.js';

/**
 * Options of the one outbound fetcher (SPEC rule 8). Every URL the server dereferences (a client's `jwks_uri`,
 * `sector_identifier_uri`, back-channel logout and notification endpoints) goes through it.
 */
export interface GuardedFetchOptions {
  /**
   * Origins (`scheme://host[:port]`) exempt from the https-only rule and from the address checks, e.g. an
   * internal JWKS host. Every other URL must be https and resolve to a public unicast address. Default: none
   * (`outboundFetch.allowedOrigins`).
   */
  allowedOrigins?: readonly string[];
  /** Time-out of one request, connection to last body byte, in milliseconds. Default: `outboundFetch.timeoutMs`. */
  timeoutMs?: number;
  /** Largest response body accepted, in bytes. Default: `outboundFetch.maxResponseBytes`. */
  maxResponseBytes?: number;
  /**
   * Resolver used to turn host names into addresses, shaped like `dns.lookup`. Its answers are checked inside
   * the connection step, so the address checked is the address connected to.
   * @default dns.lookup
   */
  lookup?: LookupFunction;
}

/** Why an outbound URL or address was refused. */
export type OutboundRefusal =
  | 'ERR_OUTBOUND_SCHEME'
  | 'ERR_OUTBOUND_ADDRESS'
  | 'ERR_OUTBOUND_URL'
  | 'ERR_OUTBOUND_RESPONSE';

/**
 * Thrown (or used as a fetch rejection cause) when the guarded fetcher refuses a URL, an address or a response;
 * `code` is the {@link OutboundRefusal}, `status` 500 (never shown to the client: its message names addresses).
 */
export class OutboundFetchError extends PortcullisError {
  declare readonly code: OutboundRefusal;

  constructor(code: OutboundRefusal, message: string, options?: ErrorOptions) {
    super(code, message, options);
  }
}

/**
 * IANA's global unicast space (RFC 4291 §2.4, IANA IPv6 Address Space registry): every public IPv6 address is in it.
 */
const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];

/**
 * IPv6 text in the WHATWG URL form (hex groups, no zone): `::127.0.0.1`, as libuv prints an IPv4-compatible
 * address in DNS answers and `socket.remoteAddress`, becomes `::7f00:1`. ipaddr.js 2.5 reads any dotted tail as
 * IPv4-mapped (`::ffff:…`), so the dotted form would otherwise be judged as the IPv4 address it carries.
 */
function canonicalAddress(address: string): string {
  if (!address.includes(':')) return address;
  const bare = address.split('%')[0]!;
  return URL.canParse(`http://[${bare}]`) ? new URL(`http://[${bare}]`).hostname.slice(1, -1) : address;
}

/**
 * Whether an IP address may be connected to: only global unicast (ipaddr.js `range() === 'unicast'`), and for
 * IPv6 only inside 2000::/3.
 * Refuses loopback, RFC 1918 private, link-local (169.254.0.0/16 with cloud metadata, fe80::/10), CGNAT
 * 100.64.0.0/10, multicast, broadcast, unspecified, reserved and documentation ranges, IPv6 ULA fc00::/7, and
 * the IPv6 forms that embed an IPv4 address other than IPv4-mapped: IPv4-compatible `::a.b.c.d` (::/96,
 * deprecated by RFC 4291 §2.5.5.1; ipaddr.js calls it unicast, hence the 2000::/3 rule), NAT64 64:ff9b::/96 and
 * 64:ff9b:1::/48, 6to4 2002::/16 and Teredo 2001::/32. Those last two are refused whole, whatever IPv4 address
 * they carry (public ones too): both are retired transition mechanisms (RFC 7526; Teredo is off by default in
 * current systems), and refusing the prefix needs no decoding of the embedded (for Teredo, inverted) address.
 * IPv4-mapped addresses (`::ffff:a.b.c.d`, how a dual-stack socket reports an IPv4 peer) are judged by the IPv4
 * address they carry.
 *
 * @example isPublicAddress('93.184.216.34') // true
 * @example isPublicAddress('::7f00:1') // false: IPv4-compatible 127.0.0.1
 */
export function isPublicAddress(address: string): boolean {
  const text = canonicalAddress(address);
  if (!ipaddr.isValid(text)) return false;
  const parsed = ipaddr.process(text);
  if (parsed.range() !== 'unicast') return false;
  return parsed.kind() === 'ipv4' || (parsed as ipaddr.IPv6).match(IPV6_GLOBAL_UNICAST);
}

function hostIsIpLiteral(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) ? bare : undefined;
}

function normalizedOrigins(origins: readonly string[]): Set<string> {
  return new Set(origins.map((o) => new URL(o).origin));
}

/**
 * Checks a URL before any connection: absolute, no credentials, not port 0, https (unless its origin is allow-listed),
 * and
 * a host that is neither a non-public IP literal (in any spelling: the WHATWG URL parser turns `2130706433`,
 * `0x7f.1` and `0177.0.0.1` into `127.0.0.1`) nor a `localhost` name. Host names are judged again, by their
 * resolved addresses, when connecting.
 *
 * @returns the parsed URL
 * @throws {OutboundFetchError} `ERR_OUTBOUND_URL`, `ERR_OUTBOUND_SCHEME` or `ERR_OUTBOUND_ADDRESS`.
 */
export function checkOutboundUrl(input: string | URL, allowedOrigins: readonly string[] = []): URL {
  let url: URL;
  try {
    url = new URL(String(input));
  } catch {
    throw new OutboundFetchError('ERR_OUTBOUND_URL', 'is not an absolute URL');
  }
  if (url.username || url.password) throw new OutboundFetchError('ERR_OUTBOUND_URL', 'must not contain credentials');
  // Port 0 (RFC 6335 §6: reserved) is never a destination; connecting to it only fails later, with a less clear error.
  if (url.port === '0')
    throw new OutboundFetchError(
      'ERR_OUTBOUND_URL',
      'names port 0, which is not a destination: no server listens on it (RFC 6335 §6 reserves it)',
    );
  if (normalizedOrigins(allowedOrigins).has(url.origin)) return url;
  if (url.protocol !== 'https:')
    throw new OutboundFetchError('ERR_OUTBOUND_SCHEME', `must use https (got ${url.protocol.replace(':', '')})`);
  const host = url.hostname.toLowerCase();
  const ip = hostIsIpLiteral(host);
  if (ip !== undefined && !isPublicAddress(ip)) {
    throw new OutboundFetchError('ERR_OUTBOUND_ADDRESS', `points to a non-public address (${ip})`);
  }
  if (host === 'localhost' || host.endsWith('.localhost') || host === 'localhost.') {
    throw new OutboundFetchError('ERR_OUTBOUND_ADDRESS', 'points to localhost');
  }
  return url;
}

/** A `dns.lookup`-shaped resolver that fails when any resolved address is not public. */
function publicOnlyLookup(resolve: LookupFunction): LookupFunction {
  return function guardedLookup(hostname, options, callback) {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as unknown as LookupAddress[];
      const refused = list.find((a) => !isPublicAddress(a.address));
      if (refused || list.length === 0) {
        const error = new OutboundFetchError(
          'ERR_OUTBOUND_ADDRESS',
          `${hostname} resolves to a non-public address${refused ? ` (${refused.address})` : ''}`,
        );
        return callback(error as unknown as NodeJS.ErrnoException, '', 0);
      }
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  } as LookupFunction;
}

/**
 * An undici connector that resolves through {@link publicOnlyLookup} and then checks the socket's actual remote
 * address before any byte is sent (IP-literal hosts skip DNS; the remote address check covers them too).
 */
function guardedConnector(
  build: Undici['buildConnector'],
  resolve: LookupFunction,
  timeoutMs: number,
): buildConnector.connector {
  const connect = build({ lookup: publicOnlyLookup(resolve), timeout: timeoutMs } as buildConnector.BuildOptions);
  return function connectPublicOnly(options, callback) {
    const ip = hostIsIpLiteral(options.hostname);
    if (ip !== undefined && !isPublicAddress(ip)) {
      callback(new OutboundFetchError('ERR_OUTBOUND_ADDRESS', `non-public address ${ip}`), null);
      return;
    }
    connect(options, (err, socket) => {
      if (err) return callback(err, null);
      const remote = (socket as Socket).remoteAddress;
      if (!remote || !isPublicAddress(remote)) {
        socket!.destroy();
        return callback(
          new OutboundFetchError('ERR_OUTBOUND_ADDRESS', `connected to a non-public address (${remote ?? 'unknown'})`),
          null,
        );
      }
      return callback(null, socket!);
    });
  };
}

async function readCapped(response: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    throw new OutboundFetchError('ERR_OUTBOUND_RESPONSE', `response larger than ${maxBytes} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > maxBytes) {
        await response.body.cancel().catch(() => undefined);
        throw new OutboundFetchError('ERR_OUTBOUND_RESPONSE', `response larger than ${maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
  }
  return Buffer.concat(chunks);
}

/**
 * undici's module: imported on a guarded fetcher's first request, not on import (~0.1 s of CPU that every process paid,
 * most never fetching anything).
 */
type Undici = typeof import('undici');
let undiciModule: Promise<Undici> | undefined;
const loadUndici = (): Promise<Undici> => (undiciModule ??= import('undici'));

/** A `fetch`-shaped function; the shape oidc-provider's `fetch` configuration hook expects. */
export type GuardedFetch = (url: string | URL, init?: RequestInit & { dispatcher?: unknown }) => Promise<Response>;

/**
 * Builds the guarded fetcher: https only unless the origin is allow-listed; non-public addresses refused both
 * for IP-literal hosts and for every address a host name resolves to, decided inside the connector (so a DNS
 * answer that changes between check and use cannot slip through) and re-checked on the connected socket;
 * redirects are never followed (a 3xx is an error); one time-out covers the whole exchange; bodies above
 * `maxResponseBytes` are refused. The caller's `dispatcher` is replaced.
 *
 * @throws (rejects) `TypeError('fetch failed')` with an {@link OutboundFetchError} `cause`, or an
 *   {@link OutboundFetchError} directly for refused URLs and oversized responses.
 * @example
 * ```ts
 * const fetch = createGuardedFetch({ timeoutMs: 2000 });
 * const res = await fetch('https://rp.example/jwks.json');
 * ```
 */
export function createGuardedFetch(options: GuardedFetchOptions = {}): GuardedFetch {
  const allowedOrigins = [...(options.allowedOrigins ?? [])];
  const allowed = normalizedOrigins(allowedOrigins);
  const timeoutMs = options.timeoutMs ?? DEFAULTS.outboundFetch.timeoutMs;
  const maxBytes = options.maxResponseBytes ?? DEFAULTS.outboundFetch.maxResponseBytes;
  let client: Promise<{ fetch: Undici['fetch']; guarded: Dispatcher; trusted: Dispatcher }> | undefined;
  const ready = () =>
    (client ??= loadUndici().then((undici) => ({
      fetch: undici.fetch,
      guarded: new undici.Agent({
        connect: guardedConnector(undici.buildConnector, options.lookup ?? (dnsLookup as LookupFunction), timeoutMs),
      }),
      trusted: new undici.Agent({ connect: { timeout: timeoutMs } }),
    })));

  return async function guardedFetch(input, init = {}) {
    const url = checkOutboundUrl(input, allowedOrigins);
    const signal = init.signal
      ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)])
      : AbortSignal.timeout(timeoutMs);
    const { fetch: undiciFetch, guarded, trusted } = await ready();
    const response = await undiciFetch(url, {
      method: init.method,
      headers: init.headers as never,
      body: init.body as never,
      signal,
      redirect: 'error',
      dispatcher: allowed.has(url.origin) ? trusted : guarded,
    });
    const body = await readCapped(response as unknown as Response, maxBytes);
    return new Response(response.status === 204 || response.status === 304 ? null : body, {
      status: response.status,
      statusText: response.statusText,
      headers: Object.fromEntries(response.headers.entries()),
    });
  };
}
