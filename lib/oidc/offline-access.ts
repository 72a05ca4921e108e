/**
 * `offline_access` without `prompt=consent`: the authorization endpoint's pre-middleware that lets a code request
 * ask for a refresh token without forcing the consent page on every sign-in, and the marker it leaves for the
 * interaction's consent step (lib/oidc/interaction/show.ts, consent.ts).
 */

/** Internal marker of {@link allowOfflineAccessWithoutPromptConsent}; never taken from the client. */
export const OFFLINE_MARKER = 'portcullis_offline';

/**
 * oidc-provider drops `offline_access` unless `prompt=consent` is present (OIDC Core §11 allows "other
 * conditions ... permitting offline access"). For a code request that asks for `offline_access` without any
 * `prompt`, we add `prompt=consent` plus a marker, and the consent step then skips its page when the user's
 * remembered consent already covers every requested scope. A client that sends `prompt` itself is untouched.
 */
export function allowOfflineAccessWithoutPromptConsent(authorizationPath: string) {
  return async function offlineAccessPrompt(
    ctx: { path: string; method: string; query: Record<string, unknown>; querystring: string },
    next: () => Promise<unknown>,
  ) {
    if (ctx.method === 'GET' && ctx.path === authorizationPath) {
      const params = new URLSearchParams(ctx.querystring);
      params.delete(OFFLINE_MARKER);
      const scope = params.get('scope')?.split(' ') ?? [];
      if (
        scope.includes('offline_access') &&
        !params.has('prompt') &&
        params.get('response_type')?.split(' ').includes('code')
      ) {
        params.set('prompt', 'consent');
        params.set(OFFLINE_MARKER, '1');
      }
      ctx.querystring = params.toString();
    }
    return next();
  };
}
