import ipaddr from 'ipaddr.js';

/**
 * Bits of an IPv6 client address that one per-IP rate-limit counter covers: a /56, the network an ISP commonly
 * hands one subscriber (RFC 6177 §3) and the default of express-rate-limit's `ipv6Subnet`. One host can use every
 * address of its /64 at will (SLAAC privacy addresses, RFC 8981), and a subscriber every /64 of its /56.
 */
export const IPV6_LIMIT_PREFIX = 56;

/**
 * The per-IP rate-limit key of a client address (`ctx.ip`, which honours `proxy`): an IPv4 address as it is (an
 * IPv4-mapped IPv6 address `::ffff:a.b.c.d` as its IPv4 address), an IPv6 address as its /{@link IPV6_LIMIT_PREFIX}
 * network (`2001:db8:0:ab00::/56`), so a client cannot reset its budget by picking another address of its own
 * network. Text that is no IP address (a proxy's odd `X-Forwarded-For` entry) is its own key.
 */
export function ipLimitKey(ip: string): string {
  if (!ip.includes(':')) return ip;
  const address = ipaddr.IPv6.isValid(ip) ? ipaddr.IPv6.parse(ip) : undefined;
  if (!address) return ip;
  if (address.isIPv4MappedAddress()) return address.toIPv4Address().toString();
  const parts = address.parts.slice();
  for (let i = 0; i < 8; i++) {
    const keep = Math.max(0, Math.min(16, IPV6_LIMIT_PREFIX - i * 16));
    parts[i] = keep === 0 ? 0 : parts[i]! & (0xffff << (16 - keep)) & 0xffff;
  }
  return `${new ipaddr.IPv6(parts).toString()}/${IPV6_LIMIT_PREFIX}`;
}
