import { ipLimitKey } from '../../lib/core/client-key.js';

/** The per-IP rate-limit key: IPv4 as is, IPv4-mapped IPv6 as IPv4, IPv6 by its /56 network. */
test.each([
  ['198.51.100.7', '198.51.100.7'],
  ['::ffff:198.51.100.7', '198.51.100.7'],
  ['2001:db8::1', '2001:db8::/56'],
  ['2001:db8:0:1::1', '2001:db8::/56'],
  ['2001:db8:0:ff:ffff:ffff:ffff:ffff', '2001:db8::/56'],
  ['2001:db8:0:100::1', '2001:db8:0:100::/56'],
  ['2001:DB8:1:23ab::1', '2001:db8:1:2300::/56'],
  ['::1', '::/56'],
  ['not-an-address', 'not-an-address'],
  ['fe80::1%eth0', 'fe80::/56'],
])('%s counts as %s', (ip, key) => {
  expect(ipLimitKey(ip)).toBe(key);
});
