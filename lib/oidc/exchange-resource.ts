import { errors } from 'oidc-provider';

/**
 * oidc-provider's description for more than one `resource` at the token endpoint (`lib/helpers/resolve_resource.js`).
 */
const ONE_RESOURCE = 'only a single resource indicator value must be requested/resolved during Access Token Request';

/**
 * RFC 8707 §2.2 at the token endpoint: a `resource` sent with a code exchange or a refresh must be one the code or
 * refresh token was issued for, and only one. oidc-provider checks that only after it has consumed the code or
 * rotated the refresh token (whose successor it then never hands out), so a mistaken `resource` used them up: the
 * client got `invalid_target`, and its retry with the same code or refresh token counted as a replay and revoked
 * the whole grant. Called from the storage adapter's `consume` of the request's own code or refresh token
 * (`codeExchangeScopeAdapter`, lib/oidc/token-grant-rules.ts), so the refusal comes first and nothing is consumed;
 * the answers are oidc-provider's own (status, error and description).
 *
 * @param requested the request's `resource` parameter: a string, an array when sent more than once, or absent
 * @param held the `resource` stored with the code or refresh token (a string, an array, or absent)
 * @throws oidc-provider's `InvalidTarget` (400 `invalid_target`)
 */
export function refuseResourceNotHeld(requested: unknown, held: unknown): void {
  // oidc-provider acts on a truthy `resource` only (an empty one falls back to the granted resource).
  if (!requested) return;
  if (Array.isArray(requested)) throw new errors.InvalidTarget(ONE_RESOURCE);
  const indicators: unknown[] = Array.isArray(held) ? held : [held];
  if (!indicators.includes(requested)) throw new errors.InvalidTarget();
}
