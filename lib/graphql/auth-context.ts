import type Provider from 'oidc-provider';

/** Who is calling the GraphQL API, from a validated OAuth 2.0 access token (RFC 6750). */
export interface AuthInfo {
  /** The end-user's subject identifier (`sub`). */
  subject: string;
  /** The client the token was issued to. */
  clientId: string;
  /** Scopes the token carries (RFC 6749 §3.3). */
  scopes: readonly string[];
}

/** Context handed to every resolver. `auth` is `null` for anonymous requests. */
export interface GraphqlContext {
  auth: AuthInfo | null;
}

/** A bearer token was presented but is not valid here (RFC 6750 §3.1 `invalid_token`). */
export class InvalidTokenError extends Error {
  readonly error = 'invalid_token';
}

/** Extracts the token of an `Authorization: Bearer` header (RFC 6750 §2.1). `undefined` when absent. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  if (!match) throw new InvalidTokenError('the Authorization header is not a Bearer token');
  return match[1];
}

/**
 * Validates an access token issued by this provider: it must exist in storage, be unexpired, belong to a
 * client and a grant that still exist, have no audience of another resource server, and not be sender-
 * constrained (DPoP proofs are not checked at this endpoint yet, so a bound token is refused).
 *
 * @throws {InvalidTokenError} when the token is not acceptable.
 */
export async function authenticate(provider: Provider, token: string): Promise<AuthInfo> {
  const accessToken = await provider.AccessToken.find(token);
  if (!accessToken || accessToken.isExpired) throw new InvalidTokenError('the access token is invalid or expired');
  if (accessToken.jkt || accessToken['x5t#S256']) throw new InvalidTokenError('sender-constrained access tokens are not accepted at this endpoint');
  if (accessToken.aud !== undefined) throw new InvalidTokenError('the access token is meant for another resource server');
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
    if (!session || session.accountId !== accessToken.accountId) throw new InvalidTokenError('the session of this access token has ended');
  }
  return Object.freeze({
    subject: accessToken.accountId,
    clientId,
    scopes: Object.freeze((accessToken.scope ?? '').split(' ').filter(Boolean)),
  });
}

/** Whether the caller's token carries `scope`. */
export function hasScope(auth: AuthInfo | null, scope: string): boolean {
  return auth?.scopes.includes(scope) ?? false;
}
