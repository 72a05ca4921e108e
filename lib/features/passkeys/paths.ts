/**
 * Paths of the passkey pages under `/account` (beside lib/accounts/paths.ts; the account page links `list`
 * through this feature's section); `script` is our page script (browser-script.ts). Under the issuer's path when it has
 * one (`mountedPath`).
 */
export const PASSKEY_PATHS = Object.freeze({
  list: '/account/passkeys',
  register: '/account/passkeys/register',
  rename: '/account/passkeys/rename',
  remove: '/account/passkeys/delete',
  script: '/account/passkeys/client.js',
});
