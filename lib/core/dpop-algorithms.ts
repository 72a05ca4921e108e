/**
 * The algorithms a DPoP proof may be signed with (RFC 9449 §4.3 check 5: asymmetric only, no `none`, no MAC), one
 * list for the whole server: the authorization server advertises it (`dpop_signing_alg_values_supported`) and
 * accepts it at `/token` and `/userinfo` (oidc-provider's `enabledJWA.dPoPSigningAlgValues`), and the GraphQL
 * endpoint accepts it and names it in its DPoP challenges' `algs` (RFC 9449 §7.1). A key the authorization server
 * bound a token to is then always accepted where the token is used. `Ed25519` is the fully-specified name of
 * `EdDSA` with an Ed25519 key (RFC 9864); both are listed, as clients send either.
 */
export const DPOP_ALGORITHMS = ['ES256', 'ES384', 'Ed25519', 'EdDSA', 'PS256', 'RS256'] as const;
