import { Ajv } from 'ajv';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { CLIENT_AUTH_SIGNING_ALGS } from '../../config/options.js';
import { DPOP_ALGORITHMS } from '../core/dpop-algorithms.js';
import { checkOutboundUrl, OutboundFetchError } from '../http/guarded-fetch.js';
import { codePointName, displayTextProblem } from './display-text.js';
import { PORT_ZERO, redirectUriFormProblem } from './redirect-uri-form.js';
import { ENCRYPTED_RESPONSES, registrationRequestProblem } from './registration-request.js';

export { UNSUPPORTED_METADATA } from './registration-request.js';

/**
 * Key-management algorithms accepted for encrypted responses (RFC 7518 §4.1, OIDC Registration §2).
 * `RSA1_5` is left out on purpose: RSAES-PKCS1-v1_5 is open to padding-oracle attacks (RFC 8725 §3.2).
 */
export const KEY_MANAGEMENT_ALGS = [
  'RSA-OAEP',
  'RSA-OAEP-256',
  'ECDH-ES',
  'ECDH-ES+A128KW',
  'ECDH-ES+A256KW',
  'A128KW',
  'A256KW',
  'dir',
] as const;
/** Content-encryption algorithms accepted for encrypted responses (RFC 7518 §5.1). */
export const CONTENT_ENCRYPTION_ENCS = [
  'A128CBC-HS256',
  'A192CBC-HS384',
  'A256CBC-HS512',
  'A128GCM',
  'A192GCM',
  'A256GCM',
] as const;

/**
 * oidc-provider's `enabledJWA` for client metadata (and discovery's `*_values_supported`): the encryption algorithms
 * above, the client assertion algorithms of `CLIENT_AUTH_SIGNING_ALGS` (config/options.ts), and the DPoP proof
 * algorithms the GraphQL endpoint accepts too (lib/core/dpop-algorithms.ts).
 */
export function enabledJwa() {
  return {
    clientAuthSigningAlgValues: [
      ...CLIENT_AUTH_SIGNING_ALGS.client_secret_jwt,
      ...CLIENT_AUTH_SIGNING_ALGS.private_key_jwt,
    ],
    userinfoEncryptionAlgValues: [...KEY_MANAGEMENT_ALGS],
    userinfoEncryptionEncValues: [...CONTENT_ENCRYPTION_ENCS],
    idTokenEncryptionAlgValues: [...KEY_MANAGEMENT_ALGS],
    idTokenEncryptionEncValues: [...CONTENT_ENCRYPTION_ENCS],
    dPoPSigningAlgValues: [...DPOP_ALGORITHMS],
  };
}

/** URIs the server dereferences; they go through the guarded fetcher and are checked at registration too. */
const FETCHED_URIS = ['jwks_uri', 'sector_identifier_uri'] as const;
/** URIs only shown to users or given to browsers; never fetched by the server. */
const DISPLAYED_URIS = ['logo_uri', 'client_uri', 'policy_uri', 'tos_uri', 'initiate_login_uri'] as const;
const DANGEROUS_SCHEMES = new Set([
  'javascript:',
  'data:',
  'vbscript:',
  'file:',
  'blob:',
  'about:',
  'filesystem:',
  'ftp:',
  'ws:',
  'wss:',
]);
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Characters a client name shown to users must not hold: controls (Unicode Cc) and the bidirectional formatting
 * characters (Unicode Bidi_Control: LRM, RLM, ALM, the embeddings, overrides and isolates), with which a registered
 * name could reorder itself and the consent page's words around it ("Trojan Source", CVE-2021-42574).
 */
const UNSAFE_DISPLAY_CHARACTERS = /[\p{Cc}\p{Bidi_Control}]/u;

const uri = { type: 'string', minLength: 1, maxLength: 2048 };
const uriList = { type: 'array', minItems: 1, maxItems: 50, items: uri };

/** ajv schema of the registration members Portcullis polices (RFC 7591 §2, OIDC Registration §2). */
export const registrationMetadataSchema = {
  type: 'object',
  properties: {
    redirect_uris: uriList,
    post_logout_redirect_uris: { ...uriList, minItems: 0 },
    client_name: { type: 'string', maxLength: 200 },
    // Portcullis: the client wants two factors at every sign-in (acr urn:portcullis:mfa); see lib/accounts/mfa.
    require_mfa: { type: 'boolean' },
    ...Object.fromEntries([...FETCHED_URIS, ...DISPLAYED_URIS].map((k) => [k, uri])),
    // Only members oidc-provider recognises with our features (encryption + jwtUserinfo): a member listed in
    // `extraClientMetadata.properties` is kept and echoed even when the provider would otherwise drop it.
    ...Object.fromEntries(
      ENCRYPTED_RESPONSES.flatMap((r) => [
        [`${r}_encrypted_response_alg`, { type: 'string', enum: KEY_MANAGEMENT_ALGS }],
        [`${r}_encrypted_response_enc`, { type: 'string', enum: CONTENT_ENCRYPTION_ENCS }],
      ]),
    ),
  },
} as const;

/** Members whose values the policy checks; listed in oidc-provider's `extraClientMetadata.properties`. */
export const POLICED_METADATA: readonly string[] = Object.keys(registrationMetadataSchema.properties);

const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true });
const memberValidators = new Map(
  Object.entries(registrationMetadataSchema.properties).map(([k, s]) => [k, ajv.compile(s as object)]),
);

export interface RegistrationPolicyOptions {
  /** With `NODE_ENV=production` plain-http loopback redirect URIs are refused for web clients. */
  production: boolean;
  /** Origins the outbound fetcher may reach despite the https/address rules (`outboundFetch.allowedOrigins`). */
  allowedFetchOrigins: readonly string[];
}

/** RFC 3986 §2: a URI is made of unreserved and reserved characters and percent-encoded octets, nothing else. */
const URI_CHARACTERS = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;
/** The first character RFC 3986 does not allow, or a `%` without two hex digits after it. */
const NOT_A_URI_CHARACTER = /[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]|%(?![0-9A-Fa-f]{2})/u;

/**
 * What in `value` cannot be in a URI (RFC 3986 §2), in words, or `undefined` when every character may be.
 * WHATWG `new URL()` accepts such values and repairs them (drops tab, CR and LF, percent-encodes space, `"`, `<`,
 * `>`, non-ASCII and a stray `%`), so a value checked with it but stored as sent would later be compared raw and
 * redirected to repaired: not the URI that was registered.
 *
 * @example uriCharacterProblem('https://rp.example/c b') // 'a space (U+0020)'
 */
export function uriCharacterProblem(value: string): string | undefined {
  if (URI_CHARACTERS.test(value)) return undefined;
  const found = NOT_A_URI_CHARACTER.exec(value)![0];
  if (found === '%') return '"%" not followed by two hex digits (RFC 3986 §2.1; a literal "%" is written "%25")';
  const code = found.codePointAt(0)!;
  const hex = codePointName(found);
  if (found === ' ') return `a space (${hex})`;
  if (code < 0x20 || code === 0x7f) return `a control character (${hex})`;
  if (code > 0x7f)
    return (
      `a non-ASCII character (${hex}; percent-encode it as UTF-8, and write an internationalized host name in ` +
      `its xn-- form)`
    );
  return `the character ${found} (${hex})`;
}

/** Refuses a URI member value with characters RFC 3986 does not allow; `where` names the member (and entry). */
function checkUriCharacters(where: string, value: string): void {
  const problem = uriCharacterProblem(value);
  if (problem) refuse(`${where} contains ${problem}, which a URI cannot contain (RFC 3986 §2); percent-encode it`);
}

function refuse(description: string): never {
  // oidc-provider turns a description that starts with "redirect_uris" into `invalid_redirect_uri`.
  throw new errors.InvalidClientMetadata(description);
}

/**
 * Checks one redirect URI of a dynamically registered client (RFC 7591 §2, RFC 8252 §7, RFC 9700 §2.1):
 * only characters RFC 3986 allows (it is stored and compared as sent); absolute; no fragment, userinfo or wildcard;
 * a host right after `//` and no dot-segments (see `redirectUriFormProblem`); https, or plain http on a loopback host
 * for native clients and,
 * outside production, for web clients; private-use schemes (`com.example.app:/cb`) for native clients only;
 * never `javascript:`, `data:` and similar.
 */
function checkRedirectUri(member: string, value: string, native: boolean, production: boolean): void {
  const where = `${member} entry ${JSON.stringify(value)}`;
  checkUriCharacters(where, value);
  if (!URL.canParse(value)) refuse(`${where} must be an absolute URI`);
  const url = new URL(value);
  if (value.includes('#')) refuse(`${where} must not contain a fragment`);
  if (value.includes('*')) refuse(`${where} must not contain a wildcard`);
  if (url.username || url.password || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(value))
    refuse(`${where} must not contain userinfo (user@host)`);
  if (DANGEROUS_SCHEMES.has(url.protocol)) refuse(`${where} uses the forbidden scheme ${url.protocol.slice(0, -1)}`);
  const formProblem = redirectUriFormProblem(value, url);
  if (formProblem) refuse(`${where} ${formProblem}`);
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:') {
    if (!LOOPBACK_HOSTS.has(url.hostname)) refuse(`${where} must use https (plain http is only for loopback hosts)`);
    if (!native && production)
      refuse(`${where} must use https (plain http on loopback is only for native clients in production)`);
    return;
  }
  if (!native) refuse(`${where} must use https for a web client`);
  if (!url.protocol.slice(0, -1).includes('.'))
    refuse(`${where} must use a reverse-domain private-use scheme such as com.example.app: (RFC 8252 §7.1)`);
}

/**
 * The registration policy, as oidc-provider's `extraClientMetadata` (`properties` + synchronous `validator`).
 * It applies to `POST /registration` and RFC 7592 updates, and to statically configured clients at start-up
 * (`loadConfig` calls the validator with no request). Insecure or invalid values of the members in
 * {@link POLICED_METADATA} are refused
 * with `invalid_client_metadata` / `invalid_redirect_uri` and a description naming the member, never silently
 * dropped; so are members oidc-provider would drop or rewrite (see `registrationRequestProblem`:
 * {@link UNSUPPORTED_METADATA},
 * `grant_types` not matching `response_types`, repeated values, a client-chosen `client_id`). When encrypted userinfo
 * is asked for without `userinfo_signed_response_alg`, `RS256` is filled in
 * (OpenID Connect Registration §2: the response is then signed, then encrypted).
 *
 * @throws oidc-provider's `InvalidClientMetadata` (400) from the validator.
 */
export function registrationPolicy(options: RegistrationPolicyOptions) {
  return {
    properties: [...POLICED_METADATA],
    validator(
      ctx: KoaContextWithOIDC | undefined,
      key: string,
      value: unknown,
      metadata: Record<string, unknown>,
    ): void {
      // Registration and RFC 7592 updates, and start-up checks of configured clients (no request: `ctx` is
      // undefined). Configured clients loaded lazily during other requests were checked at start-up already.
      const route = ctx?.oidc?.route;
      if (ctx && route !== 'registration' && route !== 'client_update') return;
      // oidc-provider calls the validator once per listed member, in order: the first call checks the request.
      // Configured clients (no ctx) are checked as a whole too: consistent grant and response types.
      if (key === POLICED_METADATA[0]) {
        const problem = registrationRequestProblem(
          route ?? 'configuration',
          ctx ? ((ctx.oidc.body ?? {}) as Record<string, unknown>) : metadata,
        );
        if (problem) refuse(problem);
      }
      if (value === undefined) return;
      if (key.endsWith('_encrypted_response_alg') && value === 'RSA1_5') {
        refuse(
          `${key} RSA1_5 is refused: RSAES-PKCS1-v1_5 key transport is insecure (RFC 8725 §3.2); use RSA-OAEP-256`,
        );
      }
      const validate = memberValidators.get(key)!;
      if (!validate(value)) {
        const e = validate.errors![0]!;
        const detail =
          e.keyword === 'enum'
            ? `must be one of ${(e.params as { allowedValues: string[] }).allowedValues.join(', ')}`
            : e.message;
        refuse(`${key}${e.instancePath.replace(/\//g, '.')} ${detail}`);
      }
      if (key === 'client_name' && UNSAFE_DISPLAY_CHARACTERS.test(value as string)) {
        refuse(
          'client_name must not hold control or bidirectional formatting characters (such as U+202E): they ' +
            'would change how the consent page reads',
        );
      }
      const displayProblem = key === 'client_name' ? displayTextProblem(key, value as string) : undefined;
      if (displayProblem) refuse(displayProblem);
      const native = metadata.application_type === 'native';
      if (key === 'redirect_uris' || key === 'post_logout_redirect_uris') {
        for (const entry of value as string[]) checkRedirectUri(key, entry, native, options.production);
      } else if ((FETCHED_URIS as readonly string[]).includes(key)) {
        checkUriCharacters(key, value as string);
        try {
          checkOutboundUrl(value as string, options.allowedFetchOrigins);
        } catch (err) {
          if (err instanceof OutboundFetchError)
            refuse(`${key} ${err.message}; the server only fetches public https URLs`);
          throw err;
        }
      } else if ((DISPLAYED_URIS as readonly string[]).includes(key)) {
        checkUriCharacters(key, value as string);
        const url = URL.canParse(value as string) ? new URL(value as string) : undefined;
        if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:'))
          refuse(`${key} must be an absolute http(s) URL`);
        if (url.username || url.password) refuse(`${key} must not contain credentials`);
        if (url.port === '0') refuse(`${key} names ${PORT_ZERO}`);
      } else if (key === 'userinfo_encrypted_response_alg' && metadata.userinfo_signed_response_alg === undefined) {
        metadata.userinfo_signed_response_alg = 'RS256';
      } else if (key.endsWith('_encrypted_response_enc')) {
        const alg = metadata[key.replace(/_enc$/, '_alg')];
        if (alg === undefined) refuse(`${key} requires ${key.replace(/_enc$/, '_alg')}`);
      }
    },
  };
}
