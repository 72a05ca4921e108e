/**
 * The paths under `/account` of the self-service flows ({@link ACCOUNT_PATHS}) and the signed-in account page
 * ({@link HOME_PATHS}); the features' own pages and forms under `/account` are theirs (`lib/features/<id>/paths.ts`).
 * All are under
 * the issuer's path when it has one (`mountedPath`).
 */

/** The path every account form's CSRF token is issued for (one token, one cookie path, for all forms of `/account`). */
export const ACCOUNT_CSRF_SCOPE = '/account';

/** Paths of the signed-in account page. */
export const HOME_PATHS = Object.freeze({
  home: '/account',
  callback: '/account/callback',
  signOutOthers: '/account/sessions/others',
  /** One session's "Sign out" (field `session`: the handle of its id). */
  sessionEnd: '/account/sessions/end',
  password: '/account/password',
  /** One connected application's "Revoke" (field `app`: the handle of its client id). */
  appsRevoke: '/account/apps/revoke',
});

/** Paths of the self-service account pages. */
export const ACCOUNT_PATHS = Object.freeze({
  signup: '/account/signup',
  verify: '/account/verify',
  resend: '/account/resend',
  reset: '/account/reset',
  resetConfirm: '/account/reset/confirm',
  changeEmail: '/account/email',
});

/** The form of an oidc-provider interaction uid we accept in a link or form field. */
export const INTERACTION_UID = /^[\w-]{1,64}$/;

/** The path of a pending login (`/interaction/<uid>`) to offer after a mail link, if `uid` is well-formed. */
export function returnToFor(uid: unknown): string | undefined {
  return typeof uid === 'string' && INTERACTION_UID.test(uid) ? `/interaction/${uid}` : undefined;
}

/** `path` with `?interaction=<uid>` when `uid` is well-formed, so the account page can lead back to the login. */
export function withInteraction(path: string, uid?: string): string {
  return uid && INTERACTION_UID.test(uid) ? `${path}?interaction=${encodeURIComponent(uid)}` : path;
}
