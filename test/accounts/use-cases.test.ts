import { MemoryStorage } from '../../adapters/memory.js';
import { AccountLimits } from '../../lib/accounts/account-limits.js';
import { AccountMail } from '../../lib/accounts/account-mail.js';
import { AccountSessions } from '../../lib/accounts/account-sessions.js';
import { mailForTakenAddress, resetConfirmsAddress } from '../../lib/accounts/hijacking-policy.js';
import { Translator } from '../../lib/ui/i18n.js';
import type { Mailer, MailMessage } from '../../lib/core/mailer.js';
import { MemoryAccountStore } from '../../adapters/memory-account-store.js';
import { changeEmail } from '../../lib/accounts/use-cases/change-email.js';
import { confirmEmail, inspectConfirmation } from '../../lib/accounts/use-cases/confirm-email.js';
import { requestPasswordReset, resendConfirmation } from '../../lib/accounts/use-cases/mail-requests.js';
import { resetPassword } from '../../lib/accounts/use-cases/reset-password.js';
import type { AccountServices } from '../../lib/accounts/use-cases/services.js';
import { signUp } from '../../lib/accounts/use-cases/sign-up.js';
import { VerificationTokens } from '../../lib/accounts/verification-tokens.js';
import { createLogger } from '../../lib/core/logger.js';

/**
 * The account use cases without HTTP: the result each returns and the mail each sends. The pages built on them
 * are tested over HTTP in signup.test.ts and reset.test.ts.
 */

const ISSUER = 'https://id.example.test';
const IP = '192.0.2.1';
const OWNER = { email: 'owner@example.com', password: 'the owner passphrase' };
const PENDING = { email: 'pending@example.com', password: 'an unconfirmed passphrase' };

let storage: MemoryStorage;
let sent: MailMessage[];
let services: AccountServices;

async function build(mailPerAddress = 5): Promise<void> {
  storage = new MemoryStorage();
  sent = [];
  const mailer: Mailer = {
    kind: 'mailbox',
    send: async (m) => {
      sent.push(m);
    },
  };
  const logger = createLogger({ LOG_LEVEL: 'silent' });
  const accounts = await MemoryAccountStore.fromSeed([
    { id: 'owner', email: OWNER.email, password: OWNER.password, email_verified: true },
    { id: 'pending', email: PENDING.email, password: PENDING.password, email_verified: false },
  ]);
  const tokens = new VerificationTokens(storage.adapter);
  const limits = new AccountLimits({
    loginPerAccount: { points: 10, durationSeconds: 900 },
    loginPerIp: { points: 100, durationSeconds: 900 },
    mailPerAddress: { points: mailPerAddress, durationSeconds: 3600 },
    mailPerIp: { points: 30, durationSeconds: 3600 },
  });
  const mail = new AccountMail({ mailer, tokens, issuer: ISSUER, verificationTtl: 86400, resetTtl: 3600, logger });
  services = {
    accounts,
    tokens,
    mail,
    limits,
    sessions: new AccountSessions(storage.adapter, logger),
    logger,
    passwordMinLength: 12,
  };
}

/** Mail goes out in the background: let it settle, then return what was sent since the last call. */
async function mails(): Promise<MailMessage[]> {
  await new Promise((resolve) => setImmediate(resolve));
  return sent.splice(0);
}

const tokenOf = (m: MailMessage) => new URL(m.link!).searchParams.get('token')!;

beforeEach(() => build());
afterEach(() => storage.close());

describe('pre-account-hijacking policy', () => {
  const account = { id: 'a', email: 'A@example.com', emailVerified: false, roles: [], claims: {} };
  test('an unconfirmed account gets a set-your-password link, a confirmed one a notice, a vanished one nothing', () => {
    expect(mailForTakenAddress(account)).toEqual({ kind: 'finish-setup', account });
    expect(mailForTakenAddress({ ...account, emailVerified: true }).kind).toBe('notify-owner');
    expect(mailForTakenAddress(undefined)).toEqual({ kind: 'none' });
  });
  test('a used reset link confirms the address only while the account still has the address it went to', () => {
    const record = { purpose: 'reset-password' as const, accountId: 'a', email: 'a@EXAMPLE.com' };
    expect(resetConfirmsAddress(account, record)).toBe(true);
    expect(resetConfirmsAddress({ ...account, email: 'other@example.com' }, record)).toBe(false);
    expect(resetConfirmsAddress({ ...account, emailVerified: true }, record)).toBe(false);
  });
});

describe('sign-up', () => {
  const input = {
    ip: IP,
    givenName: 'New',
    familyName: 'Person',
    email: 'new@example.com',
    password: 'a long enough passphrase',
  };

  test('creates an unconfirmed account and mails a confirmation link that confirms it once', async () => {
    await expect(signUp(services, { ...input, interaction: 'abc' })).resolves.toEqual({
      kind: 'mail-sent',
      returnTo: '/interaction/abc',
    });
    const [mail, ...more] = await mails();
    expect(more).toEqual([]);
    expect(mail).toMatchObject({ to: input.email, subject: 'Confirm your e-mail address' });
    expect(mail!.link).toMatch(`${ISSUER}/account/verify?token=`);
    expect(mail!.text).toContain(mail!.link!);
    expect(mail!.text).toContain('expires in 24 hours');
    const token = tokenOf(mail!);
    await expect(inspectConfirmation(services, token)).resolves.toEqual({ kind: 'confirmable', email: input.email });
    await expect(confirmEmail(services, token)).resolves.toEqual({ kind: 'verified', returnTo: '/interaction/abc' });
    expect((await services.accounts.findByEmail(input.email))?.emailVerified).toBe(true);
    await expect(confirmEmail(services, token)).resolves.toEqual({ kind: 'invalid-link' });
  });

  test('refuses missing names, a bad address and a short password, in that order, and sends nothing', async () => {
    await expect(signUp(services, { ...input, givenName: '', email: 'bad' })).resolves.toMatchObject({
      kind: 'invalid',
      message: 'Enter your given and family name.',
    });
    await expect(signUp(services, { ...input, email: 'bad', password: 'short' })).resolves.toMatchObject({
      kind: 'invalid',
      message: 'Enter a valid e-mail address.',
    });
    await expect(signUp(services, { ...input, password: 'short' })).resolves.toMatchObject({
      kind: 'invalid',
      message: 'Choose a password of at least 12 characters.',
    });
    await expect(signUp(services, { ...input, password: 'x'.repeat(257) })).resolves.toMatchObject({
      message: 'Choose a password of at most 256 characters.',
    });
    expect(await mails()).toEqual([]);
  });

  test('an address with an unconfirmed account: the same answer, and its owner gets a link to choose a password', async () => {
    await expect(signUp(services, { ...input, email: PENDING.email })).resolves.toEqual({
      kind: 'mail-sent',
      returnTo: undefined,
    });
    const [mail] = await mails();
    expect(mail).toMatchObject({ to: PENDING.email, subject: 'Finish setting up your account' });
    expect(mail!.link).toMatch(`${ISSUER}/account/reset/confirm?token=`);
    // The earlier sign-up's password does not survive the owner's reset, and the address counts as confirmed.
    await expect(resetPassword(services, tokenOf(mail!), 'the real owner passphrase')).resolves.toMatchObject({
      kind: 'password-changed',
    });
    await expect(services.accounts.verifyPassword(PENDING.email, PENDING.password)).resolves.toBeUndefined();
    await expect(services.accounts.verifyPassword(PENDING.email, 'the real owner passphrase')).resolves.toMatchObject({
      emailVerified: true,
    });
  });

  test('an address with a confirmed account: the same answer, and its owner is told (no link)', async () => {
    await expect(signUp(services, { ...input, email: OWNER.email })).resolves.toEqual({
      kind: 'mail-sent',
      returnTo: undefined,
    });
    const [mail] = await mails();
    expect(mail).toMatchObject({ to: OWNER.email, subject: 'Someone tried to create an account with your address' });
    expect(mail!.link).toBeUndefined();
    expect(mail!.text).toContain(`${ISSUER}/account/reset`);
  });

  test('the mail limit per address answers rate-limited with the seconds to wait', async () => {
    await storage.close();
    await build(1);
    await expect(signUp(services, input)).resolves.toMatchObject({ kind: 'mail-sent' });
    const refused = await signUp(services, input);
    expect(refused.kind).toBe('rate-limited');
    expect(refused.kind === 'rate-limited' && refused.retryAfterSeconds).toBeGreaterThan(0);
  });
});

describe('mail-link requests', () => {
  test('resend mails only an unconfirmed account, and answers the same for every address', async () => {
    for (const email of [OWNER.email, 'nobody@example.com', PENDING.email]) {
      await expect(resendConfirmation(services, { ip: IP, email })).resolves.toEqual({ kind: 'mail-sent' });
    }
    expect((await mails()).map((m) => [m.to, m.subject])).toEqual([[PENDING.email, 'Confirm your e-mail address']]);
    await expect(resendConfirmation(services, { ip: IP, email: 'not an address' })).resolves.toMatchObject({
      kind: 'invalid',
      message: 'Enter a valid e-mail address.',
    });
  });

  test('a reset link works once; a weak password leaves it usable; the owner is told of the change', async () => {
    await expect(requestPasswordReset(services, { ip: IP, email: 'nobody@example.com' })).resolves.toEqual({
      kind: 'mail-sent',
    });
    await expect(requestPasswordReset(services, { ip: IP, email: OWNER.email, interaction: 'xyz' })).resolves.toEqual({
      kind: 'mail-sent',
    });
    const [mail, ...more] = await mails();
    expect(more).toEqual([]);
    expect(mail).toMatchObject({ to: OWNER.email, subject: 'Reset your password' });
    expect(mail!.text).toContain('expires in 1 hour.');
    const token = tokenOf(mail!);
    await expect(resetPassword(services, token, 'short')).resolves.toMatchObject({
      kind: 'invalid',
      message: 'Choose a password of at least 12 characters.',
    });
    await expect(resetPassword(services, token, 'a brand new passphrase')).resolves.toEqual({
      kind: 'password-changed',
      returnTo: '/interaction/xyz',
    });
    expect((await mails()).map((m) => m.subject)).toEqual(['Your password was changed']);
    await expect(resetPassword(services, token, 'another new passphrase')).resolves.toEqual({ kind: 'invalid-link' });
    await expect(services.accounts.verifyPassword(OWNER.email, 'a brand new passphrase')).resolves.toMatchObject({
      id: 'owner',
    });
  });
});

describe('e-mail change', () => {
  const change = { ip: IP, email: OWNER.email, password: OWNER.password, newEmail: 'moved@example.com' };

  test('needs the right password, then mails the new address a link and the current one a notice', async () => {
    await expect(changeEmail(services, { ...change, password: 'wrong password!' })).resolves.toEqual({
      kind: 'wrong-credentials',
    });
    await expect(changeEmail(services, { ...change, newEmail: 'nope' })).resolves.toMatchObject({
      kind: 'invalid',
      message: 'Enter a valid new e-mail address.',
    });
    await expect(changeEmail(services, change)).resolves.toEqual({ kind: 'mail-sent' });
    const [link, notice] = await mails();
    expect(link).toMatchObject({ to: change.newEmail, subject: 'Confirm your new e-mail address' });
    expect(notice).toMatchObject({ to: OWNER.email, subject: 'Your e-mail address is being changed' });
    await expect(confirmEmail(services, tokenOf(link!))).resolves.toEqual({
      kind: 'email-changed',
      email: change.newEmail,
    });
    await expect(services.accounts.findById('owner')).resolves.toMatchObject({ email: change.newEmail });
  });

  test('an address held by another account: its holder is told, nothing changes, the same answer', async () => {
    await expect(changeEmail(services, { ...change, newEmail: PENDING.email })).resolves.toEqual({ kind: 'mail-sent' });
    expect((await mails()).map((m) => [m.to, m.subject])).toEqual([
      [PENDING.email, 'Someone tried to use your address'],
    ]);
    await expect(services.accounts.findById('owner')).resolves.toMatchObject({ email: OWNER.email });
  });
});

test('durations in mails, in English and German', () => {
  const en = new Translator('en');
  const de = new Translator('de');
  expect([3600, 7200, 86400, 900, 61].map((s) => en.duration(s))).toEqual([
    '1 hour',
    '2 hours',
    '24 hours',
    '15 minutes',
    '2 minutes',
  ]);
  expect([3600, 7200, 900].map((s) => de.duration(s))).toEqual(['1 Stunde', '2 Stunden', '15 Minuten']);
});
