/**
 * Relying-party side of SPEC "Authentication": a client backend that receives an access token from the browser
 * together with user data (implicit flow, or a mobile app posting what it got) must check that the token is
 * valid, was issued to this client, and belongs to the user the posted data describes, before opening a
 * session. Otherwise any token the attacker holds for *any* client (or for their own account) logs them in as
 * whoever they name.
 */

import { PortcullisError } from '../core/errors.js';

/** Why {@link verifyAccessTokenForUser} refused the pairing; stable, switchable. */
export type TokenPairingErrorCode =
  | 'ERR_TOKEN_INACTIVE'
  | 'ERR_TOKEN_OTHER_CLIENT'
  | 'ERR_TOKEN_OTHER_USER'
  | 'ERR_TOKEN_MISSING_SCOPE'
  | 'ERR_INTROSPECTION_FAILED';

/**
 * Thrown by {@link verifyAccessTokenForUser}; `message` never contains the token. A {@link PortcullisError}
 * (status 500, not exposed); for `ERR_INTROSPECTION_FAILED`, `cause` is the failed request's error.
 */
export class TokenPairingError extends PortcullisError {
  declare readonly code: TokenPairingErrorCode;

  constructor(code: TokenPairingErrorCode, message: string, options?: ErrorOptions) {
    super(code, message, options);
  }
}

/** Options of {@link verifyAccessTokenForUser}. */
export interface VerifyAccessTokenOptions {
  /**
   * The authorization server's issuer URL (its `/token/introspection` endpoint is used unless `introspectionEndpoint`
   * is given).
   */
  issuer: string;
  /** RFC 7662 introspection endpoint; defaults to `${issuer}/token/introspection`. */
  introspectionEndpoint?: string;
  /** This client's `client_id`; the token must have been issued to it. */
  clientId: string;
  /**
   * This client's secret, sent with HTTP Basic (`client_secret_basic`, RFC 6749 §2.3.1). Omit it for a public
   * client (`token_endpoint_auth_method: 'none'`): `client_id` is then sent in the body.
   */
  clientSecret?: string;
  /** The access token the browser posted. */
  accessToken: string;
  /**
   * What the browser claimed about the user. `sub` is compared with the token's subject; any other member
   * (`email`, …) is compared with the userinfo response fetched with the token itself (OIDC Core §5.3), so a
   * token of user A cannot be paired with the e-mail of user B.
   */
  claimed: { sub?: string; email?: string; [claim: string]: unknown };
  /** Scopes the token must carry (e.g. `['openid', 'email']`). @default [] */
  requiredScopes?: string[];
  /** Userinfo endpoint for claims other than `sub`; defaults to `${issuer}/userinfo`. */
  userinfoEndpoint?: string;
  /** The fetch implementation. @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** What a verified pairing returns. */
export interface VerifiedUser {
  /** The token's subject (`sub`). */
  sub: string;
  /** Scopes the token carries. */
  scopes: string[];
  /** Expiry of the token, epoch seconds. */
  exp?: number;
  /** Userinfo claims, when claims other than `sub` were checked. */
  claims?: Record<string, unknown>;
}

/**
 * Verifies that `accessToken` is active (RFC 7662 introspection, authenticated as this client), was issued to
 * `clientId` (`client_id` of the introspection response; a token issued to another client is refused even when
 * the server would let this client introspect it), carries `requiredScopes`, and belongs to the user described
 * by `claimed`.
 *
 * @example
 * ```ts
 * const user = await verifyAccessTokenForUser({
 *   issuer: 'https://auth.example.com', clientId: 'my-app', clientSecret: process.env.SECRET!,
 *   accessToken: req.body.access_token, claimed: { email: req.body.email }, requiredScopes: ['openid', 'email'],
 * });
 * session.userId = user.sub;
 * ```
 * @throws {TokenPairingError} `ERR_TOKEN_INACTIVE`, `ERR_TOKEN_OTHER_CLIENT`, `ERR_TOKEN_MISSING_SCOPE`,
 *   `ERR_TOKEN_OTHER_USER`, or `ERR_INTROSPECTION_FAILED` (the server could not be asked; fail closed).
 */
export async function verifyAccessTokenForUser(options: VerifyAccessTokenOptions): Promise<VerifiedUser> {
  const doFetch = options.fetch ?? globalThis.fetch;
  const issuer = options.issuer.replace(/\/$/, '');
  const introspection = await introspect(options, issuer, doFetch);
  const { sub, scopes } = checkIntrospection(introspection, options);
  const { sub: claimedSub, ...otherClaims } = options.claimed;
  if (claimedSub !== undefined && claimedSub !== sub) {
    throw new TokenPairingError('ERR_TOKEN_OTHER_USER', 'the access token belongs to another user');
  }
  const verified: VerifiedUser = {
    sub,
    scopes,
    exp: typeof introspection.exp === 'number' ? introspection.exp : undefined,
  };
  const toCompare = Object.entries(otherClaims).filter(([, v]) => v !== undefined);
  if (toCompare.length === 0) return verified;

  const claims = await fetchUserinfo(options, issuer, doFetch);
  if (claims.sub !== sub || toCompare.some(([k, v]) => claims[k] !== v)) {
    throw new TokenPairingError('ERR_TOKEN_OTHER_USER', 'the access token belongs to another user');
  }
  return { ...verified, claims };
}

/** RFC 7662 introspection of the token, authenticated as this client (Basic, or `client_id` for a public one). */
async function introspect(
  options: VerifyAccessTokenOptions,
  issuer: string,
  doFetch: typeof fetch,
): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  const form = new URLSearchParams({ token: options.accessToken, token_type_hint: 'access_token' });
  if (options.clientSecret === undefined) {
    form.set('client_id', options.clientId);
  } else {
    const basic = Buffer.from(
      `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`,
    ).toString('base64');
    headers.authorization = `Basic ${basic}`;
  }
  try {
    const res = await doFetch(options.introspectionEndpoint ?? `${issuer}/token/introspection`, {
      method: 'POST',
      headers,
      body: form,
    });
    if (!res.ok)
      throw new TokenPairingError(
        'ERR_INTROSPECTION_FAILED',
        `token introspection failed: introspection answered HTTP ${res.status}`,
      );
    return (await res.json()) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof TokenPairingError) throw err;
    throw new TokenPairingError('ERR_INTROSPECTION_FAILED', `token introspection failed: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/** The introspection answer: an active access token with a subject, issued to this client, with the scopes. */
function checkIntrospection(
  introspection: Record<string, unknown>,
  options: VerifyAccessTokenOptions,
): { sub: string; scopes: string[] } {
  if (introspection.active !== true || typeof introspection.sub !== 'string') {
    throw new TokenPairingError('ERR_TOKEN_INACTIVE', 'the access token is not active');
  }
  if (introspection.client_id !== options.clientId) {
    throw new TokenPairingError('ERR_TOKEN_OTHER_CLIENT', 'the access token was issued to another client');
  }
  if (
    introspection.token_type !== undefined &&
    introspection.token_type !== 'Bearer' &&
    introspection.token_type !== 'access_token'
  ) {
    throw new TokenPairingError('ERR_TOKEN_INACTIVE', 'the token is not an access token');
  }
  const scopes = typeof introspection.scope === 'string' ? introspection.scope.split(' ').filter(Boolean) : [];
  const missing = (options.requiredScopes ?? []).filter((s) => !scopes.includes(s));
  if (missing.length)
    throw new TokenPairingError('ERR_TOKEN_MISSING_SCOPE', `the access token lacks scope: ${missing.join(' ')}`);
  return { sub: introspection.sub, scopes };
}

/** The userinfo claims, fetched with the token itself (OpenID Connect Core §5.3). */
async function fetchUserinfo(
  options: VerifyAccessTokenOptions,
  issuer: string,
  doFetch: typeof fetch,
): Promise<Record<string, unknown>> {
  try {
    const res = await doFetch(options.userinfoEndpoint ?? `${issuer}/userinfo`, {
      headers: { authorization: `Bearer ${options.accessToken}`, accept: 'application/json' },
    });
    if (!res.ok)
      throw new TokenPairingError(
        'ERR_INTROSPECTION_FAILED',
        `userinfo request failed: userinfo answered HTTP ${res.status}`,
      );
    return (await res.json()) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof TokenPairingError) throw err;
    throw new TokenPairingError('ERR_INTROSPECTION_FAILED', `userinfo request failed: ${(err as Error).message}`, {
      cause: err,
    });
  }
}
