/**
 * Forms of a redirect URI that a URL parser reads as another host or path than the text says. Redirect URIs are
 * stored and compared as sent, but oidc-provider builds the redirect with WHATWG `new URL()`, which reads
 * `https:evil.example/cb`, `https:/evil.example/cb` and `https:///evil.example/cb` as `https://evil.example/cb`
 * and removes dot-segments (`https://rp.example/a/../cb`, also spelled `%2e%2e`, is sent to `/cb`). So the
 * registered text named no host, or another path, than the one that received the code.
 *
 * @returns what is wrong, in words, or `undefined`
 * @example redirectUriFormProblem('https:///evil.example/cb') // 'must name its host right after "https://" ...'
 */
export function redirectUriFormProblem(value: string, url: URL): string | undefined {
  const scheme = url.protocol.slice(0, -1);
  if ((scheme === 'https' || scheme === 'http') && !/^https?:\/\/[^/?#]/i.test(value)) {
    return `must name its host right after "${scheme}://" (RFC 9110 §4.2); a URL parser reads it as ${url.origin}`;
  }
  const path = value.replace(/^[a-z][a-z0-9+.-]*:(\/\/[^/?#]*)?/i, '').split(/[?#]/, 1)[0]!;
  const dotSegment = path.split('/').some((s) => ['.', '..'].includes(s.replace(/%2e/gi, '.')));
  if (dotSegment) return 'must not contain "." or ".." path segments (RFC 3986 §5.2.4): a URL parser removes them, so the code would go to another path';
  return undefined;
}
