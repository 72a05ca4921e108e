import { Writable } from 'node:stream';
import { pino } from 'pino';
import { TestBrowser } from '../helpers/browser.js';
import { Mailbox } from '../helpers/mailbox.js';
import { startServer } from '../helpers/server.js';
import { REDACTED_PATHS } from '../../lib/core/logger.js';

test('the development mailbox logs the link; no password ever reaches the log', async () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const logger = pino({ level: 'debug', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, sink);
  const mailbox = await Mailbox.create();
  const srv = await startServer({ mail: { mailbox: mailbox.dir }, logger });
  const password = 'Very-Secret-Signup-Password-42';
  const newPassword = 'Another-Secret-Reset-Password-43';
  try {
    const browser = new TestBrowser(srv.issuer);
    await browser.submit(await browser.go(`${srv.issuer}/account/signup`), {
      given_name: 'Lo',
      family_name: 'Gs',
      email: 'logs@example.org',
      password,
    });
    const [mail] = await mailbox.waitFor('logs@example.org');
    await browser.submit(await browser.go(`${srv.issuer}/account/reset`), { email: 'logs@example.org' });
    const reset = (await mailbox.waitFor('logs@example.org', 2)).find((m) => m.subject === 'Reset your password')!;
    await browser.submit(await browser.go(reset.link!), { password: newPassword });
    await mailbox.waitFor('logs@example.org', 3);

    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const written = entries.filter((e) => e.msg === 'development mailbox: message written');
    expect(written.map((e) => e.link)).toEqual(expect.arrayContaining([mail!.link, reset.link]));
    expect(entries.some((e) => e.msg === 'password reset; sessions and grants revoked')).toBe(true);
    const all = lines.join('\n');
    expect(all).not.toContain(password);
    expect(all).not.toContain(newPassword);
  } finally {
    await srv.close();
    await mailbox.remove();
  }
});
