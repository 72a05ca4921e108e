/** Paths of the account pages. */
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
