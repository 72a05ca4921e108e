import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JSONWebKeySet } from 'jose';
import type Provider from 'oidc-provider';
import { readAuthorizationHeader } from '../core/authorization-header.js';
import { PortcullisError } from '../core/errors.js';
import { DpopReplayCache, InvalidDpopProofError, verifyDpopProof } from './dpop.js';

/**
 * Who is calling the GraphQL API, from a validated OAuth 2.0 access token (RFC 6750), with the member names of
 * token introspection (RFC 7662 §2.2), as `verifyAccessTokenForUser` of `portcullis/rp` returns them.
 */
export interface AuthInfo {
  /** The end-user's subject identifier (`sub`). */
  sub: string;
  /** The client the token was issued to (`client_id`). */
  client_id: string;
  /** Scopes the token carries, space-separated (`scope`, RFC 6749 §3.3). */
  scope: string;
  /** The same scopes as a list (`scope` split on spaces), for `includes` checks; see {@link hasScope}. */
  scopes: readonly string[];
}

/** Context handed to every resolver. `auth` is `null` for anonymous requests. */
export interface GraphqlContext {
  auth: AuthInfo | null;
  /** Client IP as Koa sees it (`X-Forwarded-For` only with `proxy: true`); the anonymous rate-limit key. */
  ip?: string;
}

/**
 * A token was presented but is not usable here, as RFC 6750 §3.1 and RFC 9449 §7.1 sort it (`error`):
 * - `invalid_token` (401): unknown, expired, revoked, for another audience, wrongly bound;
 * - `invalid_dpop_proof` (401): the DPoP proof of a bound token;
 * - `invalid_request` (400): a malformed `Authorization: Bearer`/`DPoP` header, or a token in the URL query;
 * - `null` (401): another authentication scheme (`Basic`, …), which §3.1 answers without an error code.
 * `code` is `ERR_DPOP_PROOF_INVALID` for a proof, else `ERR_ACCESS_TOKEN_INVALID`; `cause` is the jose or DPoP error.
 */
export class InvalidTokenError extends PortcullisError {
  declare readonly code: 'ERR_ACCESS_TOKEN_INVALID' | 'ERR_DPOP_PROOF_INVALID';

  constructor(
    message: string,
    readonly error: 'invalid_token' | 'invalid_dpop_proof' | 'invalid_request' | null = 'invalid_token',
    options?: ErrorOptions,
  ) {
    super(error === 'invalid_dpop_proof' ? 'ERR_DPOP_PROOF_INVALID' : 'ERR_ACCESS_TOKEN_INVALID', message, {
      ...options,
      status: error === 'invalid_request' ? 400 : 401,
    });
  }
}

/** A token from an `Authorization` header and its scheme. */
export interface PresentedToken {
  scheme: 'Bearer' | 'DPoP';
  token: string;
}

/**
 * Extracts the token of an `Authorization: Bearer` (RFC 6750 §2.1) or `Authorization: DPoP` (RFC 9449 §7.1)
 * header (see {@link readAuthorizationHeader}). `undefined` when absent.
 *
 * @throws {InvalidTokenError} `invalid_request` (400) for an empty header or a Bearer or DPoP header that is not
 *   `<scheme> <token68>` (no token, two tokens, a list of credentials, characters outside token68), with the
 *   description userinfo gives on the same server; `null` (401, no error code: RFC 6750 §3.1) for another scheme.
 */
export function bearerToken(header: string | undefined): PresentedToken | undefined {
  if (header === undefined) return undefined;
  const read = readAuthorizationHeader(header);
  if (read.kind === 'token') return { scheme: read.scheme, token: read.token };
  throw new InvalidTokenError(read.description, read.kind === 'malformed' ? 'invalid_request' : null);
}

/** How access tokens are verified at the GraphQL endpoint. */
export interface TokenVerification {
  provider: Provider;
  /** Issuer of JWT access tokens (`iss`). */
  issuer: string;
  /** This API's resource indicator: the only audience accepted (RFC 8707). */
  resource: string;
  /** Public keys of the issuer (RFC 9068 §4: JWT access tokens are verified against them, no storage lookup). */
  jwks: JSONWebKeySet;
  /** `jti` cache of DPoP proofs. */
  replay: DpopReplayCache;
}

/** The request a token arrives with, for DPoP (RFC 9449 §4.3). */
export interface PresentationContext {
  scheme: 'Bearer' | 'DPoP';
  proof: string | string[] | undefined;
  method: string;
  /** Request URL without query. */
  url: string;
}

const keySets = new WeakMap<JSONWebKeySet, ReturnType<typeof createLocalJWKSet>>();

async function checkBinding(
  v: TokenVerification,
  token: string,
  jkt: string | undefined,
  how: PresentationContext | undefined,
) {
  if (!jkt) {
    if (how?.scheme === 'DPoP')
      throw new InvalidTokenError('the access token is not DPoP-bound: use the Bearer scheme');
    return;
  }
  // RFC 9449 §7.1: a bound token is usable only with the DPoP scheme and a proof of its key.
  if (how?.scheme !== 'DPoP')
    throw new InvalidTokenError('the access token is DPoP-bound: use the DPoP scheme with a proof');
  try {
    await verifyDpopProof({
      proof: how.proof,
      method: how.method,
      url: how.url,
      accessToken: token,
      jkt,
      replay: v.replay,
    });
  } catch (err) {
    if (err instanceof InvalidDpopProofError)
      throw new InvalidTokenError(err.message, 'invalid_dpop_proof', { cause: err });
    throw err;
  }
}

function freeze(sub: string, clientId: string, scope: string | undefined): AuthInfo {
  const scopes = Object.freeze((scope ?? '').split(' ').filter(Boolean));
  return Object.freeze({ sub, client_id: clientId, scope: scopes.join(' '), scopes });
}

/** RFC 9068 JWT access token for this API: signature, `typ: at+jwt`, issuer, audience, lifetime, binding. */
async function authenticateJwt(
  v: TokenVerification,
  token: string,
  how: PresentationContext | undefined,
): Promise<AuthInfo> {
  let keys = keySets.get(v.jwks);
  if (!keys) {
    keys = createLocalJWKSet(v.jwks);
    keySets.set(v.jwks, keys);
  }
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, keys, {
      issuer: v.issuer,
      audience: v.resource,
      typ: 'at+jwt',
      requiredClaims: ['exp', 'iat', 'sub', 'client_id'],
    }));
  } catch (err) {
    if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === 'aud')
      throw new InvalidTokenError('the access token is meant for another resource server', 'invalid_token', {
        cause: err,
      });
    if (err instanceof joseErrors.JOSEError)
      throw new InvalidTokenError('the access token is invalid or expired', 'invalid_token', { cause: err });
    throw err;
  }
  const cnf = payload.cnf as { jkt?: unknown; 'x5t#S256'?: unknown } | undefined;
  if (cnf?.['x5t#S256'])
    throw new InvalidTokenError('certificate-bound access tokens are not accepted at this endpoint');
  await checkBinding(v, token, typeof cnf?.jkt === 'string' ? cnf.jkt : undefined, how);
  return freeze(
    String(payload.sub),
    String(payload.client_id),
    typeof payload.scope === 'string' ? payload.scope : undefined,
  );
}

/**
 * Validates an access token for this API. A JWT access token (RFC 9068) is verified against the issuer's keys
 * with audience = this API's resource; an opaque one must exist in storage, be unexpired, belong to a client
 * and a grant that still exist, and have no audience other than this API. A DPoP-bound token (`cnf.jkt`) needs
 * the DPoP scheme and a valid proof (RFC 9449 §7.1); a certificate-bound one is refused.
 *
 * @throws {InvalidTokenError} when the token (or its proof) is not acceptable.
 */
export async function authenticate(
  verification: TokenVerification | Provider,
  token: string,
  how?: PresentationContext,
): Promise<AuthInfo> {
  const v = 'provider' in verification ? verification : undefined;
  const provider = v ? v.provider : (verification as Provider);
  if (v && /^[\w-]+\.[\w-]+\.[\w-]+$/.test(token)) return authenticateJwt(v, token, how);
  const accessToken = await provider.AccessToken.find(token);
  if (!accessToken || accessToken.isExpired) throw new InvalidTokenError('the access token is invalid or expired');
  if (accessToken['x5t#S256'])
    throw new InvalidTokenError('certificate-bound access tokens are not accepted at this endpoint');
  const aud = accessToken.aud as string | string[] | undefined;
  if (aud !== undefined && !(v && (aud === v.resource || (Array.isArray(aud) && aud.includes(v.resource))))) {
    throw new InvalidTokenError('the access token is meant for another resource server');
  }
  if (v) await checkBinding(v, token, accessToken.jkt, how);
  else if (accessToken.jkt) throw new InvalidTokenError('sender-constrained access tokens need a DPoP proof');
  const clientId = accessToken.clientId;
  if (!clientId) throw new InvalidTokenError('the access token has no client');
  const client = await provider.Client.find(clientId);
  if (!client) throw new InvalidTokenError('the client of this access token no longer exists');
  const grant = await provider.Grant.find(accessToken.grantId);
  if (!grant || grant.accountId !== accessToken.accountId || grant.clientId !== clientId) {
    throw new InvalidTokenError('the grant of this access token was revoked');
  }
  if (accessToken.expiresWithSession && accessToken.sessionUid) {
    const session = await provider.Session.findByUid(accessToken.sessionUid);
    if (!session || session.accountId !== accessToken.accountId)
      throw new InvalidTokenError('the session of this access token has ended');
  }
  return freeze(accessToken.accountId, clientId, accessToken.scope);
}

/** Whether the caller's token carries `scope`. */
export function hasScope(auth: AuthInfo | null, scope: string): boolean {
  return auth?.scopes.includes(scope) ?? false;
}
