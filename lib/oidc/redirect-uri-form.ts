/** Why port 0 is refused wherever a URI is a destination (a redirect, a fetch, a link). */
export const PORT_ZERO = 'port 0, which is not a destination: no server listens on it (RFC 6335 §6 reserves it)';

/**
 * The host and port as written in an `http(s)://` URI: the authority without userinfo, split at the port's `:`
 * (an IPv6 literal keeps its brackets); the host lower-cased as a URL parser lower-cases names, the port as written
 * (`undefined` when there is no `:`).
 */
function writtenAuthority(value: string): { host: string; port?: string } {
  const authority = /^https?:\/\/([^/?#]*)/i.exec(value)![1]!;
  const hostAndPort = authority.slice(authority.lastIndexOf('@') + 1);
  const hostEnd = hostAndPort.startsWith('[') ? hostAndPort.indexOf(']') + 1 : hostAndPort.search(/:[0-9]*$/);
  if (hostEnd <= 0 || hostEnd === hostAndPort.length) return { host: hostAndPort.toLowerCase() };
  return { host: hostAndPort.slice(0, hostEnd).toLowerCase(), port: hostAndPort.slice(hostEnd + 1) };
}

/** Why a port written otherwise than a URL parser writes it is refused (see {@link redirectUriFormProblem}). */
function portSpellingProblem(written: string, url: URL): string {
  if (url.port !== '')
    return `writes its port as ":${written}", which a URL parser reads as ${url.port}; write the port as ${url.port}`;
  const without = `${url.protocol}//${url.host}${url.pathname}${url.search}`;
  return (
    `writes the port ":${written}", which a URL parser drops ` +
    `(${written === '' ? 'an empty port' : `the default port of ${url.protocol.slice(0, -1)}`}): ` +
    `the browser lands on ${without}, and a relying party that takes redirect_uri from the callback URL then ` +
    `sends that spelling, ` +
    `which exact matching refuses; write ${without}`
  );
}

/**
 * Forms of a redirect URI that a URL parser reads as another host or path than the text says. Redirect URIs are
 * stored and compared as sent, but oidc-provider builds the redirect with WHATWG `new URL()`, which reads
 * `https:evil.example/cb`, `https:/evil.example/cb` and `https:///evil.example/cb` as `https://evil.example/cb`
 * and removes dot-segments (`https://rp.example/a/../cb`, also spelled `%2e%2e`, is sent to `/cb`). So the
 * registered text named no host, or another path, than the one that received the code.
 *
 * The host must be written as the parser reads it (letter case aside): it turns `127.1`, `0x7f.0.0.1`, `0177.0.0.1`
 * and `2130706433` into `127.0.0.1`, `[::ffff:127.0.0.1]` into `[::ffff:7f00:1]`, `[0:0:0:0:0:0:0:1]` into `[::1]`
 * and `rp%2Eexample` into `rp.example`. Such a spelling is refused rather than judged by what it becomes (the safer
 * of the two): the loopback rule (RFC 8252 §7.3: `127.0.0.1` and `[::1]`), oidc-provider's loopback port matching
 * and anyone reading the registration then all see the host the browser is sent to, and no second reading of an
 * address is needed. Before, `http://127.1/cb` passed as loopback while `http://[::ffff:127.0.0.1]/cb` did not.
 *
 * Port 0 is refused too: no server listens on it (RFC 6335 §6 reserves it), so a redirect there is never a
 * destination. So is a port written otherwise than the parser writes it: `https://rp.example:443/cb` (the default
 * port, also `:0443` or an empty `:`) is sent to `https://rp.example/cb`, so a relying party that takes the
 * redirect_uri of its code exchange from the callback URL (openid-client does) sends the spelling that was not
 * registered and gets `invalid_grant`, and sending it at the authorization endpoint gets `invalid_redirect_uri`;
 * `:08080` is read as `8080`. Refused, as a non-canonical host is.
 *
 * @returns what is wrong, in words, or `undefined`
 * @example redirectUriFormProblem('https:///evil.example/cb') // 'must name its host right after "https://" ...'
 * @example redirectUriFormProblem('http://127.1/cb') // 'writes its host as "127.1", which a URL parser reads as …'
 * @example redirectUriFormProblem('https://rp.example:443/cb') // 'writes the port ":443", which a URL parser …'
 */
export function redirectUriFormProblem(value: string, url: URL): string | undefined {
  const scheme = url.protocol.slice(0, -1);
  const web = scheme === 'https' || scheme === 'http';
  if (web && !/^https?:\/\/[^/?#]/i.test(value)) {
    return `must name its host right after "${scheme}://" (RFC 9110 §4.2); a URL parser reads it as ${url.origin}`;
  }
  const written = web ? writtenAuthority(value) : undefined;
  if (written && written.host !== url.hostname) {
    return (
      `writes its host as ${JSON.stringify(written.host)}, which a URL parser reads as ${url.hostname}; write ` +
      `the host as ${url.hostname}`
    );
  }
  if (web && url.port === '0') return `names ${PORT_ZERO}`;
  if (written?.port !== undefined && (written.port !== url.port || url.port === ''))
    return portSpellingProblem(written.port, url);
  const path = value.replace(/^[a-z][a-z0-9+.-]*:(\/\/[^/?#]*)?/i, '').split(/[?#]/, 1)[0]!;
  const dotSegment = path.split('/').some((s) => ['.', '..'].includes(s.replace(/%2e/gi, '.')));
  if (dotSegment)
    return (
      'must not contain "." or ".." path segments (RFC 3986 §5.2.4): a URL parser removes them, so the code ' +
      'would go to another path'
    );
  return undefined;
}
