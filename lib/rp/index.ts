/**
 * `portcullis/rp`: for relying parties (clients) of a Portcullis server, a check that an access token was issued
 * to this client for the signed-in user (RFC 7662 introspection).
 * @packageDocumentation
 */
export {
  verifyAccessTokenForUser,
  TokenPairingError,
  type TokenPairingErrorCode,
  type VerifyAccessTokenOptions,
  type VerifiedUser,
} from './verify-access-token.js';
