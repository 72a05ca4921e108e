import type { PortcullisConfig } from '../lib/index.js';
import { CATALOG_ADMIN_SCOPE } from './catalog/schema.js';

/** Demo client and account secrets, printed at start-up in development. Refused with NODE_ENV=production. */
export const DEMO = Object.freeze({
  client: { id: 'demo-web', secret: 'demo-web-secret', redirectUri: 'http://localhost:8080/callback' },
  spa: { id: 'demo-spa', redirectUri: 'https://spa.demo.test/callback' },
  // Each password with its hash (npx portcullis hash-password): the fixtures seed the hash, so a development server
  // starts without spending a scrypt hash per account.
  alice: {
    email: 'alice@example.com',
    password: 'alice-demo-password',
    passwordHash: 'scrypt$32768$8$1$gFiOW08Jopgu5mJt0XmhLg$S4ce0MeX_7NTsWK43hAknYCQFR7sBVU_U9YWVXoRlow',
  },
  admin: {
    email: 'admin@example.com',
    password: 'admin-demo-password',
    passwordHash: 'scrypt$32768$8$1$oDdvqazYJvZls2IIi5Yn8g$YBNe8HuwuzO4K7TzpaDV5n68rllRU2AlFOFJR1taR0k',
  },
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
        passwordHash: DEMO.alice.passwordHash,
        email_verified: true,
        claims: { given_name: 'Alice', family_name: 'Liddell', name: 'Alice Liddell', birthdate: '1852-05-04' },
      },
      {
        id: 'admin',
        email: DEMO.admin.email,
        passwordHash: DEMO.admin.passwordHash,
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
