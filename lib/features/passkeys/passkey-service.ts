import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Logger } from '../../core/logger.js';
import type { Account, PasskeyAccountStore, StoredPasskey } from '../../core/account-store.js';
import type { PasskeyChallenges, PendingChallenge } from './challenges.js';
import type { RelyingParty } from './relying-party.js';

/** `@simplewebauthn/server`'s functions, imported by {@link PasskeyService.create}. */
type WebAuthn = typeof import('@simplewebauthn/server');

/** EdDSA, ES256, RS256 (COSE, RFC 9053): offered at registration and accepted at verification, nothing else. */
const ALGORITHMS = [-8, -7, -257];
/** A credential id as base64url: WebAuthn §5.1 allows at most 1023 bytes (1364 characters). */
const CREDENTIAL_ID = /^[A-Za-z0-9_-]{16,1364}$/;
/** Largest response JSON we parse (a `none` attestation is well under 2 KiB). */
const MAX_RESPONSE = 12_000;
/** How long the browser lets the user answer, ms (the stored challenge lives `passkeys.challengeTtl`). */
const TIMEOUT_MS = 120_000;
/** Longest passkey name, characters. */
export const MAX_PASSKEY_NAME = 64;

/** What a sign-in with a passkey proved (RFC 8176 `amr`, Portcullis `acr`). */
export interface PasskeySignIn {
  account: Account;
  amr: string[];
  acr: string;
}

/** Why a ceremony was refused; `expired` = no usable challenge (expired, used, or never issued to this binding). */
export type PasskeyRefusal = 'expired' | 'malformed' | 'unknown-credential' | 'not-verified' | 'taken';

export type PasskeyResult<T> = { ok: true; value: T } | { ok: false; reason: PasskeyRefusal };

/** What {@link PasskeyService} needs. */
export interface PasskeyServiceDeps {
  accounts: PasskeyAccountStore;
  challenges: PasskeyChallenges;
  rp: RelyingParty;
  logger: Logger;
}

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const refuse = (reason: PasskeyRefusal) => ({ ok: false as const, reason });

/** A base64url challenge as a response's client data may name one (ours are 32 bytes: 43 characters). */
const CHALLENGE = /^[A-Za-z0-9_-]{16,128}$/;

/**
 * The challenge a parsed response names in its `clientDataJSON` (WebAuthn §5.8.1 `challenge`), which says which
 * pending challenge of the binding it answers; the signature check then holds it to that one.
 */
function challengeOf(response: { response?: unknown }): string | undefined {
  const clientData = (response.response as { clientDataJSON?: unknown }).clientDataJSON;
  if (typeof clientData !== 'string' || clientData.length > MAX_RESPONSE) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(clientData, 'base64url').toString('utf8')) as { challenge?: unknown } | null;
    const challenge = parsed?.challenge;
    return typeof challenge === 'string' && CHALLENGE.test(challenge) ? challenge : undefined;
  } catch {
    return undefined;
  }
}

function parse<T extends { id?: unknown; type?: unknown; response?: unknown }>(raw: string): T | undefined {
  if (!raw || raw.length > MAX_RESPONSE) return undefined;
  try {
    const value = JSON.parse(raw) as T;
    const ok =
      value &&
      typeof value === 'object' &&
      typeof value.id === 'string' &&
      CREDENTIAL_ID.test(value.id) &&
      value.type === 'public-key' &&
      value.response &&
      typeof value.response === 'object';
    return ok ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The WebAuthn ceremonies (W3C WebAuthn Level 3 §7) on top of `@simplewebauthn/server`, with no HTTP in it:
 * options out with a stored challenge, responses in, checked against that challenge (single use), the issuer's
 * origin and RP ID, user verification where required, the signature and the signature counter (§6.1.1: a
 * non-zero counter that does not grow is refused), and the credential's owner.
 *
 * A binding names who may answer a challenge: the interaction uid of a sign-in, or the oidc-provider session of
 * the account page.
 */
export class PasskeyService {
  private constructor(
    private readonly deps: PasskeyServiceDeps,
    private readonly webauthn: WebAuthn,
  ) {}

  /**
   * The service, with `@simplewebauthn/server` loaded now (passkeys are on) rather than when Portcullis is imported:
   * that package costs 0.3-0.4 s of CPU to load, which every process paid with passkeys off.
   * @throws whatever importing `@simplewebauthn/server` throws (a broken installation), at start-up as before.
   */
  static async create(deps: PasskeyServiceDeps): Promise<PasskeyService> {
    return new PasskeyService(deps, await import('@simplewebauthn/server'));
  }

  /** The relying party (RP ID and origin from the issuer). */
  get rp(): RelyingParty {
    return this.deps.rp;
  }

  /** The account's passkeys, oldest first. */
  list(accountId: string): Promise<StoredPasskey[]> {
    return this.deps.accounts.listPasskeys(accountId);
  }

  /**
   * Options for `navigator.credentials.create()` (§5.4) for `account`, with a new challenge bound to `binding` (beside
   * the ones already pending there, see {@link PasskeyChallenges}):
   * a discoverable credential (resident key required) with user verification required, no attestation, and the
   * account's passkeys excluded so one authenticator is not registered twice.
   */
  async registrationOptions(account: Account, binding: string): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const existing = await this.list(account.id);
    const options = await this.webauthn.generateRegistrationOptions({
      rpName: this.deps.rp.name,
      rpID: this.deps.rp.id,
      userName: account.email,
      userID: new TextEncoder().encode(account.id),
      userDisplayName: typeof account.claims.name === 'string' ? account.claims.name : account.email,
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      supportedAlgorithmIDs: ALGORITHMS,
      timeout: TIMEOUT_MS,
    });
    await this.deps.challenges.issue(binding, {
      purpose: 'register',
      challenge: options.challenge,
      accountId: account.id,
    });
    return options;
  }

  /**
   * Checks a registration response (§7.1) against the pending challenge of `binding` it names (taken, so it works
   * once) and stores the passkey as `name`.
   * @param raw the `PublicKeyCredential` as JSON (base64url members), as our browser script posts it.
   */
  async register(account: Account, binding: string, raw: string, name: string): Promise<PasskeyResult<StoredPasskey>> {
    const response = parse<RegistrationResponseJSON>(raw);
    const challenge = response && challengeOf(response);
    if (!response || !challenge) return refuse('malformed');
    const pending = await this.deps.challenges.take(binding, challenge, ['register']);
    if (!pending || pending.accountId !== account.id) return refuse('expired');
    let verified;
    try {
      verified = await this.webauthn.verifyRegistrationResponse({
        response,
        expectedChallenge: pending.challenge,
        expectedOrigin: this.deps.rp.origin,
        expectedRPID: this.deps.rp.id,
        requireUserVerification: true,
        supportedAlgorithmIDs: ALGORITHMS,
      });
    } catch (err) {
      this.deps.logger.info({ reason: (err as Error).message, accountId: account.id }, 'passkey registration refused');
      return refuse('not-verified');
    }
    if (!verified.verified) return refuse('not-verified');
    const info = verified.registrationInfo;
    const owner = await this.deps.accounts.findAccountByPasskey(info.credential.id);
    if (owner) return refuse('taken');
    const passkey: StoredPasskey = {
      credentialId: info.credential.id,
      publicKey: b64url(info.credential.publicKey),
      counter: info.credential.counter,
      transports: info.credential.transports?.filter((t) => typeof t === 'string').slice(0, 8),
      name: name.trim().slice(0, MAX_PASSKEY_NAME) || 'Passkey',
      createdAt: Date.now(),
      backedUp: info.credentialBackedUp,
      deviceType: info.credentialDeviceType,
    };
    try {
      await this.deps.accounts.savePasskey(account.id, passkey);
    } catch (err) {
      if (/another account/.test((err as Error).message)) return refuse('taken');
      throw err;
    }
    return { ok: true, value: passkey };
  }

  /**
   * Options for `navigator.credentials.get()` (§5.5) with a new challenge bound to `binding`. For `login`, any
   * discoverable credential and user verification required; for `second-factor`, the account's own credentials,
   * user verification preferred (the password was the first factor).
   */
  async authenticationOptions(
    binding: string,
    pending: Omit<PendingChallenge, 'challenge'>,
  ): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const allow =
      pending.purpose === 'second-factor' && pending.accountId ? await this.list(pending.accountId) : undefined;
    const options = await this.webauthn.generateAuthenticationOptions({
      rpID: this.deps.rp.id,
      allowCredentials: allow?.map((p) => ({ id: p.credentialId, transports: p.transports })),
      userVerification: pending.purpose === 'login' ? 'required' : 'preferred',
      timeout: TIMEOUT_MS,
    });
    await this.deps.challenges.issue(binding, { ...pending, challenge: options.challenge });
    return options;
  }

  /**
   * Checks an assertion (§7.2) against the pending challenge of `binding` it names (taken, so it works once),
   * records the new counter and the time of use, and says who signed in and how: `amr` is the methods already
   * passed (`pwd` before a second factor) + `hwk` (or `swk` for a synced, backup-eligible passkey) + `user` when the
   * authenticator verified the user + `mfa` when that makes two factors; `acr` is `urn:portcullis:mfa`.
   */
  async authenticate(binding: string, raw: string): Promise<PasskeyResult<PasskeySignIn>> {
    const response = parse<AuthenticationResponseJSON>(raw);
    const challenge = response && challengeOf(response);
    if (!response || !challenge) return refuse('malformed');
    const pending = await this.deps.challenges.take(binding, challenge, ['login', 'second-factor']);
    if (!pending) return refuse('expired');
    const account = await this.deps.accounts.findAccountByPasskey(response.id);
    if (!account || (pending.purpose === 'second-factor' && account.id !== pending.accountId))
      return refuse('unknown-credential');
    // A discoverable credential names its user (§7.2 step 6): it must be the credential's owner.
    const userHandle = response.response.userHandle;
    if ((pending.purpose === 'login' || userHandle) && userHandle !== b64url(account.id))
      return refuse('unknown-credential');
    const passkey = (await this.list(account.id)).find((p) => p.credentialId === response.id);
    if (!passkey) return refuse('unknown-credential');
    let verified;
    try {
      verified = await this.webauthn.verifyAuthenticationResponse({
        response,
        expectedChallenge: pending.challenge,
        expectedOrigin: this.deps.rp.origin,
        expectedRPID: this.deps.rp.id,
        credential: {
          id: passkey.credentialId,
          publicKey: Buffer.from(passkey.publicKey, 'base64url'),
          counter: passkey.counter,
          transports: passkey.transports,
        },
        requireUserVerification: pending.purpose === 'login',
      });
    } catch (err) {
      this.deps.logger.info({ reason: (err as Error).message, accountId: account.id }, 'passkey assertion refused');
      return refuse('not-verified');
    }
    if (!verified.verified) return refuse('not-verified');
    const info = verified.authenticationInfo;
    await this.deps.accounts.savePasskey(account.id, {
      ...passkey,
      counter: info.newCounter,
      lastUsedAt: Date.now(),
      backedUp: info.credentialBackedUp,
      deviceType: info.credentialDeviceType,
    });
    const before = pending.amr ?? [];
    const amr = [...before, info.credentialDeviceType === 'multiDevice' ? 'swk' : 'hwk'];
    if (info.userVerified) amr.push('user');
    if (info.userVerified || before.length > 0) amr.push('mfa');
    return { ok: true, value: { account, amr, acr: 'urn:portcullis:mfa' } };
  }

  /** Renames one of the account's passkeys; false when it has none with that id. */
  async rename(accountId: string, credentialId: string, name: string): Promise<boolean> {
    const passkey = (await this.list(accountId)).find((p) => p.credentialId === credentialId);
    const clean = name.trim().slice(0, MAX_PASSKEY_NAME);
    if (!passkey || !clean) return false;
    await this.deps.accounts.savePasskey(accountId, { ...passkey, name: clean });
    return true;
  }

  /** Deletes one of the account's passkeys; false when it has none with that id. */
  remove(accountId: string, credentialId: string): Promise<boolean> {
    return this.deps.accounts.deletePasskey(accountId, credentialId);
  }
}
