/**
 * What an `Authorization` request header holds, read once for every endpoint that takes access tokens (userinfo,
 * GraphQL), so that both tell a client the same thing about the same mistake.
 *
 * - `token`: `<Bearer|DPoP> 1*SP <token68>` (RFC 6750 §2.1, RFC 9449 §7.1; the scheme in any case, RFC 9110
 *   §11.1), with the scheme written as Portcullis names it and the token;
 * - `malformed`: a Bearer or DPoP header that is not that, or an empty header: `invalid_request` (RFC 6750 §3.1);
 * - `other-scheme`: credentials in another scheme (`Basic`, …), which RFC 6750 §3.1 answers with a bare challenge.
 *
 * `description` is an `error_description` (RFC 6749 §5.2 characters only: no `"` or `\`) that says what was wrong
 * and what to send. It never quotes the token; it quotes the scheme only when it is a short HTTP token.
 */
export type AuthorizationHeader =
  | { kind: 'token'; scheme: 'Bearer' | 'DPoP'; token: string }
  | { kind: 'malformed'; description: string }
  | { kind: 'other-scheme'; description: string };

const SEND = 'send `Authorization: Bearer <access token>`';
/** An auth-scheme (RFC 9110 §11.1: a token), short enough to repeat in an answer. */
const SCHEME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$/;
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Reads an `Authorization` header value (as Node hands it over: surrounding whitespace already removed).
 *
 * @example
 * readAuthorizationHeader('Bearer');
 * // { kind: 'malformed', description: "the Authorization header has the scheme 'Bearer' but no token: send
 * //   `Authorization: Bearer <access token>`" }
 */
export function readAuthorizationHeader(header: string): AuthorizationHeader {
  const value = header.trim();
  if (value === '') return { kind: 'malformed', description: `the Authorization header is empty: ${SEND}` };
  const schemeEnd = value.search(/[\s,]/);
  const written = schemeEnd === -1 ? value : value.slice(0, schemeEnd);
  const lower = written.toLowerCase();
  if (lower !== 'bearer' && lower !== 'dpop') {
    const named = SCHEME.test(written) ? `the scheme '${written}'` : 'an unknown scheme';
    return {
      kind: 'other-scheme',
      description: `the Authorization header uses ${named}, which this endpoint does not take: ${SEND}`,
    };
  }
  const scheme = lower === 'dpop' ? 'DPoP' : 'Bearer';
  const rest = value.slice(written.length);
  const malformed = (what: string) => ({ kind: 'malformed' as const, description: `the Authorization header ${what}` });
  if (rest === '') return malformed(`has the scheme '${written}' but no token: ${SEND}`);
  if (!rest.startsWith(' ')) return malformed(`must separate the scheme '${written}' from the token with a space`);
  const token = rest.replace(/^ +/, '');
  if (/[\s,]/.test(token))
    return malformed(
      `has more than one value after the scheme '${written}': send one access token, without spaces or commas`,
    );
  if (!TOKEN68.test(token)) {
    return malformed(
      'has a token with a character no access token has: RFC 6750 section 2.1 allows letters, digits, - . _ ' +
        '~ + / and trailing =',
    );
  }
  return { kind: 'token', scheme, token };
}
