/**
 * The mail contract: what the account pages (sign-up, e-mail verification, password reset, notices) need to send
 * a message. Portcullis builds one from `mail.smtp` (nodemailer) or, in development, a mailbox directory; a host
 * passes its own as `mail.mailer` (a mail API, a queue, a test double).
 */

/** One outgoing message (plain text; links are written out in full). */
export interface MailMessage {
  /**
   * The recipient: an account's address with its domain in ASCII (IDNA A-labels, lower-cased) and its local part as
   * the user typed it, e.g. `Bob@xn--bcher-kva.example` for `Bob@Bücher.example` (see `parseEmailAddress`).
   */
  to: string;
  subject: string;
  text: string;
  /** The action link of the message, logged by the development mailbox (never with SMTP). */
  link?: string;
}

/**
 * Sends account mail. `send` resolves once the message is handed over; a rejection is logged and the page answers
 * as if the message had been sent (the answer never tells whether an address exists).
 *
 * @example
 * ```ts
 * const mailer: Mailer = { kind: 'custom', send: (m) => mailApi.send({ to: m.to, subject: m.subject, text: m.text }) };
 * await createServer({ ...config, mail: { mailer } });
 * ```
 */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  /** `smtp`, `mailbox` (the development transport that writes `.eml` files), or `custom` for a host's own. */
  readonly kind: 'smtp' | 'mailbox' | 'custom';
}
