import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A message read back from the development mailbox (`.eml` files written by nodemailer). */
export interface Mail {
  file: string;
  to: string;
  subject: string;
  text: string;
  /** The first http(s) link of the body. */
  link?: string;
}

function decodeQuotedPrintable(body: string): string {
  return body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function parse(file: string, raw: string): Mail {
  const split = raw.search(/\r?\n\r?\n/);
  const head = raw.slice(0, split).replace(/\r?\n[ \t]+/g, ' ');
  let body = raw.slice(split).trim();
  const header = (name: string) => head.match(new RegExp(`^${name}: (.*)$`, 'mi'))?.[1]?.trim() ?? '';
  if (/quoted-printable/i.test(header('Content-Transfer-Encoding'))) body = decodeQuotedPrintable(body);
  if (/base64/i.test(header('Content-Transfer-Encoding'))) body = Buffer.from(body, 'base64').toString('utf8');
  return { file, to: header('To'), subject: header('Subject'), text: body, link: body.match(/https?:\/\/\S+/)?.[0] };
}

/** A temporary mailbox directory for one test server. */
export class Mailbox {
  private constructor(readonly dir: string) {}

  static async create(): Promise<Mailbox> {
    return new Mailbox(await mkdtemp(join(tmpdir(), 'portcullis-mailbox-')));
  }

  async all(): Promise<Mail[]> {
    const files = (await readdir(this.dir).catch(() => [] as string[])).filter((f) => f.endsWith('.eml')).sort();
    return Promise.all(files.map(async (f) => parse(f, await readFile(join(this.dir, f), 'utf8'))));
  }

  /** Messages to `to` (mails are sent in the background, so this waits up to `timeoutMs` for `count` of them). */
  async waitFor(to: string, count = 1, timeoutMs = 5000): Promise<Mail[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const mails = (await this.all()).filter((m) => m.to.toLowerCase().includes(to.toLowerCase()));
      if (mails.length >= count || Date.now() > deadline) {
        if (mails.length < count) throw new Error(`expected ${count} mail(s) to ${to}, found ${mails.length}`);
        return mails;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Messages to `to` after giving background sends time to finish (to assert that none was sent). */
  async settledFor(to: string, waitMs = 400): Promise<Mail[]> {
    await new Promise((r) => setTimeout(r, waitMs));
    return (await this.all()).filter((m) => m.to.toLowerCase().includes(to.toLowerCase()));
  }

  async remove(): Promise<void> {
    // A notice mailed in the background after a test's last request (e.g. "password changed") may still be being
    // written: ENOTEMPTY then, so retry (fs.rm's own retries).
    await rm(this.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  }
}
