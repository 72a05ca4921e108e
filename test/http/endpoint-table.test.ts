import { readFileSync } from 'node:fs';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * The README's endpoint table ("Running the server") lists every method a client may use at each endpoint; each one
 * listed must reach that endpoint (any answer but 404/405, which say the method or path is not served).
 */

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** `[method, path]` pairs of the table: cells like `` `GET /x` `` or `` `GET`/`POST /x` ``. */
function listedMethods(): Array<[string, string]> {
  const start = readme.indexOf('| endpoint | path |');
  const table = readme.slice(start, readme.indexOf('\n\n', start)).split('\n').slice(2);
  const pairs: Array<[string, string]> = [];
  for (const row of table) {
    const cell = row.split(' | ')[1] ?? '';
    for (const m of cell.matchAll(/((?:`[A-Z]+`\/)*)`([A-Z]+) (\/[^`\s]*)`/g)) {
      const methods = [...(m[1] ?? '').matchAll(/`([A-Z]+)`/g)].map((x) => x[1]!);
      for (const method of [...methods, m[2]!]) pairs.push([method, m[3]!]);
    }
  }
  return pairs;
}

let srv: RunningServer;
beforeAll(async () => { srv = await startServer(); });
afterAll(() => srv.close());

test('the table lists the endpoints', () => {
  expect(listedMethods()).toEqual(expect.arrayContaining([['GET', '/authorization'], ['POST', '/token'], ['GET', '/userinfo'], ['POST', '/userinfo'], ['GET', '/session/end']]));
});

test.each(listedMethods())('%s %s is served', async (method, path) => {
  const res = await fetch(`${srv.issuer}${path}`, {
    method,
    redirect: 'manual',
    ...(method === 'POST' ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=b' } : {}),
  });
  expect([404, 405]).not.toContain(res.status);
});
