import type Koa from 'koa';
import type Provider from 'oidc-provider';
import type { ProviderContribution } from '../core/feature.js';
import { pinAppToIssuer } from '../http/issuer-host.js';
import { providerLane } from '../http/provider-lane.js';
import { createProvider } from '../oidc/provider.js';
import type { Kernel } from './types.js';

/**
 * Creates oidc-provider with the kernel's stores and the features' contributions (lib/core/feature.ts), logs its
 * errors, lets the account index follow its sessions and grants, and pins every URL it builds to the issuer.
 * @returns the provider and its lane (how requests reach its own Koa app, lib/http/provider-lane.ts).
 * @throws {ConfigError} at `clients[i]` when a configured client is invalid.
 */
export async function openProvider(kernel: Kernel, contributions: readonly ProviderContribution[]) {
  const { config, logger } = kernel;
  const provider = await createProvider({
    config,
    storage: kernel.storage,
    accounts: kernel.accounts,
    consents: kernel.consents,
    scopes: kernel.scopes,
    signingKeys: kernel.signingKeys,
    cookieKeys: [...kernel.cookieKeys],
    limiterBackend: kernel.limiterBackend,
    adapter: kernel.sessions.wrap(kernel.storage.adapter),
    contributions,
    credentialsChangedAt: (id: string) => kernel.linkTokens.credentialsChangedAt(id),
  });
  provider.on('server_error', (_ctx: unknown, err: Error) => logger.error({ err }, 'oidc-provider server_error'));
  // Errors outside oidc-provider's route handlers (e.g. a client aborting a request body) go to our logger, not
  // to Koa's default handler, which prints stack traces to stderr.
  (provider as unknown as Koa).on('error', (err: Error) =>
    logger.warn(
      { err: { name: err.name, message: err.message, code: (err as { code?: string }).code } },
      'oidc-provider request error',
    ),
  );
  kernel.sessions.attach(provider);
  // Every URL oidc-provider builds (discovery, registration_client_uri, DPoP htu, redirects) names the issuer.
  // Its app sees paths under the issuer's path (the route table strips it).
  pinAppToIssuer(provider as never, config.issuer, { underIssuerPath: true });
  // oidc-provider's own Koa app: behind the route table, or straight from the standalone listener (provider-lane.ts).
  const lane = providerLane(provider as never, kernel.prefix);
  return { provider: provider as Provider, lane };
}
