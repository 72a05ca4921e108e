import {
  createCipheriv,
  createDecipheriv,
  createHash,
  hkdfSync,
  randomBytes,
  randomInt,
  timingSafeEqual,
} from 'node:crypto';
import { generateSecret, generateURI, verify } from 'otplib';
import QRCode from 'qrcode';

/**
 * TOTP (RFC 6238: SHA-1, 6 digits, 30-second steps, what every authenticator app reads from a QR code) and
 * recovery codes. Secrets are encrypted at rest with AES-256-GCM under a key derived from `mfa.encryptionKey`;
 * recovery codes are kept as SHA-256 hashes (they are 50 random bits each, so a plain hash is enough: nobody
 * can enumerate 2⁵⁰ candidates per code, unlike a password).
 */

/** Length of one TOTP time step, seconds (RFC 6238 §4.1 `X`). */
export const TOTP_PERIOD = 30;
/** How many recovery codes an enrolment hands out. */
export const RECOVERY_CODE_COUNT = 10;

/** Encrypts and decrypts TOTP secrets (AES-256-GCM, random 96-bit IV, base64url of `iv ‖ tag ‖ ciphertext`). */
export class SecretBox {
  readonly #key: Buffer;

  /** @param secret `mfa.encryptionKey` (≥ 32 characters); the AES key is HKDF-SHA-256 of it. */
  constructor(secret: string) {
    this.#key = Buffer.from(hkdfSync('sha256', secret, 'portcullis', 'portcullis totp secret v1', 32));
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The clear secret, or `undefined` when the value was not sealed under this key (key changed, tampering). */
  open(sealed: string): string | undefined {
    try {
      const raw = Buffer.from(sealed, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', this.#key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}

/** A new random TOTP secret (base32, 160 bits as RFC 4226 §4 recommends). */
export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

/** The `otpauth://totp/…` URI an authenticator app scans (Key Uri Format). */
export function totpUri(secret: string, issuer: string, accountName: string): string {
  return generateURI({ issuer, label: accountName, secret });
}

/** The QR code of `text` as an inline SVG element (no external asset, no script; fits the pages' CSP). */
export function qrSvg(text: string): Promise<string> {
  return QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2, width: 200 });
}

/**
 * Checks a 6-digit `code` against `secret` at `now` (epoch seconds) with one step of tolerance either way
 * (clock drift, RFC 6238 §5.2). A code of step `afterStep` or earlier is refused (replay, RFC 6238 §5.2: "the
 * verifier MUST NOT accept the second attempt of the OTP after the successful validation").
 * @returns the matched time step, or `undefined`.
 */
export async function verifyTotp(
  secret: string,
  code: string,
  afterStep?: number,
  now = Date.now() / 1000,
): Promise<number | undefined> {
  if (!/^\d{6}$/.test(code)) return undefined;
  const result = await verify({
    secret,
    token: code,
    epoch: now,
    epochTolerance: TOTP_PERIOD,
    afterTimeStep: afterStep,
  });
  // The TOTP strategy answers the matched step; the union type of otplib's functional API does not say so.
  return result.valid ? (result as { timeStep: number }).timeStep : undefined;
}

const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789'; // no 0/o, 1/l/i

/** Ten new recovery codes, `xxxxx-xxxxx` (50 bits each), to show once. */
export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  const one = () => Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
  return Array.from({ length: count }, () => {
    const c = one();
    return `${c.slice(0, 5)}-${c.slice(5)}`;
  });
}

/** The stored form of a recovery code: SHA-256 of the code without spaces and dashes, lower-cased, base64url. */
export function hashRecoveryCode(code: string): string {
  return createHash('sha256')
    .update(`portcullis-recovery\n${normalizeRecoveryCode(code)}`)
    .digest('base64url');
}

/** What a user may type for a recovery code: case, spaces and dashes do not matter. */
export function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

/** Whether `code` looks like a recovery code (10 characters of the alphabet once normalised). */
export function looksLikeRecoveryCode(code: string): boolean {
  return new RegExp(`^[${RECOVERY_ALPHABET}]{10}$`).test(normalizeRecoveryCode(code));
}

/** Constant-time comparison of two hashes. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
