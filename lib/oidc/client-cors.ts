/**
 * oidc-provider's `clientBasedCORS` hook: whether a browser request (CORS) from `origin` to an endpoint that acts for
 * `client` (token, userinfo, introspection, revocation, pushed authorization requests) may read the answer. Only
 * the origin of one of the client's http(s) redirect URIs may: the pages that client runs in a browser.
 *
 * An opaque origin (`Origin: null`, sent by sandboxed iframes, `data:` and `file:` documents) is never a client's:
 * a private-use-scheme redirect URI of a native app (`com.example.app:/cb`, RFC 8252 §7.1) has the origin `"null"`
 * too (WHATWG URL, origin of a non-special scheme), and matching the two strings would answer
 * `Access-Control-Allow-Origin: null` to any page an attacker frames in a sandbox.
 *
 * @example clientOriginAllowed('https://rp.example', { redirectUris: ['https://rp.example/cb'] }) // true
 * @example clientOriginAllowed('null', { redirectUris: ['com.example.app:/cb'] }) // false
 */
export function clientOriginAllowed(origin: string, client: { redirectUris?: readonly string[] }): boolean {
  return (
    client.redirectUris?.some((uri) => {
      if (!URL.canParse(uri)) return false;
      const url = new URL(uri);
      return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === origin;
    }) ?? false
  );
}
