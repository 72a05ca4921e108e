import { Ajv } from 'ajv';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { checkOutboundUrl, OutboundFetchError } from '../http/guarded-fetch.js';

/**
 * Key-management algorithms accepted for encrypted responses (RFC 7518 §4.1, OIDC Registration §2).
 * `RSA1_5` is left out on purpose: RSAES-PKCS1-v1_5 is open to padding-oracle attacks (RFC 8725 §3.2).
 */
export const KEY_MANAGEMENT_ALGS = ['RSA-OAEP', 'RSA-OAEP-256', 'ECDH-ES', 'ECDH-ES+A128KW', 'ECDH-ES+A256KW', 'A128KW', 'A256KW', 'dir'] as const;
/** Content-encryption algorithms accepted for encrypted responses (RFC 7518 §5.1). */
export const CONTENT_ENCRYPTION_ENCS = ['A128CBC-HS256', 'A192CBC-HS384', 'A256CBC-HS512', 'A128GCM', 'A192GCM', 'A256GCM'] as const;

// Only members oidc-provider recognises with our features (encryption + jwtUserinfo): a member listed in
// `extraClientMetadata.properties` is kept and echoed even when the provider would otherwise drop it.
const ENCRYPTED_RESPONSES = ['userinfo', 'id_token'] as const;
/** URIs the server dereferences; they go through the guarded fetcher and are checked at registration too. */
const FETCHED_URIS = ['jwks_uri', 'sector_identifier_uri'] as const;
/** URIs only shown to users or given to browsers; never fetched by the server. */
const DISPLAYED_URIS = ['logo_uri', 'client_uri', 'policy_uri', 'tos_uri', 'initiate_login_uri'] as const;
const DANGEROUS_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:', 'filesystem:', 'ftp:', 'ws:', 'wss:']);
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

const uri = { type: 'string', minLength: 1, maxLength: 2048 };
const uriList = { type: 'array', minItems: 1, maxItems: 50, items: uri };

/** ajv schema of the registration members Portcullis polices (RFC 7591 §2, OIDC Registration §2). */
export const registrationMetadataSchema = {
  type: 'object',
  properties: {
    redirect_uris: uriList,
    post_logout_redirect_uris: { ...uriList, minItems: 0 },
    client_name: { type: 'string', maxLength: 200 },
    ...Object.fromEntries([...FETCHED_URIS, ...DISPLAYED_URIS].map((k) => [k, uri])),
    ...Object.fromEntries(ENCRYPTED_RESPONSES.flatMap((r) => [
      [`${r}_encrypted_response_alg`, { type: 'string', enum: KEY_MANAGEMENT_ALGS }],
      [`${r}_encrypted_response_enc`, { type: 'string', enum: CONTENT_ENCRYPTION_ENCS }],
    ])),
  },
} as const;

/** Members whose values the policy checks; listed in oidc-provider's `extraClientMetadata.properties`. */
export const POLICED_METADATA: readonly string[] = Object.keys(registrationMetadataSchema.properties);

const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true });
const memberValidators = new Map(Object.entries(registrationMetadataSchema.properties).map(([k, s]) => [k, ajv.compile(s as object)]));

export interface RegistrationPolicyOptions {
  /** With `NODE_ENV=production` plain-http loopback redirect URIs are refused for web clients. */
  production: boolean;
  /** Origins the outbound fetcher may reach despite the https/address rules (`outboundFetch.allowedOrigins`). */
  allowedFetchOrigins: readonly string[];
}

function refuse(description: string): never {
  // oidc-provider turns a description that starts with "redirect_uris" into `invalid_redirect_uri`.
  throw new errors.InvalidClientMetadata(description);
}

/**
 * Checks one redirect URI of a dynamically registered client (RFC 7591 §2, RFC 8252 §7, RFC 9700 §2.1):
 * absolute; no fragment, userinfo or wildcard; https, or plain http on a loopback host for native clients and,
 * outside production, for web clients; private-use schemes (`com.example.app:/cb`) for native clients only;
 * never `javascript:`, `data:` and similar.
 */
function checkRedirectUri(member: string, value: string, native: boolean, production: boolean): void {
  const where = `${member} entry ${JSON.stringify(value)}`;
  if (!URL.canParse(value)) refuse(`${where} must be an absolute URI`);
  const url = new URL(value);
  if (value.includes('#')) refuse(`${where} must not contain a fragment`);
  if (value.includes('*')) refuse(`${where} must not contain a wildcard`);
  if (url.username || url.password || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(value)) refuse(`${where} must not contain userinfo (user@host)`);
  if (DANGEROUS_SCHEMES.has(url.protocol)) refuse(`${where} uses the forbidden scheme ${url.protocol.slice(0, -1)}`);
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:') {
    if (!LOOPBACK_HOSTS.has(url.hostname)) refuse(`${where} must use https (plain http is only for loopback hosts)`);
    if (!native && production) refuse(`${where} must use https (plain http on loopback is only for native clients in production)`);
    return;
  }
  if (!native) refuse(`${where} must use https for a web client`);
  if (!url.protocol.slice(0, -1).includes('.')) refuse(`${where} must use a reverse-domain private-use scheme such as com.example.app: (RFC 8252 §7.1)`);
}

/**
 * The registration policy, as oidc-provider's `extraClientMetadata` (`properties` + synchronous `validator`).
 * It applies to `POST /registration` and RFC 7592 updates, and to statically configured clients at start-up
 * (`loadConfig` calls the validator with no request). Insecure or invalid values of the members in {@link POLICED_METADATA} are refused
 * with `invalid_client_metadata` / `invalid_redirect_uri` and a description naming the member, never silently
 * dropped. When encrypted userinfo is asked for without `userinfo_signed_response_alg`, `RS256` is filled in
 * (OpenID Connect Registration §2: the response is then signed, then encrypted).
 *
 * @throws oidc-provider's `InvalidClientMetadata` (400) from the validator.
 */
export function registrationPolicy(options: RegistrationPolicyOptions) {
  return {
    properties: [...POLICED_METADATA],
    validator(ctx: KoaContextWithOIDC | undefined, key: string, value: unknown, metadata: Record<string, unknown>): void {
      // Registration and RFC 7592 updates, and start-up checks of configured clients (no request: `ctx` is
      // undefined). Configured clients loaded lazily during other requests were checked at start-up already.
      const route = ctx?.oidc?.route;
      if (ctx && route !== 'registration' && route !== 'client_update') return;
      if (value === undefined) return;
      if (key.endsWith('_encrypted_response_alg') && value === 'RSA1_5') {
        refuse(`${key} RSA1_5 is refused: RSAES-PKCS1-v1_5 key transport is insecure (RFC 8725 §3.2); use RSA-OAEP-256`);
      }
      const validate = memberValidators.get(key)!;
      if (!validate(value)) {
        const e = validate.errors![0]!;
        const detail = e.keyword === 'enum' ? `must be one of ${(e.params as { allowedValues: string[] }).allowedValues.join(', ')}` : e.message;
        refuse(`${key}${e.instancePath.replace(/\//g, '.')} ${detail}`);
      }
      const native = metadata.application_type === 'native';
      if (key === 'redirect_uris' || key === 'post_logout_redirect_uris') {
        for (const entry of value as string[]) checkRedirectUri(key, entry, native, options.production);
      } else if ((FETCHED_URIS as readonly string[]).includes(key)) {
        try {
          checkOutboundUrl(value as string, options.allowedFetchOrigins);
        } catch (err) {
          if (err instanceof OutboundFetchError) refuse(`${key} ${err.message}; the server only fetches public https URLs`);
          throw err;
        }
      } else if ((DISPLAYED_URIS as readonly string[]).includes(key)) {
        const url = URL.canParse(value as string) ? new URL(value as string) : undefined;
        if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) refuse(`${key} must be an absolute http(s) URL`);
        if (url.username || url.password) refuse(`${key} must not contain credentials`);
      } else if (key === 'userinfo_encrypted_response_alg' && metadata.userinfo_signed_response_alg === undefined) {
        metadata.userinfo_signed_response_alg = 'RS256';
      } else if (key.endsWith('_encrypted_response_enc')) {
        const alg = metadata[key.replace(/_enc$/, '_alg')];
        if (alg === undefined) refuse(`${key} requires ${key.replace(/_enc$/, '_alg')}`);
      }
    },
  };
}
