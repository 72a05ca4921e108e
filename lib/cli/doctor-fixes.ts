import { OPTION_DOCS } from '../../config/defaults.js';
import type { ConfigProblem } from '../core/errors.js';

/**
 * What to change for the production refusals of `loadConfig` (`insecureProductionSettings`) and the client policy,
 * told apart by path and message: the option, the value to put there, and the environment variable `portcullis
 * start` / `npm start` read it from. Each line is what an operator types, not a repetition of the message above it.
 */
const FIXES: ReadonlyArray<readonly [path: RegExp, message: RegExp, fix: string]> = [
  [
    /^issuer$/,
    /https/,
    'issuer: "https://id.example.com", the public https URL clients use (PORTCULLIS_ISSUER); behind a ' +
      'TLS-terminating proxy also proxy: true (PORTCULLIS_PROXY=true)',
  ],
  [
    /^keys\.signing$/,
    /production/,
    'npx portcullis keys --out /etc/portcullis/jwks.json, then keys.signing: "/etc/portcullis/jwks.json" ' +
      '(PORTCULLIS_SIGNING_KEYS)',
  ],
  [
    /^keys\.cookies$/,
    /production/,
    'keys.cookies: [<32+ random characters>] (PORTCULLIS_COOKIE_KEYS; npx portcullis cookie-key makes one)',
  ],
  [
    /^storage\.type$/,
    /production/,
    'storage: { type: "redis", url: "redis://…" } (REDIS_URL) to share state between instances and keep it ' +
      'across restarts, or storage.type: "memory" (PORTCULLIS_STORAGE=memory) for one instance that may lose it',
  ],
  [
    /^mfa\.encryptionKey$/,
    /production/,
    'mfa.encryptionKey: <32+ random characters, not a cookie key> (PORTCULLIS_MFA_KEY; npx portcullis ' +
      'cookie-key makes one), the same on every instance and kept across restarts; or mfa.enabled: false',
  ],
  [
    /^selfService\.signup$/,
    /mail/,
    'mail.smtp: "smtp://user:pass@host:587" (PORTCULLIS_SMTP_URL) so that sign-up can verify addresses, or ' +
      'selfService.signup: false',
  ],
  [
    /./,
    /demo fixtures/,
    'replace the demo clients, accounts and initial access token with your own (their secrets from your secret store)',
  ],
  [
    /^clients\[\d+\]\.(jwks|jwks_uri|token_endpoint_auth_signing_alg)([.[]|$)/,
    /./,
    'docs/guides/client-registration.md "Configured clients: private_key_jwt, client_secret_jwt and DPoP" ' +
      "shows each method with its members: private_key_jwt takes the client's public keys (jwks or jwks_uri, " +
      'not both) and no client_secret; client_secret_jwt a client_secret of 32 bytes or more; ' +
      'token_endpoint_auth_signing_alg only with one of the two',
  ],
  [
    /^clients\[\d+\]\.client_secret$/,
    /private_key_jwt|client_secret_jwt/,
    'docs/guides/client-registration.md "Configured clients: private_key_jwt, client_secret_jwt and DPoP": a ' +
      'private_key_jwt client has no client_secret; a client_secret_jwt one needs a random secret of 32 bytes ' +
      'or more (npx portcullis cookie-key makes one)',
  ],
  [
    /^clients\[\d+\]\.(?!client_secret|client_id)/,
    /./,
    'a configured client meets the policy of dynamic registration: docs/guides/client-registration.md lists ' +
      'what it refuses and what to send instead (in production, https redirect URIs for web clients)',
  ],
];

/**
 * Problems caused by an environment variable that `portcullis start` reads and this shell lacks: the file leaves the
 * value to the variable (`"storage": { "type": "redis" }` and `REDIS_URL`), so the problem is the variable, not the
 * file. The finding's message and fix, or `undefined` for any other problem.
 */
export function unsetVariableProblem(
  problem: ConfigProblem,
  env: NodeJS.ProcessEnv,
): { message: string; fix: string } | undefined {
  if (problem.path === 'storage' && /storage\.url or storage\.client/.test(problem.message) && !env.REDIS_URL) {
    return {
      message:
        '"storage": type "redis" needs storage.url, which portcullis start takes from REDIS_URL, and ' +
        'REDIS_URL is not set in this environment',
      fix:
        "run doctor with the deployment's environment (REDIS_URL=redis://host:6379 portcullis doctor --config " +
        '…), or set storage.url: "redis://…" in the configuration file',
    };
  }
  return undefined;
}

/**
 * The fix line of a `config-invalid` finding: the concrete change for a production refusal, else the option to
 * change and its row of the option table (docs/reference/options.md): `clients[0].redirect_uris` → `clients`.
 */
export function configProblemFix(problem: ConfigProblem): string {
  const known = FIXES.find(([path, message]) => path.test(problem.path) && message.test(problem.message));
  if (known) return known[2];
  const path = problem.path.replace(/\[\d+\]/g, '[]');
  const documented = OPTION_DOCS.map((o) => o.path)
    .filter((o) => path === o || path.startsWith(`${o}.`) || path.startsWith(`${o}[]`))
    .sort((a, b) => b.length - a.length)[0];
  return (
    `change "${problem.path}" in the configuration ` +
    `file${documented ? `: the \`${documented}\` row of docs/reference/options.md says what it takes` : ''}`
  );
}
