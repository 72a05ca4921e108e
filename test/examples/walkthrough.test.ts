import { spawn } from 'node:child_process';
import { browse } from '../helpers/flow.js';
import { TestBrowser } from '../helpers/browser.js';
import { docPage, ROOT, runReadmeCommand, type ReadmeCommand } from '../helpers/readme-command.js';

/**
 * The walkthrough of docs/guides/getting-started.md as a new user follows it (issue 28): `npm start` in one terminal, then its two `sh`
 * blocks in one shell of another, signing in on the printed URL in between and pasting the code. The blocks run as
 * written but for the port (the suite cannot count on 3000 being free: `localhost:3000` becomes the server's port)
 * and the paste line (`CODE=paste-the-code-here` gets the code the sign-in returned).
 */

const GUIDE = docPage('docs/guides/getting-started.md');
const section = GUIDE.slice(GUIDE.indexOf('## Walkthrough'), GUIDE.indexOf('### Implicit flow'));
const blocks = [...section.matchAll(/```sh\n([\s\S]*?)\n```/g)].map((m) => m[1]!);

let server: ReadmeCommand | undefined;
beforeAll(async () => {
  server = await runReadmeCommand('npm start', []);
}, 160_000);
afterAll(() => server?.stop());

test('the walkthrough has the two blocks, and its second sets every variable it uses', () => {
  expect(blocks).toHaveLength(2);
  expect(blocks[1]).toContain('CODE=paste-the-code-here');
  const used = new Set([...blocks.join('\n').matchAll(/\$\{?([A-Z_]+)/g)].map((m) => m[1]));
  const set = new Set([...blocks.join('\n').matchAll(/^([A-Z_]+)=/gm)].map((m) => m[1]));
  expect([...used].filter((name) => !set.has(name))).toEqual([]);
});

test("run as written, step 4 gets alice's claims from /userinfo and the products from GraphQL", async () => {
  expect(server!.output()).toContain('Portcullis listening');
  const local = (block: string) => block.replaceAll('localhost:3000', `localhost:${server!.port}`);
  // Both blocks in one shell, as in one terminal; the shell waits for the code on its standard input.
  const script = `${local(blocks[0]!)}\nIFS= read -r PASTED\n${local(blocks[1]!).replace('CODE=paste-the-code-here', 'CODE="$PASTED"')}\n`;
  const shell = spawn('bash', ['-c', script], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  shell.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  shell.stderr.on('data', (c: Buffer) => {
    out += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => shell.on('close', resolve));
  const deadline = Date.now() + 20_000;
  while (!/^http:\/\/localhost:\d+\/authorization\?\S+$/m.test(out) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  const url = /^(http:\/\/localhost:\d+\/authorization\?\S+)$/m.exec(out)?.[1];
  expect(url).toBeDefined();
  const issuer = `http://localhost:${server!.port}`;
  const { callback } = await browse(new TestBrowser(issuer), url!, {
    email: 'alice@example.com',
    password: 'alice-demo-password',
  });
  expect(callback.origin + callback.pathname).toBe('http://localhost:8080/callback');
  shell.stdin.end(`${callback.searchParams.get('code')}\n`);
  expect(await exited).toBe(0);
  expect(out).toMatch(/"token_type":"Bearer"/);
  expect(out).toMatch(
    /^\{"sub":"alice","name":"Alice Liddell",.*"email":"alice@example\.com","email_verified":true\}$/m,
  );
  expect(out).toMatch(/^\{"data":\{"products":\[\{"id":1,"name":"Desk Lamp"\},.*\],"product":null\}\}$/m);
  expect(out).not.toMatch(/Authorization header|invalid_request|Malformed/);
}, 60_000);
