import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import nodemailer from 'nodemailer';
import type { Mailer } from '../core/mailer.js';
import type { MailConfig } from '../../config/types.js';
import type { Logger } from '../core/logger.js';
import { DEFAULTS } from '../../config/defaults.js';
import { ConfigError } from '../core/errors.js';

/**
 * Builds the mailer (nodemailer). With `mail.smtp` set, messages go over SMTP (a `smtp://`/`smtps://` URL or a
 * nodemailer SMTP options object). Without it, in development only, each message is written as an RFC 5322 `.eml`
 * file into the mailbox directory (`mail.mailbox`; `loadConfig` defaults it to `PORTCULLIS_DEV_MAILBOX`, else
 * `./.mailbox`) and the link is logged. Returns `undefined` in production without SMTP: the pages that need mail are
 * then off.
 * A host's own `mail.mailer` is returned as it is, and wins over `mail.smtp`.
 */
export function createMailer(mail: MailConfig, production: boolean, logger: Logger): Mailer | undefined {
  if (mail.mailer) return mail.mailer;
  const from = mail.from ?? DEFAULTS.mail.from;
  if (mail.smtp) {
    const transport = smtpTransport(mail.smtp);
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

/**
 * nodemailer's SMTP transport for `mail.smtp`. nodemailer parses a URL in `createTransport` and throws a bare
 * `TypeError: Invalid URL` (its `input` holding the URL, password included) or `URIError`: a URL that WHATWG
 * `URL` refuses, and any error of nodemailer's, become a ConfigError at `mail.smtp` that repeats no part of the
 * URL, without the original as `cause`.
 *
 * @throws {ConfigError} `mail.smtp` when nodemailer cannot read it.
 */
function smtpTransport(smtp: NonNullable<MailConfig['smtp']>): nodemailer.Transporter {
  // Checked before nodemailer sees it: its url.parse prints a URL that WHATWG refuses, password and all, in a
  // DEP0170 warning on stderr (and sends nothing to a port above 65535 or a host with a space).
  if (typeof smtp === 'string' && !URL.canParse(smtp)) {
    throw new ConfigError(
      'mail.smtp',
      'is not a URL (a bad host or a port above 65535?); write it as smtp://user:pass@host:587 or smtps://…, ' +
        'percent-encoding special characters (the URL is not repeated here: it may hold a password)',
    );
  }
  try {
    return nodemailer.createTransport(smtp as never);
  } catch (err) {
    const why =
      (err as Error).name === 'URIError'
        ? 'a malformed % escape in its user name or password'
        : `${(err as Error).name} (a bad host or port?)`;
    throw new ConfigError(
      'mail.smtp',
      `nodemailer cannot read it: ${why}; write it as smtp://user:pass@host:587 or smtps://…, ` +
        `percent-encoding special characters (the URL is not repeated here: it may hold a password)`,
    );
  }
}
