import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, EmbeddedJWK, errors as joseErrors, jwtVerify, type JWK } from 'jose';
import { PortcullisError } from '../core/errors.js';
import { createLimiter, type Limiter, type LimiterBackend } from '../core/limiter.js';
import { DPOP_ALGORITHMS } from '../core/dpop-algorithms.js';

/** A DPoP proof is not acceptable (RFC 9449 §7.1 `invalid_dpop_proof`); `code` `ERR_DPOP_PROOF_INVALID`, status 401. */
export class InvalidDpopProofError extends PortcullisError {
  static readonly code = 'ERR_DPOP_PROOF_INVALID';
  declare readonly code: 'ERR_DPOP_PROOF_INVALID';
  readonly error = 'invalid_dpop_proof';

  constructor(message: string, options?: ErrorOptions) {
    super(InvalidDpopProofError.code, message, { ...options, status: 401 });
  }
}

/**
 * Remembers proof `jti`s for their acceptance window so a captured proof cannot be replayed (RFC 9449 §11.1).
 * Counted in the server's limiter backend (one point per `jti`): in memory by default, in Redis when the storage is
 * Redis, so a proof used at one instance is refused at every other.
 */
export class DpopReplayCache {
  /** Longer than any proof's acceptance window (`iat` up to 300 s old, 60 s of clock skew ahead). */
  static readonly WINDOW_SECONDS = 420;
  readonly #seen: Limiter;

  constructor(backend?: LimiterBackend) {
    this.#seen = createLimiter('dpop-jti', { points: 1, durationSeconds: DpopReplayCache.WINDOW_SECONDS }, backend);
  }

  /** Records `jti`; `false` when it was already seen within the window. */
  async add(jti: string): Promise<boolean> {
    return (await this.#seen.consume(jti)).allowed;
  }
}

/** What the proof must match. */
export interface DpopExpectation {
  /** The `DPoP` request header (one JWT). */
  proof: string | string[] | undefined;
  /** HTTP method of the request (`htm`). */
  method: string;
  /** Request URL without query and fragment (`htu`). */
  url: string;
  /** The access token presented, for `ath`. */
  accessToken: string;
  /** The token's `cnf.jkt` (JWK SHA-256 thumbprint, RFC 7638). */
  jkt: string;
  replay: DpopReplayCache;
  /** Accepted age of `iat`, seconds. @default 300 */
  maxAgeSeconds?: number;
}

/**
 * Validates a DPoP proof for a protected-resource request (RFC 9449 §4.3 and §7.1): one well-formed JWT with
 * `typ: dpop+jwt`, an asymmetric `alg`, a public `jwk` that verifies the signature and whose thumbprint is the
 * token's `cnf.jkt`; `htm`/`htu` equal to this request; a fresh `iat`; an unseen `jti`; `ath` equal to the
 * SHA-256 of the access token.
 *
 * @throws {InvalidDpopProofError} naming the check that failed.
 */
export async function verifyDpopProof(expect: DpopExpectation): Promise<void> {
  const fail = (why: string, cause?: unknown): never => {
    throw new InvalidDpopProofError(why, cause === undefined ? undefined : { cause });
  };
  if (expect.proof === undefined) fail('a DPoP-bound access token needs a DPoP proof header');
  if (Array.isArray(expect.proof) || typeof expect.proof !== 'string' || expect.proof.includes(','))
    fail('send exactly one DPoP proof');
  const maxAge = expect.maxAgeSeconds ?? 300;
  let payload: Record<string, unknown>;
  let jwk: JWK;
  try {
    const verified = await jwtVerify(expect.proof as string, EmbeddedJWK, {
      typ: 'dpop+jwt',
      algorithms: [...DPOP_ALGORITHMS],
    });
    payload = verified.payload as Record<string, unknown>;
    jwk = verified.protectedHeader.jwk!;
  } catch (err) {
    if (err instanceof joseErrors.JOSEError)
      return fail('the DPoP proof is not a valid signed dpop+jwt with a public jwk', err);
    throw err;
  }
  if (typeof payload.jti !== 'string' || payload.jti.length < 8) fail('the DPoP proof has no jti');
  if (payload.htm !== expect.method) fail('the DPoP proof htm does not match the request method');
  let htu: URL | undefined;
  try {
    htu = new URL(String(payload.htu));
  } catch {
    fail('the DPoP proof htu is not a URL');
  }
  htu!.search = '';
  htu!.hash = '';
  if (htu!.href !== new URL(expect.url).href) fail('the DPoP proof htu does not match the request URL');
  const now = Math.floor(Date.now() / 1000);
  if (typeof payload.iat !== 'number' || payload.iat > now + 60 || payload.iat < now - maxAge)
    fail('the DPoP proof iat is not recent');
  const ath = createHash('sha256').update(expect.accessToken).digest('base64url');
  if (payload.ath !== ath) fail('the DPoP proof ath does not match the access token');
  if ((await calculateJwkThumbprint(jwk!, 'sha256')) !== expect.jkt)
    fail('the DPoP proof key is not the key the token is bound to');
  if (!(await expect.replay.add(`${payload.jti}|${ath}`))) fail('the DPoP proof was already used');
}
