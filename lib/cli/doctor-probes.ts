/** `portcullis doctor --url`: the requests after discovery, to the key set and to the authorization endpoint. */
import { createHash, randomBytes } from 'node:crypto';
import { type Finding, ok, problem, warning } from './finding.js';

/** The published key set: it answers JSON, and every key has a `kid`. */
export async function checkPublishedKeys(jwksUri: string, timeoutMs: number): Promise<Finding[]> {
  try {
    const res = await fetch(jwksUri, { signal: AbortSignal.timeout(timeoutMs) });
    const jwks = (await res.json()) as { keys?: Array<{ kid?: string }> };
    const withoutKid = jwks.keys?.filter((k) => !k.kid).length ?? 0;
    return [
      withoutKid
        ? problem(
            'keys-without-kid',
            `${withoutKid} published key(s) have no "kid"`,
            'give every signing key a unique kid',
          )
        : ok('jwks', `${jwks.keys?.length ?? 0} published key(s), each with a kid`),
    ];
  } catch (err) {
    return [
      problem(
        'jwks-failed',
        `jwks_uri ${jwksUri} did not answer a JSON key set: ${(err as Error).message}`,
        'check the proxy routes /jwks to the server',
      ),
    ];
  }
}

/** Starts an authorization request (code, PKCE) with a configured client and looks at the cookies it sets. */
export async function checkCookies(
  endpoint: string,
  clientId: string,
  redirectUri: string,
  timeoutMs: number,
): Promise<Finding> {
  const target = new URL(endpoint);
  const verifier = randomBytes(32).toString('base64url');
  target.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid',
    state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  try {
    const res = await fetch(target, { redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    const cookies = res.headers.getSetCookie();
    if (!cookies.length)
      return warning(
        'cookies-unchecked',
        `the authorization endpoint answered ${res.status} without cookies for client ${clientId}: could not ` +
          `check the Secure flag`,
        'pass a config whose first client is registered on this deployment',
      );
    const insecure = cookies.filter((c) => !/;\s*secure/i.test(c)).map((c) => c.split('=')[0]);
    return insecure.length
      ? problem(
          'cookies-not-secure',
          `cookies without Secure over https: ${insecure.join(', ')} (the server thinks it is on plain http)`,
          'set proxy: true behind a TLS-terminating proxy',
        )
      : ok('cookies-secure', `${cookies.length} cookie(s) set by the authorization endpoint, all Secure`);
  } catch (err) {
    return warning(
      'cookies-unchecked',
      `the authorization endpoint did not answer: ${(err as Error).message}`,
      'check the deployment',
    );
  }
}
