import type { LookupFunction } from 'node:net';
import {
  checkOutboundUrl,
  createGuardedFetch,
  isPublicAddress,
  OutboundFetchError,
} from '../../lib/http/guarded-fetch.js';
import { startCanary, startHttp, type Canary } from '../helpers/canary.js';

let canary: Canary;
beforeAll(async () => {
  canary = await startCanary();
});
afterAll(() => canary.close());

/** Resolves every name to the canary's address, as an attacker-controlled DNS zone would. */
const toLoopback: LookupFunction = ((
  _host: string,
  _opts: unknown,
  cb: (e: null, a: Array<{ address: string; family: number }>) => void,
) => cb(null, [{ address: '127.0.0.1', family: 4 }])) as unknown as LookupFunction;
/** One public and one private answer: refused as a whole. */
const mixed: LookupFunction = ((
  _host: string,
  _opts: unknown,
  cb: (e: null, a: Array<{ address: string; family: number }>) => void,
) =>
  cb(null, [
    { address: '93.184.216.34', family: 4 },
    { address: '127.0.0.1', family: 4 },
  ])) as unknown as LookupFunction;

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    const e = err as { code?: string; cause?: { code?: string; cause?: { code?: string } } };
    if (err instanceof OutboundFetchError) return e.code!;
    return e.cause?.code ?? e.cause?.cause?.code ?? String(err);
  }
  return 'fetched';
}

describe('guarded outbound fetch (SPEC rule 8)', () => {
  const p = () => canary.port;
  test.each([
    ['plain http to loopback', () => `http://127.0.0.1:${p()}/jwks`, 'ERR_OUTBOUND_SCHEME'],
    ['https loopback', () => `https://127.0.0.1:${p()}/jwks`, 'ERR_OUTBOUND_ADDRESS'],
    ['decimal spelling', () => `https://2130706433:${p()}/jwks`, 'ERR_OUTBOUND_ADDRESS'],
    ['hex spelling', () => `https://0x7f000001:${p()}/jwks`, 'ERR_OUTBOUND_ADDRESS'],
    ['octal spelling', () => `https://0177.0.0.1:${p()}/jwks`, 'ERR_OUTBOUND_ADDRESS'],
    ['short dotted hex', () => `https://0x7f.1:${p()}/jwks`, 'ERR_OUTBOUND_ADDRESS'],
    ['unspecified 0.0.0.0', () => `https://0.0.0.0:${p()}/jwks`, 'ERR_OUTBOUND_ADDRESS'],
    ['IPv6 loopback', () => `https://[::1]:${p()}/jwks`, 'ERR_OUTBOUND_ADDRESS'],
    ['IPv4-mapped IPv6 dotted', () => `https://[::ffff:127.0.0.1]:${p()}/jwks`, 'ERR_OUTBOUND_ADDRESS'],
    ['IPv4-mapped IPv6 hex', () => `https://[::ffff:7f00:1]:${p()}/jwks`, 'ERR_OUTBOUND_ADDRESS'],
    ['localhost name', () => `https://localhost:${p()}/jwks`, 'ERR_OUTBOUND_ADDRESS'],
    ['*.localhost name', () => `https://rp.localhost:${p()}/jwks`, 'ERR_OUTBOUND_ADDRESS'],
    ['cloud metadata', () => 'https://169.254.169.254/latest/meta-data/', 'ERR_OUTBOUND_ADDRESS'],
    ['RFC 1918 10/8', () => 'https://10.0.0.1/jwks', 'ERR_OUTBOUND_ADDRESS'],
    ['RFC 1918 172.16/12', () => 'https://172.16.5.4/jwks', 'ERR_OUTBOUND_ADDRESS'],
    ['RFC 1918 192.168/16', () => 'https://192.168.1.1/jwks', 'ERR_OUTBOUND_ADDRESS'],
    ['CGNAT 100.64/10', () => 'https://100.64.0.1/jwks', 'ERR_OUTBOUND_ADDRESS'],
    ['multicast', () => 'https://224.0.0.1/jwks', 'ERR_OUTBOUND_ADDRESS'],
    ['IPv6 ULA', () => 'https://[fd00::1]/jwks', 'ERR_OUTBOUND_ADDRESS'],
    ['IPv6 link-local', () => 'https://[fe80::1]/jwks', 'ERR_OUTBOUND_ADDRESS'],
    ['NAT64 embedding loopback', () => 'https://[64:ff9b::7f00:1]/jwks', 'ERR_OUTBOUND_ADDRESS'],
    ['NAT64 local-use prefix embedding RFC 1918', () => 'https://[64:ff9b:1::a00:1]/jwks', 'ERR_OUTBOUND_ADDRESS'],
    // IPv4-compatible ::/96 (RFC 4291 §2.5.5.1, deprecated): ipaddr.js calls it unicast; refused whole.
    ['IPv4-compatible IPv6 dotted, loopback', () => `https://[::127.0.0.1]:${p()}/jwks`, 'ERR_OUTBOUND_ADDRESS'],
    ['IPv4-compatible IPv6 hex, loopback', () => `https://[::7f00:1]:${p()}/jwks`, 'ERR_OUTBOUND_ADDRESS'],
    ['IPv4-compatible IPv6, RFC 1918', () => 'https://[::10.0.0.1]/jwks', 'ERR_OUTBOUND_ADDRESS'],
    ['IPv4-compatible IPv6, cloud metadata', () => 'https://[::a9fe:a9fe]/latest/meta-data/', 'ERR_OUTBOUND_ADDRESS'],
    ['IPv4-compatible IPv6, a public IPv4', () => 'https://[::8.8.8.8]/jwks', 'ERR_OUTBOUND_ADDRESS'],
    ['IPv6 outside 2000::/3 (unassigned)', () => 'https://[1::1]/jwks', 'ERR_OUTBOUND_ADDRESS'],
    // 6to4 and Teredo: refused whole, whatever IPv4 address they carry (see isPublicAddress).
    ['6to4 embedding loopback', () => 'https://[2002:7f00:1::1]/jwks', 'ERR_OUTBOUND_ADDRESS'],
    ['6to4 embedding RFC 1918', () => 'https://[2002:a00:1::1]/jwks', 'ERR_OUTBOUND_ADDRESS'],
    ['6to4 embedding a public IPv4', () => 'https://[2002:808:808::1]/jwks', 'ERR_OUTBOUND_ADDRESS'],
    [
      'Teredo with client 127.0.0.1 (inverted 80ff:fffe)',
      () => 'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/jwks',
      'ERR_OUTBOUND_ADDRESS',
    ],
    ['credentials in URL', () => `https://user:pw@rp.example:${p()}/jwks`, 'ERR_OUTBOUND_URL'],
    ['port 0 (RFC 6335 §6: reserved, no server listens on it)', () => 'https://rp.example:0/jwks', 'ERR_OUTBOUND_URL'],
    ['file scheme', () => 'file:///etc/passwd', 'ERR_OUTBOUND_SCHEME'],
  ])('%s is refused before any connection', async (_name, url, code) => {
    const before = canary.connections;
    const fetch = createGuardedFetch({ lookup: toLoopback });
    expect(await refusal(fetch(url()))).toBe(code);
    expect(canary.connections).toBe(before);
  });

  test.each([
    ['a host name resolving to loopback (DNS rebinding)', toLoopback],
    ['a host name with one public and one loopback answer', mixed],
  ])('%s is refused inside the connector, with no connection', async (_name, lookup) => {
    const before = canary.connections;
    const fetch = createGuardedFetch({ lookup });
    expect(await refusal(fetch(`https://attacker.example:${canary.port}/jwks`))).toBe('ERR_OUTBOUND_ADDRESS');
    expect(canary.connections).toBe(before);
  });

  test('the address classification accepts public unicast only', () => {
    expect(isPublicAddress('93.184.216.34')).toBe(true);
    expect(isPublicAddress('2606:4700::1111')).toBe(true);
    // How a dual-stack socket reports an IPv4 peer: judged by the IPv4 address.
    expect(isPublicAddress('::ffff:93.184.216.34')).toBe(true);
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '169.254.169.254',
      '100.100.1.1',
      '::1',
      '::ffff:10.0.0.1',
      'fc00::1',
      '255.255.255.255',
      'not-an-ip',
      // IPv4-compatible, as the URL parser writes it and as libuv prints it (DNS answers, socket.remoteAddress).
      '::7f00:1',
      '::127.0.0.1',
      '::a00:1',
      '::10.0.0.1',
      '::8.8.8.8',
      '1::1',
      '2002:808:808::1',
      '2001::1',
      'fe80::1%eth0',
    ]) {
      expect(isPublicAddress(a)).toBe(false);
    }
  });

  test('the static URL check names what is wrong', () => {
    expect(() => checkOutboundUrl('http://rp.example/jwks')).toThrow('must use https');
    expect(checkOutboundUrl('https://rp.example/jwks').hostname).toBe('rp.example');
    expect(checkOutboundUrl('http://127.0.0.1:1/x', ['http://127.0.0.1:1']).port).toBe('1');
  });

  describe('an allow-listed origin', () => {
    test('is fetched over http; a redirect is never followed', async () => {
      const redirector = await startHttp((req, res) => {
        if (req.url === '/ok') {
          res.setHeader('content-type', 'application/json');
          res.end('{"keys":[]}');
          return;
        }
        res.statusCode = 302;
        res.setHeader('location', `http://127.0.0.1:${canary.port}/jwks`);
        res.end();
      });
      try {
        const fetch = createGuardedFetch({ allowedOrigins: [redirector.origin] });
        const ok = await fetch(`${redirector.origin}/ok`);
        expect(ok.status).toBe(200);
        expect(await ok.json()).toEqual({ keys: [] });
        const before = canary.connections;
        await expect(fetch(`${redirector.origin}/moved`)).rejects.toThrow();
        expect(canary.connections).toBe(before);
        expect(redirector.requests).toBe(2);
      } finally {
        await redirector.close();
      }
    });

    test('a response above the size cap is refused', async () => {
      const big = await startHttp((_req, res) => {
        res.end('x'.repeat(4096));
      });
      const chunked = await startHttp((_req, res) => {
        res.write('x'.repeat(3000));
        res.end('y'.repeat(3000));
      });
      try {
        const fetch = createGuardedFetch({ allowedOrigins: [big.origin, chunked.origin], maxResponseBytes: 1024 });
        expect(await refusal(fetch(`${big.origin}/`))).toBe('ERR_OUTBOUND_RESPONSE');
        expect(await refusal(fetch(`${chunked.origin}/`))).toBe('ERR_OUTBOUND_RESPONSE');
      } finally {
        await big.close();
        await chunked.close();
      }
    });

    test('a server that never answers is cut off by the time-out', async () => {
      const silent = await startHttp(() => {
        /* never responds */
      });
      try {
        const fetch = createGuardedFetch({ allowedOrigins: [silent.origin], timeoutMs: 200 });
        await expect(fetch(`${silent.origin}/`)).rejects.toMatchObject({
          name: expect.stringMatching(/TimeoutError|AbortError/),
        });
      } finally {
        await silent.close();
      }
    });
  });
});
