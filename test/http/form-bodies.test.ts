import { gzipSync } from 'node:zlib';
import { TestBrowser } from '../helpers/browser.js';
import { startAuthorization, relyingParty } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * The pages' form bodies (sign-up, reset, login, account page): a body the server cannot read is the client's
 * mistake, answered 400 or 415 with our error (JSON or page), never a 500 or a stack trace. Before, a corrupt gzip
 * or br body reached the error handler as zlib's status-less error: 500 `server_error`.
 */

let srv: RunningServer;
let loginPath: string;
beforeAll(async () => {
  srv = await startServer();
  const rp = await relyingParty(srv.issuer);
  const page = await new TestBrowser(srv.issuer).go(String((await startAuthorization(rp)).url));
  loginPath = new URL(page.redirectedTo ?? page.url).pathname.replace(/\/?$/, '/login');
});
afterAll(() => srv.close());

const paths: Array<[string, () => string]> = [
  ['sign-up', () => '/account/signup'],
  ['reset request', () => '/account/reset'],
  ['account page password change', () => '/account/password'],
  ['login of a pending authorization', () => loginPath],
];
const bodies: Array<[string, string, string | Uint8Array, number]> = [
  ['gzip that is not gzip', 'gzip', 'email=a%40b.c', 400],
  ['br that is not br', 'br', 'email=a%40b.c', 400],
  ['deflate that is not deflate', 'deflate', 'email=a%40b.c', 400],
  ['a truncated gzip body', 'gzip', new Uint8Array(gzipSync('email=a%40b.c').subarray(0, 12)), 400],
  ['compress (not supported)', 'compress', 'email=a%40b.c', 415],
  ['gzip twice', 'gzip, gzip', new Uint8Array(gzipSync(gzipSync('email=a%40b.c'))), 415],
];

describe.each(paths)('%s', (_page, path) => {
  test.each(bodies)('%s: %i, our error, no stack trace', async (_name, encoding, body, status) => {
    for (const accept of ['application/json', 'text/html']) {
      const res = await fetch(`${srv.issuer}${path()}`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': encoding, accept },
      });
      const text = await res.text();
      expect({ accept, status: res.status, stack: /\n\s+at |server_error|incorrect header/.test(text) }).toEqual({
        accept,
        status,
        stack: false,
      });
      if (accept === 'application/json') expect(JSON.parse(text)).toMatchObject({ error: 'invalid_request' });
    }
  });
});
