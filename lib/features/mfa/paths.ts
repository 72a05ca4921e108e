/**
 * Paths of the account page's second-factor forms under `/account` (beside lib/accounts/paths.ts `HOME_PATHS`).
 * Under the issuer's path when it has one (`mountedPath`).
 */
export const MFA_PATHS = Object.freeze({
  totpStart: '/account/totp',
  totpConfirm: '/account/totp/confirm',
  totpRemove: '/account/totp/remove',
  recoveryCodes: '/account/recovery-codes',
});
