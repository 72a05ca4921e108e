import type { PortcullisConfig } from '../lib/index.js';
import { CATALOG_ADMIN_SCOPE } from './catalog/schema.js';

/** Demo client and account secrets, printed at start-up in development. Refused with NODE_ENV=production. */
export const DEMO = Object.freeze({
  client: { id: 'demo-web', secret: 'demo-web-secret', redirectUri: 'http://localhost:8080/callback' },
  spa: { id: 'demo-spa', redirectUri: 'https://spa.demo.test/callback' },
  alice: { email: 'alice@example.com', password: 'alice-demo-password' },
  admin: { email: 'admin@example.com', password: 'admin-demo-password' },
  initialAccessToken: 'demo-initial-access-token',
});

/** The development fixtures of `npm start`: clients, accounts, the catalog:admin scope and registration. */
export function demoFixtures(): Pick<
  PortcullisConfig,
  'clients' | 'accounts' | 'scopes' | 'registration' | 'demo' | 'implicitFlow'
> {
  return {
    demo: true,
    // The demo offers the implicit flow for trying it (demo-spa); a real deployment leaves it off (the default).
    implicitFlow: true,
    clients: [
      {
        client_id: DEMO.client.id,
        client_secret: DEMO.client.secret,
        client_name: 'Demo web app',
        redirect_uris: [DEMO.client.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
      {
        // A public browser app for trying the implicit flow (id_token token) next to code + PKCE. Implicit clients
        // must use https and not localhost (oidc-provider's rule).
        client_id: DEMO.spa.id,
        client_name: 'Demo single-page app',
        redirect_uris: [DEMO.spa.redirectUri],
        grant_types: ['authorization_code', 'implicit'],
        response_types: ['code', 'id_token token'],
        token_endpoint_auth_method: 'none',
      },
    ],
    accounts: [
      {
        id: 'alice',
        email: DEMO.alice.email,
        password: DEMO.alice.password,
        email_verified: true,
        claims: { given_name: 'Alice', family_name: 'Liddell', name: 'Alice Liddell', birthdate: '1852-05-04' },
      },
      {
        id: 'admin',
        email: DEMO.admin.email,
        password: DEMO.admin.password,
        email_verified: true,
        roles: ['admin'],
        claims: { given_name: 'Ada', family_name: 'Admin', name: 'Ada Admin' },
      },
    ],
    scopes: {
      [CATALOG_ADMIN_SCOPE]: { description: 'See and manage delisted catalog products', requiresRole: 'admin' },
    },
    registration: { initialAccessToken: DEMO.initialAccessToken },
  };
}
