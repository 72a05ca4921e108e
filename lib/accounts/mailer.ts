import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import nodemailer from 'nodemailer';
import type { Mailer } from '../core/mailer.js';
import type { MailConfig } from '../../config/types.js';
import type { Logger } from '../core/logger.js';
import { DEFAULTS } from '../../config/defaults.js';

/**
 * Builds the mailer (nodemailer). With `mail.smtp` set, messages go over SMTP (a `smtp://`/`smtps://` URL or a
 * nodemailer SMTP options object). Without it, in development only, each message is written as an RFC 5322 `.eml`
 * file into the mailbox directory (`mail.mailbox`; `loadConfig` defaults it to `PORTCULLIS_DEV_MAILBOX`, else
 * `./.mailbox`) and the link is logged. Returns `undefined` in production without SMTP: the pages that need mail are then off.
 * A host's own `mail.mailer` is returned as it is, and wins over `mail.smtp`.
 */
export function createMailer(mail: MailConfig, production: boolean, logger: Logger): Mailer | undefined {
  if (mail.mailer) return mail.mailer;
  const from = mail.from ?? DEFAULTS.mail.from;
  if (mail.smtp) {
    const transport = nodemailer.createTransport(mail.smtp as never);
    return {
      kind: 'smtp',
      async send(m) {
        await transport.sendMail({ from, to: m.to, subject: m.subject, text: m.text });
      },
    };
  }
  if (production) return undefined;
  const dir = resolve(mail.mailbox ?? DEFAULTS.mail.mailbox);
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    kind: 'mailbox',
    async send(m) {
      const info = await transport.sendMail({ from, to: m.to, subject: m.subject, text: m.text });
      await mkdir(dir, { recursive: true });
      const file = join(dir, `${Date.now()}-${randomBytes(4).toString('hex')}.eml`);
      await writeFile(file, info.message as Buffer, { mode: 0o600 });
      logger.info({ to: m.to, subject: m.subject, file, link: m.link }, 'development mailbox: message written');
    },
  };
}
