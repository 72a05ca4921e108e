/**
 * The README's first account (issue 28: its production configuration had no account and sign-up off, so nobody could
 * sign in, and it did not say how to make one): the checklist's JSON file and the `portcullis.config.mjs` beside it,
 * as written, started with the README's line from the project directory. The line's variables are added to those
 * of a local start (an http issuer on this machine, memory storage, development), and the account signs in through
 * the login form to the configuration's `web` client.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { browse } from '../helpers/flow.js';
import { TestBrowser } from '../helpers/browser.js';
import { docPage, ROOT, runReadmeCommand, type ReadmeCommand } from '../helpers/readme-command.js';

const GUIDE = docPage('docs/guides/production.md');
const checklist = GUIDE.slice(GUIDE.indexOf('## Production checklist'));
const section = checklist.slice(checklist.indexOf('**The first account.**'));
const block = (fence: string, text: string) => {
  const start = text.indexOf(fence) + fence.length;
  return text.slice(start, text.indexOf('\n```', start));
};
const configJson = block('```json\n', checklist);
const configModule = block('```js\n', section);
const command = block('```sh\n', section);
const FILES = ['portcullis.config.json', 'portcullis.config.mjs', 'secrets'].map((f) => join(ROOT, f));

let run: ReadmeCommand | undefined;
beforeAll(async () => {
  run = await runReadmeCommand(
    command,
    FILES,
    () => {
      writeFileSync(FILES[0]!, configJson);
      writeFileSync(FILES[1]!, configModule);
      spawnSync(process.execPath, [join(ROOT, 'dist/lib/cli/main.js'), 'keys', '--out', 'secrets/jwks.json'], {
        cwd: ROOT,
      });
    },
    (port) => ({
      PORTCULLIS_ISSUER: `http://localhost:${port}`,
      PORTCULLIS_STORAGE: 'memory',
      REDIS_URL: '',
      PORTCULLIS_SIGNING_KEYS: '',
    }),
  );
}, 160_000);
afterAll(() => run?.stop());

test('the production configuration alone has no account and sign-up off; the section says how to add one', () => {
  const config = JSON.parse(configJson) as { accounts?: unknown[]; selfService?: { signup?: boolean } };
  expect([config.accounts, config.selfService?.signup]).toEqual([undefined, false]);
  expect(command).toMatch(
    /PORTCULLIS_ADMIN_EMAIL=\S+ PORTCULLIS_ADMIN_PASSWORD=\S+ npx portcullis start --config portcullis\.config\.mjs$/,
  );
});

test('started with the README line, the seeded account signs in through the login form', async () => {
  expect(run!.output()).toContain('Portcullis listening');
  const base = `http://localhost:${run!.port}`;
  const email = /PORTCULLIS_ADMIN_EMAIL=(\S+)/.exec(command)![1]!;
  const password = /PORTCULLIS_ADMIN_PASSWORD='([^']+)'/.exec(command)![1]!;
  const url = `${base}/authorization?${new URLSearchParams({
    client_id: 'web',
    response_type: 'code',
    scope: 'openid',
    redirect_uri: 'https://app.example.com/callback',
    state: 's',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  })}`;
  const { callback, loginPage } = await browse(new TestBrowser(base), url, { email, password });
  expect(loginPage).toBeDefined();
  expect(callback.origin + callback.pathname).toBe('https://app.example.com/callback');
  expect(callback.searchParams.get('code')).toMatch(/^[\w-]{20,}$/);
}, 60_000);
