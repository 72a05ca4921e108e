import { register } from '../helpers/registration.js';
import { startServer, type RunningServer } from '../helpers/server.js';

// Redirect URIs are stored and compared as sent, but the redirect is built with WHATWG `new URL()`: before this
// rule `https:///evil.example/cb` was registered as written and the code went to https://evil.example/cb, and
// `https://rp.example/a/../cb` sent it to /cb. Such forms are refused at registration.
let srv: RunningServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

const refused: Array<[string, Record<string, unknown>, string]> = [
  ['https without "//"', { redirect_uris: ['https:evil.example/cb'] }, 'must name its host right after "https://"'],
  ['https with one slash', { redirect_uris: ['https:/evil.example/cb'] }, 'must name its host right after "https://"'],
  [
    'https with an empty authority',
    { redirect_uris: ['https:///evil.example/cb'] },
    'must name its host right after "https://"',
  ],
  ['http loopback without "//"', { redirect_uris: ['http:localhost/cb'] }, 'must name its host right after "http://"'],
  ['a ".." segment', { redirect_uris: ['https://rp.example/a/../cb'] }, 'must not contain "." or ".." path segments'],
  ['a "." segment', { redirect_uris: ['https://rp.example/./cb'] }, 'must not contain "." or ".." path segments'],
  [
    'a percent-encoded ".." segment',
    { redirect_uris: ['https://rp.example/a/%2E%2e/cb'] },
    'must not contain "." or ".." path segments',
  ],
  [
    'a mixed ".%2e" segment before a query',
    { redirect_uris: ['https://rp.example/a/.%2e?x=1'] },
    'must not contain "." or ".." path segments',
  ],
  [
    'a native private-use scheme with ".."',
    { application_type: 'native', redirect_uris: ['com.example.app:/a/../cb'] },
    'must not contain "." or ".." path segments',
  ],
  [
    'a post-logout URI with an empty authority',
    { redirect_uris: ['https://rp.example/cb'], post_logout_redirect_uris: ['https:///evil.example/bye'] },
    'must name its host right after "https://"',
  ],
];

describe('redirect URIs a URL parser would read as another host or path (RFC 3986 §5.2.4, RFC 9110 §4.2)', () => {
  test.each(refused)('%s is refused', async (_name, metadata, description) => {
    const res = await register(srv.issuer, metadata);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(
      metadata.post_logout_redirect_uris ? 'invalid_client_metadata' : 'invalid_redirect_uri',
    );
    expect(res.body.error_description).toContain(description);
  });

  test.each([
    ['dots inside a segment', 'https://rp.example/a..b/.well-known/cb.'],
    ['a ".." in the query', 'https://rp.example/cb?next=../x'],
    ['a native private-use scheme', 'com.example.app:/cb'],
  ])('%s is accepted and comes back as sent', async (_name, uri) => {
    const res = await register(srv.issuer, {
      application_type: uri.startsWith('com.') ? 'native' : 'web',
      redirect_uris: [uri],
    });
    expect(res.status).toBe(201);
    expect(res.body.redirect_uris).toEqual([uri]);
  });
});

// RFC 8252 §7.3 allows plain http for the loopback literals 127.0.0.1 and [::1] (and this server also localhost).
// WHATWG `new URL()` rewrites other spellings of an address: before this rule `http://127.1/cb`,
// `http://0x7f.0.0.1/cb` and `http://2130706433/cb` passed as loopback (their parsed host is 127.0.0.1) while
// `http://[::ffff:127.0.0.1]/cb` and `http://127.0.0.2/cb` did not. A host written otherwise than the parser
// reads it is now refused as non-canonical, one row per spelling, for web and native clients and on https too.
const SPELLING = 'writes its host as';
const spellings: Array<[string, Record<string, unknown>, string]> = [
  [
    'short IPv4 127.1',
    { redirect_uris: ['http://127.1/cb'] },
    `${SPELLING} "127.1", which a URL parser reads as 127.0.0.1; write the host as 127.0.0.1`,
  ],
  [
    'hex IPv4 0x7f.0.0.1',
    { redirect_uris: ['http://0x7f.0.0.1/cb'] },
    `${SPELLING} "0x7f.0.0.1", which a URL parser reads as 127.0.0.1`,
  ],
  [
    'octal IPv4 0177.0.0.1',
    { redirect_uris: ['http://0177.0.0.1:8080/cb'] },
    `${SPELLING} "0177.0.0.1", which a URL parser reads as 127.0.0.1`,
  ],
  [
    'decimal IPv4 2130706433',
    { redirect_uris: ['http://2130706433/cb'] },
    `${SPELLING} "2130706433", which a URL parser reads as 127.0.0.1`,
  ],
  [
    'IPv4-mapped IPv6 [::ffff:127.0.0.1]',
    { redirect_uris: ['http://[::ffff:127.0.0.1]/cb'] },
    `${SPELLING} "[::ffff:127.0.0.1]", which a URL parser reads as [::ffff:7f00:1]`,
  ],
  [
    'uncompressed IPv6 loopback',
    { redirect_uris: ['http://[0:0:0:0:0:0:0:1]/cb'] },
    `${SPELLING} "[0:0:0:0:0:0:0:1]", which a URL parser reads as [::1]`,
  ],
  [
    'a native client with 127.1',
    { application_type: 'native', redirect_uris: ['http://127.1:5000/cb'] },
    `${SPELLING} "127.1", which a URL parser reads as 127.0.0.1`,
  ],
  [
    'https with a decimal address',
    { redirect_uris: ['https://2130706433/cb'] },
    `${SPELLING} "2130706433", which a URL parser reads as 127.0.0.1`,
  ],
  [
    'a percent-encoded host name',
    { redirect_uris: ['https://rp%2Eexample/cb'] },
    `${SPELLING} "rp%2eexample", which a URL parser reads as rp.example`,
  ],
  [
    'a post-logout URI with 127.1',
    { redirect_uris: ['http://127.0.0.1/cb'], post_logout_redirect_uris: ['http://127.1/bye'] },
    `${SPELLING} "127.1"`,
  ],
];

describe('loopback and other hosts written otherwise than a URL parser reads them (RFC 8252 §7.3)', () => {
  test.each(spellings)('%s is refused as non-canonical', async (_name, metadata, description) => {
    const res = await register(srv.issuer, metadata);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(
      metadata.post_logout_redirect_uris ? 'invalid_client_metadata' : 'invalid_redirect_uri',
    );
    expect(res.body.error_description).toContain(description);
  });

  test.each([
    ['127.0.0.2 (not the loopback literal RFC 8252 names)', 'http://127.0.0.2/cb'],
    ["IPv4-mapped loopback in the parser's own form", 'http://[::ffff:7f00:1]/cb'],
  ])('%s stays refused as plain http off loopback', async (_name, uri) => {
    const res = await register(srv.issuer, { redirect_uris: [uri] });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_redirect_uri');
    expect(res.body.error_description).toContain('must use https (plain http is only for loopback hosts)');
  });

  test.each([
    ['127.0.0.1', 'web', 'http://127.0.0.1:8080/cb'],
    ['[::1]', 'native', 'http://[::1]/cb'],
    ['localhost in capitals (host names are case-insensitive)', 'web', 'http://LOCALHOST:8080/cb'],
    ['an upper-case https host name', 'web', 'https://RP.Example/cb'],
  ])('%s is accepted and comes back as sent', async (_name, type, uri) => {
    const res = await register(srv.issuer, { application_type: type, redirect_uris: [uri] });
    expect(res.status).toBe(201);
    expect(res.body.redirect_uris).toEqual([uri]);
  });
});

// A port written otherwise than a URL parser writes it: the parser drops a default port (`:443` on https, `:80` on
// http, also `:0443` and an empty `:`), so the browser lands on `https://rp.example/cb` while `https://rp.example:443/cb`
// was registered. Exact matching then fails the relying party whichever spelling it sends: the registered one at
// the authorization endpoint and the callback URL's at the code exchange (openid-client takes it from there) gets
// invalid_grant; the other gets invalid_redirect_uri. Before this rule each row was registered (201).
const PORT = 'which a URL parser drops';
const ports: Array<[string, Record<string, unknown>, string]> = [
  [
    'https with its default port :443',
    { redirect_uris: ['https://rp.example:443/cb'] },
    `writes the port ":443", ${PORT} (the default port of https): the browser lands on https://rp.example/cb, and a relying party that takes redirect_uri from the callback URL then sends that spelling, which exact matching refuses; write https://rp.example/cb`,
  ],
  [
    'https with :0443',
    { redirect_uris: ['https://rp.example:0443/cb?x=1'] },
    `writes the port ":0443", ${PORT} (the default port of https): the browser lands on https://rp.example/cb?x=1`,
  ],
  [
    'https with an empty port',
    { redirect_uris: ['https://rp.example:/cb'] },
    `writes the port ":", ${PORT} (an empty port): the browser lands on https://rp.example/cb`,
  ],
  [
    'http loopback with its default port :80',
    { redirect_uris: ['http://localhost:80/cb'] },
    `writes the port ":80", ${PORT} (the default port of http): the browser lands on http://localhost/cb`,
  ],
  [
    'a native IPv6 loopback with :80',
    { application_type: 'native', redirect_uris: ['http://[::1]:80/cb'] },
    `writes the port ":80", ${PORT} (the default port of http): the browser lands on http://[::1]/cb`,
  ],
  [
    'a port with a leading zero',
    { redirect_uris: ['https://rp.example:08443/cb'] },
    'writes its port as ":08443", which a URL parser reads as 8443; write the port as 8443',
  ],
  [
    'a post-logout URI with :443',
    { redirect_uris: ['https://rp.example/cb'], post_logout_redirect_uris: ['https://rp.example:443/bye'] },
    `writes the port ":443", ${PORT} (the default port of https): the browser lands on https://rp.example/bye`,
  ],
];

describe('ports written otherwise than a URL parser writes them (a default port is dropped)', () => {
  test.each(ports)('%s is refused', async (_name, metadata, description) => {
    const res = await register(srv.issuer, metadata);
    expect(res.status).toBe(400);
    const member = metadata.post_logout_redirect_uris ? 'post_logout_redirect_uris' : 'redirect_uris';
    expect(res.body.error).toBe(member === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata');
    const uri = (metadata[member] as string[])[0];
    expect(res.body.error_description).toContain(`${member} entry ${JSON.stringify(uri)} ${description}`);
  });

  test.each([
    ['https on port 80 (not its default)', 'web', 'https://rp.example:80/cb'],
    ['https on port 8443', 'web', 'https://rp.example:8443/cb'],
    ['a native IPv6 loopback on port 8080', 'native', 'http://[::1]:8080/cb'],
  ])('%s is accepted and comes back as sent', async (_name, type, uri) => {
    const res = await register(srv.issuer, { application_type: type, redirect_uris: [uri] });
    expect(res.status).toBe(201);
    expect(res.body.redirect_uris).toEqual([uri]);
  });
});
