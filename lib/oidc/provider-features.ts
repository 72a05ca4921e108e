/**
 * oidc-provider's `features` as Portcullis sets them: which of its optional endpoints and behaviours are on, and
 * with which of our policies (token ownership for introspection and revocation, logout pages, resource servers).
 */
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { PrivateJwks, ResolvedConfig } from '../../config/types.js';
import { logoutSource, postLogoutSuccessSource } from './logout-pages.js';
import { resourceIndicators } from './resource-server.js';
import type { ScopePolicy } from './scope-policy.js';

/**
 * The introspection and revocation `allowedPolicy`: whether the token was issued to the authenticated caller.
 * Explicit for revocation too: oidc-provider's default answers a confidential client presenting another client's
 * live token `400 invalid_request` (while an unknown token gets 200, so the answer told live tokens from dead
 * ones) and prints a console NOTICE on first use.
 */
async function issuedToCaller(
  _ctx: KoaContextWithOIDC,
  client: { clientId: string },
  token: { clientId?: string },
): Promise<boolean> {
  return token.clientId === client.clientId;
}

/** oidc-provider's `features`: what is on, and with which of our policies. */
export function providerFeatures(
  config: ResolvedConfig,
  scopes: ScopePolicy,
  signingKeys: PrivateJwks,
): Configuration['features'] {
  return {
    devInteractions: { enabled: false },
    // Dynamic registration: the registration feature turns it on (lib/features/registration).
    registration: { enabled: false },
    registrationManagement: { enabled: false, rotateRegistrationAccessToken: true },
    // RFC 7662 §2.2 / RFC 7009 §2.2: a client may introspect or revoke only tokens issued to itself; another
    // client's token is answered as an unknown one (`active: false`; revocation 200 and the token left alive).
    introspection: { enabled: true, allowedPolicy: issuedToCaller },
    revocation: { enabled: true, allowedPolicy: issuedToCaller },
    // Encrypted userinfo (OIDC Registration §2 userinfo_encrypted_response_*); RSA1_5 is refused by the policy.
    encryption: { enabled: true },
    jwtUserinfo: { enabled: config.openid },
    userinfo: { enabled: config.openid },
    rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource },
    resourceIndicators: resourceIndicators(config, scopes.all, signingKeys),
    // RFC 9101 request objects by value; oidc-provider applies RFC 9101 §5 (outer parameters ignored).
    requestObjects: { enabled: true },
    webMessageResponseMode: config.webMessageResponseMode
      ? { enabled: true, ack: 'individual-draft-01' }
      : { enabled: false },
  };
}
