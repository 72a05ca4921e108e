import { createServer as createHttpServer, type Server } from 'node:http';
import { createHash } from 'node:crypto';
import type { ApolloServer } from '@apollo/server';
import Koa, { type Middleware } from 'koa';
import compose from 'koa-compose';
import type Provider from 'oidc-provider';
import type { Storage } from './core/storage.js';
import type { AccountStore } from './core/account-store.js';
import { AccountLimits } from './accounts/account-limits.js';
import { accountFlows } from './accounts/account-routes.js';
import { AccountSessions } from './accounts/account-sessions.js';
import { hasPasskeyMethods } from './core/account-store.js';
import { PasskeyChallenges } from './accounts/passkeys/challenges.js';
import { PasskeyService } from './accounts/passkeys/passkey-service.js';
import { relyingPartyFor } from './accounts/passkeys/relying-party.js';
import { passkeyAccountRoutes } from './accounts/passkeys/routes.js';
import { FactorChanges } from './accounts/mfa/factor-changes.js';
import { SessionDevices } from './accounts/session-devices.js';
import { accountHomeRoutes, type AccountHomeDeps } from './accounts/account-home.js';
import { SecondFactors } from './accounts/mfa/second-factors.js';
import { createMailer } from './accounts/mailer.js';
import { VerificationTokens } from './accounts/verification-tokens.js';
import { ACCOUNT_PATHS } from './accounts/paths.js';
import { connectedApps, revokeApp } from './accounts/account-apps.js';
import { loadConfig } from './config/load.js';
import type { PortcullisConfig, ResolvedConfig } from '../config/types.js';
import { ConfigError } from './core/errors.js';
import { startApollo } from './graphql/apollo.js';
import type { GraphqlContext } from './graphql/auth-context.js';
import { CSRF_TOKEN_SUFFIX, graphqlTransportGuard } from './graphql/transport.js';
import { bearerAuth } from './graphql/bearer-auth.js';
import { graphqlTransportOptions, tokenVerification } from './graphql/wiring.js';
import { CsrfGuard } from './http/csrf.js';
import { handleErrors, notFound, refuseUnroutedMethods, writeError } from './http/error-handler.js';
import { healthEndpoints } from './http/health.js';
import { providerLane } from './http/provider-lane.js';
import { adoptHostBody } from './http/host-body.js';
import { nodeHandler, type NodeHandlerSource } from './http/node-handler.js';
import { isReservedPath, issuerPath, misplacedMountDescription, routeTable, unmatchedPaths, type RouteParts } from './http/routes.js';
import { issuerHostGuard, pinAppToIssuer } from './http/issuer-host.js';
import { requestLog } from './http/request-log.js';
import { createStorage } from './storage.js';
import type { LimiterBackend } from './core/limiter.js';
import { createLogger, type Logger } from './core/logger.js';
import { ConsentStore } from './oidc/consent-store.js';
import { interactionRoutes } from './oidc/interactions.js';
import { DEFAULT_SIGNING_ALGORITHMS, generateCookieKey, generateSigningKeys } from './oidc/keys.js';
import { createProvider, registrationEnabled } from './oidc/provider.js';
import { InitialAccessTokens, type MintInitialAccessTokenOptions } from './oidc/initial-access-tokens.js';
import { ScopePolicy } from './oidc/scope-policy.js';
import { logoRoute, resolveUi, uiContext } from './ui/ui.js';

/** What {@link createServer} returns. */
export interface PortcullisServer extends NodeHandlerSource {
  /** The Koa app serving everything; `app.callback()` is a Node request listener. */
  readonly app: Koa;
  /** The oidc-provider instance (events, `Client`, `Grant`, `AccessToken` models). */
  readonly provider: Provider;
  /** The Apollo Server, when `graphql` is configured. */
  readonly apollo: ApolloServer<GraphqlContext> | undefined;
  /** The validated, frozen configuration. */
  readonly config: ResolvedConfig;
  /** The account store in use: `accountStore`, else the storage's own (`Storage.accountStore`), seeded from `accounts`. */
  readonly accounts: AccountStore;
  /** The logger in use. */
  readonly logger: Logger;
  /** The storage in use (memory, Redis, or the host's own instance). */
  readonly storage: Storage;
  /** Rate-limit backend matching the storage (Redis counters when storage is Redis). */
  readonly limiterBackend: LimiterBackend;
  /**
   * The whole server as one Koa middleware, to mount at the root of a host Koa app
   * (`hostApp.use(server.middleware())`). It serves the authorization server under the issuer's path
   * (`https://host/auth` → `/auth/token`, `/auth/.well-known/openid-configuration`, and RFC 8414's
   * `/.well-known/oauth-authorization-server/auth` at the root), GraphQL at `graphql.path`, and calls `next()`
   * for every other path. `koa-mount` at the issuer's path works too (without the path-inserted metadata, which
   * is outside the mount). Best placed before the host's body parser; after one, the raw body it keeps
   * (`ctx.request.rawBody`) is used.
   */
  middleware(): Middleware;
  /** Starts listening; resolves with the Node HTTP server. */
  listen(port: number, host?: string): Promise<Server>;
  /**
   * Ends every session of an account and revokes all its grants with their codes, access and refresh tokens
   * (what a password reset or e-mail change does). Resolves with how many sessions and grants were found.
   */
  revokeSessions(accountId: string): Promise<{ sessions: number; grants: number }>;
  /**
   * Revokes what an account gave a client, as the account page's "Revoke access" does: forgets the remembered
   * consent (the next authorization prompts again) and revokes the account's grants for the client with their
   * codes, access and refresh tokens. Sessions, other clients and other accounts are untouched.
   * @example await server.revokeConsent('alice', 'demo-web');
   */
  revokeConsent(accountId: string, clientId: string): Promise<void>;
  /**
   * Mints an initial access token for dynamic client registration (RFC 7591 §3): single-use by default,
   * expiring after `expiresIn` seconds (default one day). Send it as `Authorization: Bearer <token>` to
   * `POST /registration`.
   * @throws {ConfigError} at `registration.enabled` when registration is off.
   */
  mintInitialAccessToken(options?: MintInitialAccessTokenOptions): Promise<string>;
  /** Stops the HTTP server (if `listen` was used), Apollo and the storage it opened (a host's own instance stays open). Idempotent. */
  close(): Promise<void>;
}

/** `graphql.path` is absolute on the host; under the issuer's path it must not shadow a route of the server. */
function checkGraphqlPath(path: string, prefix: string): void {
  const under = prefix === '' ? path : path === prefix ? '/' : path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : undefined;
  if (under !== undefined && isReservedPath(under)) {
    throw new ConfigError('graphql.path', `${path} collides with an authorization server route under the issuer ${prefix ? `path ${prefix}` : 'root'}`);
  }
}

/**
 * Builds a Portcullis server: an OAuth 2.0 authorization server with OpenID Connect (oidc-provider) and,
 * when `graphql` is configured, a GraphQL API (Apollo Server) on one Koa app.
 *
 * @example
 * ```ts
 * const server = await createServer({ issuer: 'http://localhost:3000', clients: [...], accounts: [...] });
 * await server.listen(3000);
 * ```
 * @throws {ConfigError} `ERR_CONFIG_INVALID` (dotted option path and what was expected) or
 *   `ERR_CONFIG_INSECURE` (production without keys, with demo fixtures, …); `storage.url` when its database
 *   index does not exist.
 * @throws {StorageConnectError} `ERR_STORAGE_UNAVAILABLE` when Redis cannot be opened: the redacted URL and why.
 *   Whatever fails, what was opened is closed before the promise rejects, so the process can exit.
 */
export async function createServer(input: PortcullisConfig): Promise<PortcullisServer> {
  const config = loadConfig(input);
  const ui = resolveUi(config.ui);
  const prefix = issuerPath(config.issuer);
  if (config.graphql) checkGraphqlPath(config.graphql.path, prefix);

  const logger = config.logger ?? createLogger();
  if (!config.keys.signing) logger.warn('keys.signing not set: using ephemeral RS256, ES256 and EdDSA signing keys (tokens die with this process; development only)');
  if (!config.keys.cookies) logger.warn('keys.cookies not set: using random cookie keys (sessions die with this process; development only)');
  const signingKeys = config.keys.signing ?? await generateSigningKeys(DEFAULT_SIGNING_ALGORITHMS);
  const cookieKeys = config.keys.cookies ? [...config.keys.cookies] : [generateCookieKey()];

  const { storage, owned: ownsStorage } = await createStorage(config.storage);
  const limiterBackend = storage.limiterBackend();
  let apollo: ApolloServer<GraphqlContext> | undefined;
  try {
    const accounts = config.accountStore ?? await storage.accountStore(config.accounts, logger);
    const consents = new ConsentStore(storage.adapter);
    const scopes = new ScopePolicy(config.scopes);
    const initialAccessTokens = new InitialAccessTokens(storage.adapter);
    const accountSessions = new AccountSessions(storage.adapter, logger, storage.addToAccountIndex?.bind(storage));
    const sessionDevices = new SessionDevices(storage.adapter, logger); // each session's User-Agent and IP, for /account
    const linkTokens = new VerificationTokens(storage.adapter, Math.max(config.selfService.verificationTtl, config.selfService.resetTtl, config.ttl.interaction));
    const provider = await createProvider({
      config, storage, accounts, consents, scopes, signingKeys, cookieKeys, initialAccessTokens, limiterBackend, adapter: accountSessions.wrap(storage.adapter), afterSignIn: sessionDevices.middleware() as never,
      credentialsChangedAt: (id: string) => linkTokens.credentialsChangedAt(id),
    });
    provider.on('server_error', (_ctx: unknown, err: Error) => logger.error({ err }, 'oidc-provider server_error'));
    // Errors outside oidc-provider's route handlers (e.g. a client aborting a request body) go to our logger, not
    // to Koa's default handler, which prints stack traces to stderr.
    (provider as unknown as Koa).on('error', (err: Error) => logger.warn({ err: { name: err.name, message: err.message, code: (err as { code?: string }).code } }, 'oidc-provider request error'));
    const pageCsrf = CsrfGuard.fromCookieKey(cookieKeys[0]!, prefix); // every page; GraphQL: .under(graphql.path)
    accountSessions.attach(provider);
    const accountLimits = new AccountLimits(config.accountLimits, limiterBackend);
    const mailer = createMailer(config.mail, config.production, logger);
    if (!mailer) logger.warn('mail.smtp not set: no mail is sent, so sign-up and password reset are off');
    // loadConfig refused passkeys.enabled with a store lacking the methods; the type guard only narrows.
    const passkeys = config.passkeys.enabled && hasPasskeyMethods(accounts)
      ? new PasskeyService({ accounts, challenges: new PasskeyChallenges(storage.adapter, config.passkeys.challengeTtl), rp: relyingPartyFor(config.issuer, config.passkeys.rpName), logger })
      : undefined;
    const factors = config.mfa.enabled ? new SecondFactors({
      accounts,
      // Without a key of its own: one derived from the first cookie key (a configured secret in production).
      encryptionKey: config.mfa.encryptionKey ?? createHash('sha256').update(`portcullis-mfa\n${cookieKeys[0]}`).digest('base64url'),
      issuerLabel: config.mfa.issuerLabel ?? new URL(config.issuer).hostname,
      limits: { perAccount: config.accountLimits.secondFactorPerAccount, perIp: config.accountLimits.secondFactorPerIp },
      limiterBackend,
    }) : undefined;
    if (factors && !config.mfa.encryptionKey) logger.warn('mfa.encryptionKey not set: TOTP secrets are encrypted with a key derived from keys.cookies[0]; set mfa.encryptionKey so that rotating cookie keys keeps enrolled authenticator apps working');
    const secondFactors = factors && { factors, passkeys: config.passkeys.secondFactor ? passkeys : undefined };
    const flows = accountFlows({ config, accounts, tokens: linkTokens, mailer, limits: accountLimits, sessions: accountSessions, csrf: pageCsrf, logger, ui, secondFactors, signInMethods: { factors, passkeys }, responseModeOf: async (uid) => (await provider.Interaction.find(uid))?.params.response_mode });
    // Adding or removing any second factor (TOTP, recovery codes, a passkey) signs the other sessions out and mails a notice.
    const factorChanges = new FactorChanges(accountSessions, flows.mail, logger);
    const mfa = factors ? { factors, changes: factorChanges, pending: storage.adapter('MfaPending'), reauthenticateAfterSeconds: config.mfa.reauthenticateAfterSeconds, credentialsChangedAt: (id: string) => linkTokens.credentialsChangedAt(id) } : undefined;

    // Every URL oidc-provider builds (discovery, registration_client_uri, DPoP htu, redirects) names the issuer.
    // Its app sees paths under the issuer's path (the route table strips it).
    pinAppToIssuer(provider as never, config.issuer, { underIssuerPath: true });
    // oidc-provider's own Koa app: behind the route table, or straight from the standalone listener (provider-lane.ts).
    const lane = providerLane(provider as never, prefix);
    const guards = { requestLog: requestLog(logger), uiContext: uiContext(ui), requireIssuerHost: issuerHostGuard({ issuer: config.issuer, allowedHosts: config.allowedHosts, proxy: config.proxy, proxyHops: config.proxyHops, production: config.production }) };

    let graphql: RouteParts['graphql'];
    if (config.graphql) {
      const started = await startApollo(config.graphql, { issuer: config.issuer, logger, limiterBackend, knownScopes: scopes.all });
      apollo = started.apollo;
      graphql = {
        paths: [config.graphql.path, `${config.graphql.path}${CSRF_TOKEN_SUFFIX}`],
        chain: [
          ...graphqlTransportGuard(graphqlTransportOptions(started.options, pageCsrf.under(config.graphql.path))),
          bearerAuth(tokenVerification(provider, config.issuer, started.options.resource, signingKeys, limiterBackend)),
          started.gate,
          started.middleware,
        ],
      };
    }
    // The whole Koa stack, per route, is in lib/http/routes.ts.
    const misplaced = misplacedMountDescription(config.issuer);
    let misplacedLogged = false;
    const parts: RouteParts = {
      prefix,
      adoptHostBody,
      misplacedMount(ctx) {
        if (!misplacedLogged) logger.error({ issuer: config.issuer, path: ctx.originalUrl.split('?')[0] }, 'portcullis middleware mounted under a path the issuer does not name');
        writeError(ctx, 500, 'server_error', misplaced, { page: false });
      },
      ...guards,
      handleErrors,
      notFound,
      health: healthEndpoints(storage),
      oidcProvider: lane.route,
      interactionPages: refuseUnroutedMethods(interactionRoutes({
        provider, accounts, consents, scopes, csrf: pageCsrf, flows, limits: accountLimits, requireVerifiedEmail: config.selfService.requireVerifiedEmail, allowRemoteLogos: config.registration.allowRemoteLogos, mfa,
        passkeys: passkeys && { service: passkeys, secondFactor: config.passkeys.secondFactor },
      })),
      // The flows (sign-up, reset, …), the signed-in account page `/account` (lib/accounts/account-home.ts) and its
      // passkey page `/account/passkeys`, behind the same sign-in guard.
      accountPages: refuseUnroutedMethods(compose([flows.routes, ...accountHome({
        provider, issuer: config.issuer, accounts, sessions: accountSessions, csrf: pageCsrf, cookieKeys, logger,
        reauthenticateAfterSeconds: config.mfa.reauthenticateAfterSeconds, mfa,
        changeEmailUrl: flows.mail.enabled ? ACCOUNT_PATHS.changeEmail : undefined, resetUrl: flows.resetUrl(),
        devices: sessionDevices, limits: accountLimits, mail: flows.mail, linkTokens, passwordMinLength: config.selfService.passwordMinLength, forgetConsent: (a, c) => consents.revoke(a, c), listConsents: (a) => consents.list(a), describeScope: (name) => scopes.describe(name),
      }, passkeys, factorChanges)])),
      logo: refuseUnroutedMethods(logoRoute(ui)),
      graphql,
    };
    // A host app's middleware leaves other paths to the host; the standalone app logs them and answers 404.
    const middleware = routeTable(parts);

    const app = new Koa({ proxy: config.proxy, maxIpsCount: config.proxyHops, keys: cookieKeys });
    app.silent = true;
    app.on('error', (err: Error) => logger.error({ err }, 'request failed'));
    pinAppToIssuer(app, config.issuer);
    app.use(routeTable({ ...parts, unmatched: unmatchedPaths({ requestLog: guards.requestLog, uiContext: guards.uiContext, notFound }) }));

    let httpServer: Server | undefined;
    let closed = false;
    return {
      app,
      provider,
      apollo,
      config,
      accounts,
      logger,
      storage,
      limiterBackend,
      middleware: () => middleware, handler: () => nodeHandler(app, middleware, config.issuer),
      listen(port, host) {
        return new Promise((resolve, reject) => {
          const server = createHttpServer(lane.listener(app.callback(), [guards.requestLog, guards.uiContext, guards.requireIssuerHost])).listen(port, host);
          server.once('listening', () => { httpServer = server; resolve(server); });
          server.once('error', reject);
        });
      },
      async revokeConsent(accountId, clientId) {
        const apps = { provider, sessions: accountSessions, forgetConsent: (a: string, c: string) => consents.revoke(a, c), listConsents: (a: string) => consents.list(a), hidden: [] };
        const app = (await connectedApps(apps, accountId)).find((a) => a.clientId === clientId); // as the account page
        await (app ? revokeApp(apps, accountId, app) : consents.revoke(accountId, clientId)); // else a gone client
      },
      revokeSessions: (accountId) => accountSessions.revokeAll(accountId),
      async mintInitialAccessToken(options) {
        if (!registrationEnabled(config)) throw new ConfigError('registration.enabled', 'dynamic client registration is off: set registration.enabled or registration.initialAccessToken');
        return initialAccessTokens.mint(provider, options);
      },
      async close() {
        if (closed) return;
        closed = true;
        if (httpServer) {
          const server = httpServer;
          await new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); });
        }
        await apollo?.stop();
        await accountSessions.settled();
        if (ownsStorage) await storage.close();
      },
    };
  } catch (err) {
    // A failed start-up must not leave anything running: the ioredis client would reconnect forever and keep
    // the process alive (bad configuration found after the storage opened, a client that fails validation, …).
    await apollo?.stop().catch(() => undefined);
    if (ownsStorage) await storage.close();
    throw err;
  }
}

/** `/account` and, with passkeys on, `/account/passkeys` (both behind the account page's sign-in guard). */
function accountHome(home: AccountHomeDeps, passkeys: PasskeyService | undefined, changes: FactorChanges): Middleware[] {
  const pages = [accountHomeRoutes(home)];
  if (passkeys) pages.unshift(passkeyAccountRoutes({ home, passkeys, changes }));
  return pages;
}
