/** Why port 0 is refused wherever a URI is a destination (a redirect, a fetch, a link). */
export const PORT_ZERO = 'port 0, which is not a destination: no server listens on it (RFC 6335 §6 reserves it)';

/**
 * Forms of a redirect URI that a URL parser reads as another host or path than the text says. Redirect URIs are
 * stored and compared as sent, but oidc-provider builds the redirect with WHATWG `new URL()`, which reads
 * `https:evil.example/cb`, `https:/evil.example/cb` and `https:///evil.example/cb` as `https://evil.example/cb`
 * and removes dot-segments (`https://rp.example/a/../cb`, also spelled `%2e%2e`, is sent to `/cb`). So the
 * registered text named no host, or another path, than the one that received the code.
 *
 * Port 0 is refused too: no server listens on it (RFC 6335 §6 reserves it), so a redirect there is never a
 * destination.
 *
 * @returns what is wrong, in words, or `undefined`
 * @example redirectUriFormProblem('https:///evil.example/cb') // 'must name its host right after "https://" ...'
 */
export function redirectUriFormProblem(value: string, url: URL): string | undefined {
  const scheme = url.protocol.slice(0, -1);
  const web = scheme === 'https' || scheme === 'http';
  if (web && !/^https?:\/\/[^/?#]/i.test(value)) {
    return `must name its host right after "${scheme}://" (RFC 9110 §4.2); a URL parser reads it as ${url.origin}`;
  }
  if (web && url.port === '0') return `names ${PORT_ZERO}`;
  const path = value.replace(/^[a-z][a-z0-9+.-]*:(\/\/[^/?#]*)?/i, '').split(/[?#]/, 1)[0]!;
  const dotSegment = path.split('/').some((s) => ['.', '..'].includes(s.replace(/%2e/gi, '.')));
  if (dotSegment) return 'must not contain "." or ".." path segments (RFC 3986 §5.2.4): a URL parser removes them, so the code would go to another path';
  return undefined;
}
