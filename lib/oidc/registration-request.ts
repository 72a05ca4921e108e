/**
 * Checks of a registration request (or configured client) as a whole, across members: what oidc-provider would
 * otherwise drop or rewrite without telling the client. Pure: each returns the description of the first problem,
 * which `registration-policy.ts` turns into `invalid_client_metadata` / `invalid_redirect_uri`.
 */
import { encryptionKeyProblem, unusableClientKey } from './client-jwks.js';

/** The responses a client may ask to be encrypted (`<name>_encrypted_response_alg`) with our features. */
export const ENCRYPTED_RESPONSES = ['userinfo', 'id_token'] as const;

/**
 * Registered client metadata (IANA "OAuth Dynamic Client Registration Metadata") for features this server does
 * not run. oidc-provider recognises a member only when its feature is on and silently drops it otherwise, so a
 * client asking for, say, certificate-bound tokens would get plain bearer tokens and a 201. Refused instead
 * when given a value other than `false`, `null` or an empty list. Keep in step with the `features` in
 * `lib/oidc/provider.ts`.
 */
export const UNSUPPORTED_METADATA: Readonly<Record<string, string>> = Object.freeze({
  ...Object.fromEntries(
    [
      'tls_client_certificate_bound_access_tokens',
      'tls_client_auth_subject_dn',
      'tls_client_auth_san_dns',
      'tls_client_auth_san_uri',
      'tls_client_auth_san_ip',
      'tls_client_auth_san_email',
      'use_mtls_endpoint_aliases',
    ].map((k) => [k, 'mutual-TLS client authentication and certificate-bound tokens (RFC 8705)']),
  ),
  ...Object.fromEntries(
    ['backchannel_logout_uri', 'backchannel_logout_session_required'].map((k) => [
      k,
      'OpenID Connect Back-Channel Logout',
    ]),
  ),
  ...Object.fromEntries(
    ['frontchannel_logout_uri', 'frontchannel_logout_session_required'].map((k) => [
      k,
      'OpenID Connect Front-Channel Logout',
    ]),
  ),
  ...Object.fromEntries(
    [
      'authorization_signed_response_alg',
      'authorization_encrypted_response_alg',
      'authorization_encrypted_response_enc',
    ].map((k) => [k, 'JWT-secured authorization responses (JARM)']),
  ),
  ...Object.fromEntries(
    [
      'introspection_signed_response_alg',
      'introspection_encrypted_response_alg',
      'introspection_encrypted_response_enc',
    ].map((k) => [k, 'JWT introspection responses (RFC 9701)']),
  ),
  ...Object.fromEntries(
    [
      'backchannel_token_delivery_mode',
      'backchannel_client_notification_endpoint',
      'backchannel_authentication_request_signing_alg',
      'backchannel_user_code_parameter',
    ].map((k) => [k, 'Client-Initiated Backchannel Authentication (CIBA)']),
  ),
  authorization_details_types: 'Rich Authorization Requests (RFC 9396)',
  request_uris: 'request_uri by reference (only pushed authorization requests, RFC 9126, give request_uri values)',
});

/** Members the server assigns at registration (RFC 7591 §3.2.1); a client-chosen value would be replaced. */
const SERVER_ASSIGNED = ['client_id', 'client_secret'] as const;

/** The grant types this server offers (`grantTypes` of oidc-provider with our features). */
const OFFERED_GRANTS = new Set(['authorization_code', 'implicit', 'refresh_token']);

/** Response types whose responses come from the authorization endpoint's implicit side (OIDC Core §3.2, §3.3). */
const IMPLICIT_TYPES = new Set(['id_token', 'token']);

/**
 * Per-endpoint authentication members oidc-provider 8+ no longer knows: it authenticates a client at the
 * introspection and revocation endpoints with its `token_endpoint_auth_method` and drops these silently, so a
 * client registered with `introspection_endpoint_auth_method: "none"` got a 201 and every introspection it then
 * sent without its secret failed with `invalid_client`. Likewise `*_endpoint_auth_signing_alg`: a JWT assertion
 * (`client_secret_jwt`, `private_key_jwt`) is checked at those endpoints against `token_endpoint_auth_signing_alg`
 * (any allowed algorithm when it is absent), so an assertion signed as the dropped member said could fail. Each is
 * refused unless equal to the token endpoint's value.
 */
function endpointAuthMethodProblem(body: Record<string, unknown>): string | undefined {
  const tokenMethod = body.token_endpoint_auth_method ?? 'client_secret_basic';
  for (const endpoint of ['introspection', 'revocation']) {
    const value = body[`${endpoint}_endpoint_auth_method`];
    if (value === undefined || value === null || value === tokenMethod) continue;
    return (
      `${endpoint}_endpoint_auth_method ${JSON.stringify(value)} differs from ` +
      `token_endpoint_auth_method ${JSON.stringify(tokenMethod)}: this server authenticates a client at ` +
      `the ${endpoint} endpoint with its token_endpoint_auth_method, so ${endpoint} requests sent that way ` +
      `would always fail with invalid_client; omit ${endpoint}_endpoint_auth_method`
    );
  }
  const tokenAlg = body.token_endpoint_auth_signing_alg;
  for (const endpoint of ['introspection', 'revocation']) {
    const value = body[`${endpoint}_endpoint_auth_signing_alg`];
    if (value === undefined || value === null || value === tokenAlg) continue;
    const token =
      tokenAlg === undefined || tokenAlg === null
        ? 'token_endpoint_auth_signing_alg, which is not sent'
        : `token_endpoint_auth_signing_alg ${JSON.stringify(tokenAlg)}`;
    return (
      `${endpoint}_endpoint_auth_signing_alg ${JSON.stringify(value)} differs from ${token}: this server ` +
      `checks a client's JWT assertion at the ${endpoint} endpoint as at the token endpoint and does not ` +
      `keep ${endpoint}_endpoint_auth_signing_alg; omit it, or send the same value as ` +
      `token_endpoint_auth_signing_alg`
    );
  }
  return undefined;
}

/** The first encrypted response whose public-key algorithm no inline `jwks` key fits (see `encryptionKeyProblem`). */
function encryptionKeysProblem(body: Record<string, unknown>): string | undefined {
  for (const response of ENCRYPTED_RESPONSES) {
    const member = `${response}_encrypted_response_alg`;
    const alg = body[member];
    const problem = typeof alg === 'string' ? encryptionKeyProblem(body.jwks, member, alg) : undefined;
    if (problem) return problem;
  }
  return undefined;
}

/** A response type's words in one order: `"token id_token"` and `"id_token token"` are the same response type. */
const responseType = (value: string) => value.split(' ').sort().join(' ');

/**
 * The list members oidc-provider deduplicates without a word (its `arrays()`, and `scope`'s words), with when two
 * entries are the same. A repeat is refused instead: the client would otherwise be told its list was registered
 * while another one was stored. URIs compare as sent (the server compares them so at the authorization and end
 * session endpoints). `request_uris` and `authorization_details_types` are refused whole (UNSUPPORTED_METADATA).
 */
const LIST_MEMBERS: ReadonlyArray<readonly [string, (value: string) => string]> = [
  ['redirect_uris', (v) => v],
  ['post_logout_redirect_uris', (v) => v],
  ['grant_types', (v) => v],
  ['response_types', responseType],
  ['response_modes', (v) => v],
  ['default_acr_values', (v) => v],
  ['contacts', (v) => v],
];

/** The first value repeated in a list member, a response type or `scope` (see {@link LIST_MEMBERS}). */
function repeatedValueProblem(body: Record<string, unknown>): string | undefined {
  const lists: Array<readonly [string, unknown, (value: string) => string]> = LIST_MEMBERS.map(
    ([key, same]) => [key, body[key], same] as const,
  );
  if (isStringList(body.response_types)) {
    lists.push(
      ...body.response_types.map(
        (v) => [`response_types entry ${JSON.stringify(v)}`, v.split(' ').filter(Boolean), (w: string) => w] as const,
      ),
    );
  }
  if (typeof body.scope === 'string') lists.push(['scope', body.scope.split(' ').filter(Boolean), (w: string) => w]);
  for (const [key, list, same] of lists) {
    if (!isStringList(list)) continue;
    const seen = new Set<string>();
    for (const value of list) {
      if (seen.has(same(value))) return `${key} lists ${JSON.stringify(value)} more than once`;
      seen.add(same(value));
    }
  }
  return undefined;
}

function isOff(value: unknown): boolean {
  return value === undefined || value === null || value === false || (Array.isArray(value) && value.length === 0);
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/**
 * Checks of the registration request as a whole, where oidc-provider would otherwise drop or rewrite a member
 * the client sent: server-assigned members, inline `jwks` keys that cannot be used (see `unusableClientKey`) or
 * that no encrypted response could use (see `encryptionKeyProblem`),
 * per-endpoint authentication methods and signing algorithms the token endpoint's do not match (see
 * `endpointAuthMethodProblem`),
 * metadata of features that are off, repeated values (see `repeatedValueProblem`), and `grant_types` that do not match
 * `response_types`
 * (oidc-provider adds or removes `authorization_code` and `implicit` to make them match; RFC 7591 §2.1 lets the
 * server refuse instead, which is what we do).
 *
 * @returns the description of the first problem (starting with the member's name), or `undefined`.
 * @example registrationRequestProblem('registration', { client_id: 'mine' })
 *   // 'client_id is assigned by the server and must not be sent at registration (RFC 7591 §3.2.1)'
 */
export function registrationRequestProblem(route: string, body: Record<string, unknown>): string | undefined {
  if (route === 'registration') {
    for (const key of SERVER_ASSIGNED) {
      if (body[key] !== undefined)
        return `${key} is assigned by the server and must not be sent at registration (RFC 7591 §3.2.1)`;
    }
  }
  const problem = unusableClientKey(body.jwks) ?? encryptionKeysProblem(body) ?? endpointAuthMethodProblem(body);
  if (problem) return problem;
  for (const [key, feature] of Object.entries(UNSUPPORTED_METADATA)) {
    if (!isOff(body[key])) return `${key} is not supported: this server does not offer ${feature}`;
  }
  const repeated = repeatedValueProblem(body);
  if (repeated) return repeated;
  const { grant_types: grants, response_types: responses } = body;
  // Unknown grant types are left to oidc-provider's own check, which names the allowed values.
  if (!isStringList(grants) || (responses !== undefined && !isStringList(responses))) return undefined;
  if (!grants.every((g) => OFFERED_GRANTS.has(g))) return undefined;
  const parts = new Set((responses ?? ['code']).flatMap((r) => r.split(' ')));
  const implicit = [...IMPLICIT_TYPES].some((t) => parts.has(t));
  const given = responses === undefined ? ' (response_types defaults to ["code"])' : '';
  if (grants.includes('implicit') && !implicit) {
    return (
      `grant_types includes "implicit" but response_types has no "id_token" or "id_token token"${given}; add ` +
      `one to response_types or remove "implicit"`
    );
  }
  if (grants.includes('authorization_code') && !parts.has('code')) {
    return (
      'grant_types includes "authorization_code" but response_types has no response type with "code"; add ' +
      '"code" to response_types or remove "authorization_code"'
    );
  }
  if (parts.has('code') && !grants.includes('authorization_code')) {
    return `grant_types must include "authorization_code" for the "code" response type${given}`;
  }
  if (implicit && !grants.includes('implicit')) {
    return (
      'grant_types must include "implicit" for the response types that return tokens from the authorization ' +
      'endpoint'
    );
  }
  return undefined;
}
