import { register, WEB_CLIENT } from '../helpers/registration.js';
import { startServer, type RunningServer } from '../helpers/server.js';

// Port 0 is reserved (RFC 6335 §6) and no server listens on it. Before this rule `https://rp.example:0/cb` was
// registered as a redirect URI (the code would be sent nowhere), and jwks_uri, sector_identifier_uri and the URIs
// shown on the consent page took it too. Each member is refused; the fetched ones also by the guarded fetcher.
let srv: RunningServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

const PORT_ZERO = 'names port 0, which is not a destination: no server listens on it (RFC 6335 §6 reserves it)';

const refused: Array<[string, Record<string, unknown>, string, string]> = [
  [
    'an https redirect URI',
    { redirect_uris: ['https://rp.example:0/cb'] },
    'invalid_redirect_uri',
    'redirect_uris entry "https://rp.example:0/cb"',
  ],
  [
    'an https redirect URI with port "00"',
    { redirect_uris: ['https://rp.example:00/cb'] },
    'invalid_redirect_uri',
    'redirect_uris entry "https://rp.example:00/cb"',
  ],
  [
    'a native loopback redirect URI',
    { application_type: 'native', redirect_uris: ['http://127.0.0.1:0/cb'] },
    'invalid_redirect_uri',
    'redirect_uris entry "http://127.0.0.1:0/cb"',
  ],
  [
    'a web loopback redirect URI (development)',
    { redirect_uris: ['http://localhost:0/cb'] },
    'invalid_redirect_uri',
    'redirect_uris entry "http://localhost:0/cb"',
  ],
  [
    'a post-logout redirect URI',
    { ...WEB_CLIENT, post_logout_redirect_uris: ['https://rp.example:0/bye'] },
    'invalid_client_metadata',
    'post_logout_redirect_uris entry "https://rp.example:0/bye"',
  ],
  ['jwks_uri', { ...WEB_CLIENT, jwks_uri: 'https://rp.example:0/jwks' }, 'invalid_client_metadata', 'jwks_uri'],
  [
    'sector_identifier_uri',
    { ...WEB_CLIENT, sector_identifier_uri: 'https://rp.example:0/sector' },
    'invalid_client_metadata',
    'sector_identifier_uri',
  ],
  ...['logo_uri', 'client_uri', 'policy_uri', 'tos_uri', 'initiate_login_uri'].map(
    (key): [string, Record<string, unknown>, string, string] => [
      key,
      { ...WEB_CLIENT, [key]: 'https://rp.example:0/page' },
      'invalid_client_metadata',
      key,
    ],
  ),
];

describe('URIs naming port 0 (RFC 6335 §6)', () => {
  test.each(refused)('%s is refused', async (_name, metadata, error, member) => {
    const res = await register(srv.issuer, metadata);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(error);
    expect(res.body.error_description).toContain(`${member} ${PORT_ZERO}`);
  });

  test.each([
    ['redirect URI with port 1', { redirect_uris: ['https://rp.example:1/cb'] }],
    ['logo_uri with port 8443', { ...WEB_CLIENT, logo_uri: 'https://rp.example:8443/logo.png' }],
  ])('a %s is accepted and comes back as sent', async (_name, metadata) => {
    const res = await register(srv.issuer, metadata);
    expect(res.status).toBe(201);
    for (const [key, value] of Object.entries(metadata)) expect(res.body[key]).toEqual(value);
  });
});
