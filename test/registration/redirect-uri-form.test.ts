import { register } from '../helpers/registration.js';
import { startServer, type RunningServer } from '../helpers/server.js';

// Redirect URIs are stored and compared as sent, but the redirect is built with WHATWG `new URL()`: before this
// rule `https:///evil.example/cb` was registered as written and the code went to https://evil.example/cb, and
// `https://rp.example/a/../cb` sent it to /cb. Such forms are refused at registration.
let srv: RunningServer;
beforeAll(async () => { srv = await startServer(); });
afterAll(async () => { await srv.close(); });

const refused: Array<[string, Record<string, unknown>, string]> = [
  ['https without "//"', { redirect_uris: ['https:evil.example/cb'] }, 'must name its host right after "https://"'],
  ['https with one slash', { redirect_uris: ['https:/evil.example/cb'] }, 'must name its host right after "https://"'],
  ['https with an empty authority', { redirect_uris: ['https:///evil.example/cb'] }, 'must name its host right after "https://"'],
  ['http loopback without "//"', { redirect_uris: ['http:localhost/cb'] }, 'must name its host right after "http://"'],
  ['a ".." segment', { redirect_uris: ['https://rp.example/a/../cb'] }, 'must not contain "." or ".." path segments'],
  ['a "." segment', { redirect_uris: ['https://rp.example/./cb'] }, 'must not contain "." or ".." path segments'],
  ['a percent-encoded ".." segment', { redirect_uris: ['https://rp.example/a/%2E%2e/cb'] }, 'must not contain "." or ".." path segments'],
  ['a mixed ".%2e" segment before a query', { redirect_uris: ['https://rp.example/a/.%2e?x=1'] }, 'must not contain "." or ".." path segments'],
  ['a native private-use scheme with ".."', { application_type: 'native', redirect_uris: ['com.example.app:/a/../cb'] }, 'must not contain "." or ".." path segments'],
  ['a post-logout URI with an empty authority', { redirect_uris: ['https://rp.example/cb'], post_logout_redirect_uris: ['https:///evil.example/bye'] }, 'must name its host right after "https://"'],
];

describe('redirect URIs a URL parser would read as another host or path (RFC 3986 §5.2.4, RFC 9110 §4.2)', () => {
  test.each(refused)('%s is refused', async (_name, metadata, description) => {
    const res = await register(srv.issuer, metadata);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe((metadata.post_logout_redirect_uris ? 'invalid_client_metadata' : 'invalid_redirect_uri'));
    expect(res.body.error_description).toContain(description);
  });

  test.each([
    ['dots inside a segment', 'https://rp.example/a..b/.well-known/cb.'],
    ['a ".." in the query', 'https://rp.example/cb?next=../x'],
    ['a native private-use scheme', 'com.example.app:/cb'],
  ])('%s is accepted and comes back as sent', async (_name, uri) => {
    const res = await register(srv.issuer, { application_type: uri.startsWith('com.') ? 'native' : 'web', redirect_uris: [uri] });
    expect(res.status).toBe(201);
    expect(res.body.redirect_uris).toEqual([uri]);
  });
});
