import { createServer as createHttpServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer, type PortcullisServer } from '../../lib/index.js';
import { generateCookieKey } from '../../lib/oidc/keys.js';
import { testSigningKeys } from '../helpers/run-resources.js';
import { rawRequest } from '../helpers/raw-http.js';
import { freePort } from '../helpers/server.js';

/**
 * `X-Forwarded-Proto` and `X-Forwarded-Host` behind real reverse proxies (small ones started here), with the rule
 * `X-Forwarded-For` already follows: the entry `proxyHops` from the right is the one the proxies wrote; entries
 * further left came from the client. They decide two refusals of a production server with `proxy: true`: a
 * request that reached the first proxy over plain http (400 naming `proxy`) and one for another host (421).
 * Before, the left-most value was read, so behind a proxy that appends, a client's own `X-Forwarded-Proto: https`
 * passed the plain-http refusal and its own `X-Forwarded-Host: <issuer host>` passed the host check (a DNS
 * rebinding page can send both). What the server emits is not concerned: its URLs always name the issuer.
 */

type Mode = 'overwrite' | 'append';

/**
 * A reverse proxy in front of `upstream`: it sets `X-Forwarded-For`, `-Proto` (`proto`: how its client reached it;
 * `https` stands for a TLS listener) and `-Host` (the `Host` it received), replacing what came in (`overwrite`,
 * e.g. nginx `proxy_set_header X-Forwarded-Proto $scheme`) or adding its entry after it (`append`, e.g.
 * `$proxy_add_x_forwarded_for`-style chains). `Host` is passed on unchanged.
 */
async function forwardingProxy(
  upstream: string,
  mode: Mode,
  proto: 'http' | 'https',
): Promise<{ url: string; server: Server }> {
  const target = new URL(upstream);
  const server = createHttpServer((req, res) => {
    const headers: IncomingHttpHeaders = { ...req.headers };
    const set = (name: string, value: string) => {
      const before = headers[name];
      headers[name] = mode === 'append' && typeof before === 'string' ? `${before}, ${value}` : value;
    };
    set('x-forwarded-for', req.socket.remoteAddress ?? '');
    set('x-forwarded-proto', proto);
    set('x-forwarded-host', req.headers.host ?? '');
    const up = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** A production server on plain http with an https issuer, `proxy: true` and `proxyHops`. */
async function productionServer(proxyHops: number) {
  const port = await freePort();
  const issuer = `https://127.0.0.1:${port}`;
  const env = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  let server: PortcullisServer;
  try {
    server = await createServer({
      issuer,
      proxy: true,
      proxyHops,
      storage: { type: 'memory' },
      keys: { signing: await testSigningKeys(), cookies: [generateCookieKey()] },
      mfa: { encryptionKey: generateCookieKey() },
      clients: [
        {
          client_id: 'rp',
          client_secret: 'a-secret-that-is-long-enough-0123456789',
          redirect_uris: ['https://rp.example/cb'],
        },
      ],
    });
  } finally {
    process.env.NODE_ENV = env;
  }
  await server.listen(port, '127.0.0.1');
  return { server, issuer, base: `http://127.0.0.1:${port}`, host: `127.0.0.1:${port}` };
}

const ISSUER_HOST = '<issuer host>';

/**
 * Rows: the proxies from the client inwards (mode and the protocol the client used at the first one; inner ones
 * reach the next over plain http), `proxyHops`, `Host` and the forwarded headers the client writes itself, and
 * the expected answer to GET /.well-known/openid-configuration.
 */
type Row = [string, Array<[Mode, 'http' | 'https']>, number, { host: string; xfp?: string; xfh?: string }, number];
const ROWS: Row[] = [
  // A proxy that overwrites: whatever the client writes is replaced (passed before and after).
  ['overwriting proxy, TLS listener', [['overwrite', 'https']], 1, { host: ISSUER_HOST }, 200],
  ['overwriting proxy, plain-http listener', [['overwrite', 'http']], 1, { host: ISSUER_HOST }, 400],
  [
    'overwriting proxy, plain http, client writes X-Forwarded-Proto: https',
    [['overwrite', 'http']],
    1,
    { host: ISSUER_HOST, xfp: 'https' },
    400,
  ],
  [
    'overwriting proxy, Host of another site, client writes X-Forwarded-Host: <issuer>',
    [['overwrite', 'https']],
    1,
    { host: 'evil.example', xfh: ISSUER_HOST },
    421,
  ],
  // A proxy that appends: the client's own values stand in front of the proxy's.
  ['appending proxy, TLS listener, nothing from the client', [['append', 'https']], 1, { host: ISSUER_HOST }, 200],
  ['appending proxy, plain http, nothing from the client', [['append', 'http']], 1, { host: ISSUER_HOST }, 400],
  [
    'appending proxy, plain http, client writes X-Forwarded-Proto: https',
    [['append', 'http']],
    1,
    { host: ISSUER_HOST, xfp: 'https' },
    400,
  ],
  [
    'appending proxy, plain http, client writes X-Forwarded-Proto: https, https',
    [['append', 'http']],
    1,
    { host: ISSUER_HOST, xfp: 'https, https' },
    400,
  ],
  [
    'appending proxy, TLS listener, client writes X-Forwarded-Proto: http',
    [['append', 'https']],
    1,
    { host: ISSUER_HOST, xfp: 'http' },
    200,
  ],
  [
    'appending proxy, Host of another site, client writes X-Forwarded-Host: <issuer>',
    [['append', 'https']],
    1,
    { host: 'evil.example', xfh: ISSUER_HOST },
    421,
  ],
  [
    'appending proxy, issuer Host, client writes X-Forwarded-Host: evil.example',
    [['append', 'https']],
    1,
    { host: ISSUER_HOST, xfh: 'evil.example' },
    200,
  ],
  // Two appending proxies (a CDN terminating TLS, then a load balancer reached over http): proxyHops 2.
  [
    'two appending proxies, TLS at the first, proxyHops 2',
    [
      ['append', 'https'],
      ['append', 'http'],
    ],
    2,
    { host: ISSUER_HOST },
    200,
  ],
  [
    'two appending proxies, plain http at the first, client writes https, proxyHops 2',
    [
      ['append', 'http'],
      ['append', 'http'],
    ],
    2,
    { host: ISSUER_HOST, xfp: 'https' },
    400,
  ],
  [
    'two appending proxies, another Host, client writes X-Forwarded-Host: <issuer>, proxyHops 2',
    [
      ['append', 'https'],
      ['append', 'http'],
    ],
    2,
    { host: 'evil.example', xfh: ISSUER_HOST },
    421,
  ],
  // proxyHops 1 behind two proxies reads the second proxy's entry: the link between them was plain http.
  [
    'two appending proxies, TLS at the first, proxyHops 1 (too low)',
    [
      ['append', 'https'],
      ['append', 'http'],
    ],
    1,
    { host: ISSUER_HOST },
    400,
  ],
];

describe('X-Forwarded-Proto and X-Forwarded-Host take the entry proxyHops from the right', () => {
  const started: Array<{ close(): unknown }> = [];
  afterEach(async () => {
    for (const s of started.splice(0)) await s.close();
  });

  test.each(ROWS.map(([name, ...rest]): Row => [`${name} → ${rest[3]}`, ...rest]))(
    '%s',
    async (_name, chain, hops, client, status) => {
      const { server, issuer, base, host } = await productionServer(hops);
      started.push(server);
      let upstream = base;
      // Built from the inside out: the last proxy of the chain forwards to the server.
      for (let i = chain.length - 1; i >= 0; i--) {
        const [mode, proto] = chain[i]!;
        const proxy = await forwardingProxy(upstream, mode, i === 0 ? proto : 'http');
        started.push({ close: () => new Promise((resolve) => proxy.server.close(resolve)) });
        upstream = proxy.url;
      }
      const spell = (v: string) => v.replaceAll(ISSUER_HOST, host);
      const headers: Record<string, string> = { host: spell(client.host), accept: 'application/json' };
      if (client.xfp) headers['x-forwarded-proto'] = client.xfp;
      if (client.xfh) headers['x-forwarded-host'] = spell(client.xfh);
      const res = await rawRequest(upstream, '/.well-known/openid-configuration', { headers });
      expect(res.status).toBe(status);
      if (status === 200) {
        expect(res.json()).toMatchObject({ issuer, authorization_endpoint: `${issuer}/authorization` });
      } else if (status === 400) {
        expect(res.json()).toMatchObject({
          error: 'invalid_request',
          error_description: expect.stringContaining('proxy'),
        });
      } else {
        expect(res.json()).toMatchObject({
          error: 'invalid_request',
          error_description: expect.stringContaining('another host'),
        });
      }
    },
  );
});
