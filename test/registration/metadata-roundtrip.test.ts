import { exportJWK, generateKeyPair } from 'jose';
import { UNSUPPORTED_METADATA } from '../../lib/oidc/registration-policy.js';
import { register, WEB_CLIENT } from '../helpers/registration.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * Registration metadata is refused or kept as sent, never silently dropped or rewritten (RFC 7591 §2, §3.2.1):
 * every member the server accepts comes back in the response exactly as the client sent it, and every member
 * oidc-provider would drop or rewrite is refused with invalid_client_metadata naming it.
 */
let srv: RunningServer;
let sigKey: Record<string, unknown>;
let encKey: Record<string, unknown>;
beforeAll(async () => {
  srv = await startServer();
  sigKey = { ...(await exportJWK((await generateKeyPair('ES256')).publicKey)), kid: 'sig-1', use: 'sig', alg: 'ES256' };
  encKey = {
    ...(await exportJWK((await generateKeyPair('ECDH-ES')).publicKey)),
    kid: 'enc-1',
    use: 'enc',
    alg: 'ECDH-ES',
  };
});
afterAll(() => srv.close());

type Row = [string, () => Record<string, unknown>];
const jwks = () => ({ keys: [sigKey, encKey] });

describe('every accepted member comes back exactly as sent', () => {
  const rows: Row[] = [
    ['application_type', () => ({ application_type: 'native', redirect_uris: ['com.example.app:/cb'] })],
    ['client_name', () => ({ client_name: 'Round Trip ü' })],
    ['client_uri', () => ({ client_uri: 'https://rp.example/' })],
    ['contacts', () => ({ contacts: ['ops@rp.example', 'dev@rp.example'] })],
    ['default_acr_values', () => ({ default_acr_values: [] })],
    ['default_max_age', () => ({ default_max_age: 3600 })],
    ['grant_types (code + refresh)', () => ({ grant_types: ['authorization_code', 'refresh_token'] })],
    [
      'grant_types (code + implicit, with matching response_types)',
      () => ({ grant_types: ['authorization_code', 'implicit'], response_types: ['code', 'id_token token'] }),
    ],
    ['grant_types (implicit only)', () => ({ grant_types: ['implicit'], response_types: ['id_token'] })],
    ['id_token_signed_response_alg', () => ({ id_token_signed_response_alg: 'ES256' })],
    [
      'id_token_encrypted_response_alg/enc',
      () => ({ id_token_encrypted_response_alg: 'ECDH-ES', id_token_encrypted_response_enc: 'A256GCM', jwks: jwks() }),
    ],
    ['initiate_login_uri', () => ({ initiate_login_uri: 'https://rp.example/login' })],
    ['jwks', () => ({ jwks: jwks() })],
    ['jwks_uri', () => ({ jwks_uri: 'https://rp.example/jwks.json' })],
    ['logo_uri', () => ({ logo_uri: 'https://rp.example/logo.png' })],
    ['policy_uri', () => ({ policy_uri: 'https://rp.example/policy' })],
    ['tos_uri', () => ({ tos_uri: 'https://rp.example/tos' })],
    ['post_logout_redirect_uris', () => ({ post_logout_redirect_uris: ['https://rp.example/bye'] })],
    ['redirect_uris', () => ({ redirect_uris: ['https://rp.example/cb', 'https://rp.example/cb2'] })],
    ['require_auth_time', () => ({ require_auth_time: true })],
    [
      'response_types (code id_token)',
      () => ({ response_types: ['code id_token'], grant_types: ['authorization_code', 'implicit'] }),
    ],
    ['response_types (empty: no authorization endpoint use)', () => ({ response_types: [], grant_types: [] })],
    ['response_modes', () => ({ response_modes: ['query', 'form_post'] })],
    ['scope', () => ({ scope: 'openid email' })],
    ['subject_type', () => ({ subject_type: 'public' })],
    ['token_endpoint_auth_method none', () => ({ token_endpoint_auth_method: 'none' })],
    ['token_endpoint_auth_method client_secret_basic', () => ({ token_endpoint_auth_method: 'client_secret_basic' })],
    ['token_endpoint_auth_method client_secret_post', () => ({ token_endpoint_auth_method: 'client_secret_post' })],
    [
      'token_endpoint_auth_method client_secret_jwt + signing alg',
      () => ({ token_endpoint_auth_method: 'client_secret_jwt', token_endpoint_auth_signing_alg: 'HS256' }),
    ],
    [
      'token_endpoint_auth_method private_key_jwt',
      () => ({ token_endpoint_auth_method: 'private_key_jwt', jwks: jwks() }),
    ],
    ['userinfo_signed_response_alg', () => ({ userinfo_signed_response_alg: 'ES256' })],
    [
      'userinfo_encrypted_response_alg/enc',
      () => ({
        userinfo_signed_response_alg: 'RS256',
        userinfo_encrypted_response_alg: 'ECDH-ES',
        userinfo_encrypted_response_enc: 'A128GCM',
        jwks: jwks(),
      }),
    ],
    ['request_object_signing_alg', () => ({ request_object_signing_alg: 'ES256', jwks: jwks() })],
    ['require_signed_request_object', () => ({ require_signed_request_object: true })],
    ['require_pushed_authorization_requests', () => ({ require_pushed_authorization_requests: true })],
    ['dpop_bound_access_tokens', () => ({ dpop_bound_access_tokens: true })],
    [
      'an unsupported feature switched off (false) is fine',
      () => ({ tls_client_certificate_bound_access_tokens: false, backchannel_logout_session_required: false }),
    ],
  ];
  test.each(rows)('%s', async (_name, make) => {
    const sent = make();
    const res = await register(srv.issuer, { ...WEB_CLIENT, ...sent });
    expect(res.status).toBe(201);
    for (const [key, value] of Object.entries(sent)) {
      if (value === false && !(key in res.body)) continue; // an unsupported member that was off stays absent
      expect([key, res.body[key]]).toEqual([key, value]);
    }
  });

  test('response_types members are compared as sets of words: "token id_token" is registered as "id_token token"', async () => {
    const res = await register(srv.issuer, {
      ...WEB_CLIENT,
      response_types: ['token id_token'],
      grant_types: ['implicit'],
    });
    expect(res.status).toBe(201);
    expect(res.body.response_types).toEqual(['id_token token']);
    expect(res.body.grant_types).toEqual(['implicit']);
  });
});

describe('members oidc-provider would drop or rewrite are refused with invalid_client_metadata naming them', () => {
  const rows: Array<[string, Record<string, unknown>, string]> = [
    [
      'implicit without an implicit response type (was dropped)',
      { grant_types: ['authorization_code', 'implicit'] },
      'grant_types includes "implicit"',
    ],
    [
      'implicit with response_types code only',
      { grant_types: ['authorization_code', 'implicit'], response_types: ['code'] },
      'grant_types includes "implicit"',
    ],
    [
      'refresh_token alone with the default code response type (authorization_code was added)',
      { grant_types: ['refresh_token'] },
      'grant_types must include "authorization_code"',
    ],
    [
      'authorization_code without a code response type (was removed)',
      { grant_types: ['authorization_code', 'implicit'], response_types: ['id_token'] },
      'grant_types includes "authorization_code"',
    ],
    [
      'an implicit response type without implicit (implicit was added)',
      { grant_types: ['authorization_code'], response_types: ['code', 'id_token'] },
      'grant_types must include "implicit"',
    ],
    [
      'a repeated grant type',
      { grant_types: ['authorization_code', 'authorization_code'] },
      'grant_types lists "authorization_code" more than once',
    ],
    [
      'a repeated response type (was deduplicated)',
      { response_types: ['code', 'code'] },
      'response_types lists "code" more than once',
    ],
    [
      'the same response type in two spellings',
      { response_types: ['id_token token', 'token id_token'], grant_types: ['implicit'] },
      'response_types lists "token id_token" more than once',
    ],
    [
      'an unknown grant type',
      { grant_types: ['authorization_code', 'urn:example:grant'] },
      'grant_types can only contain',
    ],
    [
      'client_credentials (not offered)',
      { grant_types: ['client_credentials'], response_types: [] },
      'grant_types can only contain',
    ],
    ['bare token response type', { response_types: ['token'] }, 'response_types can only contain'],
    [
      'an unknown token_endpoint_auth_method',
      { token_endpoint_auth_method: 'tls_client_auth' },
      'token_endpoint_auth_method must be',
    ],
    [
      'private_key_jwt without keys',
      { token_endpoint_auth_method: 'private_key_jwt' },
      'jwks or jwks_uri is mandatory',
    ],
    ['a client-chosen client_id (was replaced)', { client_id: 'my-own-id' }, 'client_id is assigned by the server'],
    [
      'a client-chosen client_secret (was replaced)',
      { client_secret: 'my-own-secret-0123456789' },
      'client_secret is assigned by the server',
    ],
    ...Object.keys(UNSUPPORTED_METADATA).map((key): [string, Record<string, unknown>, string] => [
      `${key} (feature off, was dropped)`,
      {
        [key]: /uri|endpoint/.test(key)
          ? 'https://rp.example/x'
          : key.endsWith('_types') || key === 'request_uris'
            ? ['https://rp.example/x']
            : /_alg$|_enc$|_dn$|_dns$|_ip$|_email$|mode$/.test(key)
              ? 'RS256'
              : true,
      },
      `${key} is not supported`,
    ]),
  ];
  test.each(rows)('%s', async (_name, body, description) => {
    const res = await register(srv.issuer, { ...WEB_CLIENT, ...body });
    expect([res.status, res.body.error]).toEqual([400, 'invalid_client_metadata']);
    expect(res.body.error_description).toContain(description);
  });

  test('the same rule applies to updates (RFC 7592 PUT): implicit without a matching response type is refused, not dropped', async () => {
    const created = await register(srv.issuer, WEB_CLIENT);
    const {
      registration_access_token: token,
      registration_client_uri: uri,
      client_id_issued_at: _i,
      client_secret_expires_at: _e,
      ...current
    } = created.body;
    const put = await fetch(uri as string, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token as string}` },
      body: JSON.stringify({ ...current, grant_types: ['authorization_code', 'implicit'] }),
    });
    expect(put.status).toBe(400);
    expect(await put.json()).toEqual({
      error: 'invalid_client_metadata',
      error_description: expect.stringContaining('grant_types includes "implicit"'),
    });
  });
});
