import { createServer as createHttpServer, type Server } from 'node:http';
import type { ApolloServer } from '@apollo/server';
import Koa, { type Middleware } from 'koa';
import type Provider from 'oidc-provider';
import type { ResolvedConfig } from '../../config/types.js';
import type { AccountStore } from '../core/account-store.js';
import { ConfigError } from '../core/errors.js';
import type { FeatureRoute } from '../core/feature.js';
import type { LimiterBackend } from '../core/limiter.js';
import type { Logger } from '../core/logger.js';
import type { Storage } from '../core/storage.js';
import { handleErrors, notFound, writeError } from '../http/error-handler.js';
import { adoptHostBody } from '../http/host-body.js';
import { issuerHostGuard, pinAppToIssuer } from '../http/issuer-host.js';
import { nodeHandler, type NodeHandlerSource } from '../http/node-handler.js';
import type { providerLane } from '../http/provider-lane.js';
import { requestLog } from '../http/request-log.js';
import { misplacedMountDescription, routeTable, unmatchedPaths, type RouteParts } from '../http/routes.js';
import { uiContext } from '../ui/ui.js';
import { connectedApps, revokeApp } from '../accounts/account-apps.js';
import type { GraphqlContext } from '../graphql/auth-context.js';
import type { MintInitialAccessTokenOptions } from '../oidc/initial-access-tokens.js';
import type { SetUpFeatures } from './features.js';
import type { Kernel } from './types.js';

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
  /**
   * The account store in use: `accountStore`, else the storage's own (`Storage.accountStore`), seeded from `accounts`.
   */
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
  /**
   * Stops the HTTP server (if `listen` was used), Apollo and the storage it opened (a host's own instance stays open).
   * Idempotent.
   */
  close(): Promise<void>;
}

/**
 * What {@link portcullisServer} assembles: the kernel, the provider and its lane, the set-up features and their routes.
 */
export interface ServerParts {
  kernel: Kernel;
  provider: Provider;
  lane: ReturnType<typeof providerLane>;
  features: SetUpFeatures;
  routes: readonly FeatureRoute[];
}

/** The services of the features the server's public methods use (by id; lib/features/graphql and registration). */
interface PublicServices {
  graphql?: { apollo: ApolloServer<GraphqlContext> };
  registration?: { mint(provider: Provider, options?: MintInitialAccessTokenOptions): Promise<string> };
}

/**
 * The guards of every route (their order: lib/http/routes.ts) around the features' routes and oidc-provider: the
 * host app's middleware, and the standalone app, which answers other paths with a logged 404.
 */
function routing({ kernel, lane, routes }: ServerParts) {
  const { config, logger } = kernel;
  const guards = {
    requestLog: requestLog(logger),
    uiContext: uiContext(kernel.ui),
    requireIssuerHost: issuerHostGuard({
      issuer: config.issuer,
      allowedHosts: config.allowedHosts,
      proxy: config.proxy,
      proxyHops: config.proxyHops,
      production: config.production,
    }),
  };
  const misplaced = misplacedMountDescription(config.issuer);
  const parts: RouteParts = {
    prefix: kernel.prefix,
    adoptHostBody,
    ...guards,
    handleErrors,
    notFound,
    oidcProvider: lane.route,
    routes,
    misplacedMount(ctx) {
      logger.error(
        { issuer: config.issuer, path: ctx.originalUrl.split('?')[0] },
        'portcullis middleware mounted under a path the issuer does not name',
      );
      writeError(ctx, 500, 'server_error', misplaced, { page: false });
    },
  };
  const app = new Koa({ proxy: config.proxy, maxIpsCount: config.proxyHops, keys: [...kernel.cookieKeys] });
  app.silent = true;
  app.on('error', (err: Error) => logger.error({ err }, 'request failed'));
  pinAppToIssuer(app, config.issuer);
  app.use(
    routeTable({
      ...parts,
      unmatched: unmatchedPaths({ requestLog: guards.requestLog, uiContext: guards.uiContext, notFound }),
    }),
  );
  // A host app's middleware leaves other paths to the host; the standalone app logs them and answers 404.
  return {
    app,
    middleware: routeTable(parts),
    standaloneGuards: [guards.requestLog, guards.uiContext, guards.requireIssuerHost],
  };
}

/** The {@link PortcullisServer} over its parts; `close()` stops the listener, then the features, then the kernel. */
export function portcullisServer(server: ServerParts): PortcullisServer {
  const { kernel, provider, lane, features } = server;
  const { config, consents, sessions } = kernel;
  const { app, middleware, standaloneGuards } = routing(server);
  const use = <K extends keyof PublicServices>(id: K) => features.use<PublicServices[K]>(id);
  let httpServer: Server | undefined;
  let closed = false;
  return {
    app,
    provider,
    apollo: use('graphql')?.apollo,
    config,
    accounts: kernel.accounts,
    logger: kernel.logger,
    storage: kernel.storage,
    limiterBackend: kernel.limiterBackend,
    middleware: () => middleware,
    handler: () => nodeHandler(app, middleware, config.issuer),
    listen(port, host) {
      return new Promise((resolve, reject) => {
        const listener = createHttpServer(lane.listener(app.callback(), standaloneGuards)).listen(port, host);
        listener.once('listening', () => {
          httpServer = listener;
          resolve(listener);
        });
        listener.once('error', reject);
      });
    },
    async revokeConsent(accountId, clientId) {
      const apps = {
        provider,
        sessions,
        forgetConsent: (a: string, c: string) => consents.revoke(a, c),
        listConsents: (a: string) => consents.list(a),
        hidden: [],
      };
      const found = (await connectedApps(apps, accountId)).find((a) => a.clientId === clientId); // as the account page
      await (found ? revokeApp(apps, accountId, found) : consents.revoke(accountId, clientId)); // else a gone client
    },
    revokeSessions: (accountId) => sessions.revokeAll(accountId),
    async mintInitialAccessToken(options) {
      const registration = use('registration');
      if (!registration)
        throw new ConfigError(
          'registration.enabled',
          'dynamic client registration is off: set registration.enabled or registration.initialAccessToken',
        );
      return registration.mint(provider, options);
    },
    async close() {
      if (closed) return;
      closed = true;
      if (httpServer) {
        const listener = httpServer;
        await new Promise<void>((resolve) => {
          listener.close(() => resolve());
          listener.closeAllConnections();
        });
      }
      await features.close();
      await kernel.close();
    },
  };
}
