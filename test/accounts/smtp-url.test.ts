import { createServer } from '../../lib/server.js';
import { ConfigError } from '../../lib/core/errors.js';

/**
 * A `mail.smtp` URL (PORTCULLIS_SMTP_URL) that passes the schema (`^smtps?://`) but that nodemailer cannot read:
 * createServer threw nodemailer's bare TypeError (its `input` holding the URL, password and all) or URIError.
 * Each is refused with a ConfigError at `mail.smtp`, with the password nowhere in the error.
 */
const PASSWORD = 'Smtp-Secret-Pw';
const rows: Array<[string, string, RegExp]> = [
  ['an unclosed IPv6 bracket', `smtp://user:${PASSWORD}@[::1:587`, /"mail\.smtp": is not a URL/],
  ['text after an IPv6 address', `smtp://user:${PASSWORD}@[::1]x`, /"mail\.smtp": is not a URL/],
  ['a port above 65535', `smtp://user:${PASSWORD}@127.0.0.1:99999`, /"mail\.smtp": is not a URL/],
  ['a space in the host', `smtps://user:${PASSWORD}@mail host:465`, /"mail\.smtp": is not a URL/],
  [
    'a bad % escape in the password',
    `smtp://user:%zz${PASSWORD}@127.0.0.1:587`,
    /nodemailer cannot read it: a malformed % escape/,
  ],
];

function everything(err: unknown): string {
  const e = err as Error & { cause?: unknown };
  return [e.message, e.stack, JSON.stringify(e), e.cause === undefined ? '' : everything(e.cause)].join('\n');
}

/** Node's process warnings while the rows run: url.parse's DEP0170 quotes the URL it refuses. */
const warnings: string[] = [];
const onWarning = (w: Error) => {
  warnings.push(w.message);
};
beforeAll(() => {
  process.on('warning', onWarning);
});
afterAll(() => {
  process.off('warning', onWarning);
});

test.each(rows)(
  'mail.smtp with %s is a ConfigError at mail.smtp, the password not in it',
  async (_name, smtp, message) => {
    const err = await createServer({ issuer: 'http://127.0.0.1:9', storage: { type: 'memory' }, mail: { smtp } }).then(
      async (s) => {
        await s.close();
        return undefined;
      },
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).toMatchObject({ code: 'ERR_CONFIG_INVALID', path: 'mail.smtp' });
    expect((err as Error).message).toMatch(message);
    expect(everything(err)).not.toContain(PASSWORD);
    await new Promise((r) => setImmediate(r));
    expect(warnings.filter((w) => w.includes(PASSWORD))).toEqual([]);
  },
);
