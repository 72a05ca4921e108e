import type { PortcullisConfig } from '../config/types.js';
import { loadConfig } from './config/load.js';
import { defaultFeatures } from './features/index.js';
import { orderFeatures, setUpFeatures } from './kernel/features.js';
import { openKernel } from './kernel/kernel.js';
import { portcullisServer, type PortcullisServer } from './kernel/portcullis-server.js';
import { openProvider } from './kernel/provider.js';
import type { Feature } from './kernel/types.js';

export type { PortcullisServer } from './kernel/portcullis-server.js';
export { defaultFeatures } from './features/index.js';

/**
 * Builds a Portcullis server: an OAuth 2.0 authorization server with OpenID Connect (oidc-provider) and,
 * when `graphql` is configured, a GraphQL API (Apollo Server) on one Koa app. Its capabilities are `features`
 * (lib/core/feature.ts, docs/architecture.md): the configuration turns each on or off; a host may add its own.
 *
 * @example
 * ```ts
 * const server = await createServer({ issuer: 'http://localhost:3000', clients: [...], accounts: [...] });
 * await server.listen(3000);
 * ```
 * @throws {ConfigError} `ERR_CONFIG_INVALID` (dotted option path and what was expected) or
 *   `ERR_CONFIG_INSECURE` (production without keys, with demo fixtures, …); `storage.url` when its database
 *   index does not exist; `features` for a repeated feature id, features that require each other or two
 *   features declaring one option.
 * @throws {StorageConnectError} `ERR_STORAGE_UNAVAILABLE` when Redis cannot be opened: the redacted URL and why.
 *   Whatever fails, what was opened is closed before the promise rejects, so the process can exit.
 */
export async function createServer(
  input: PortcullisConfig,
  features: readonly Feature[] = defaultFeatures,
): Promise<PortcullisServer> {
  const config = loadConfig(input, process.env, features); // the features' options and checks too
  const enabled = orderFeatures(features, config);
  const kernel = await openKernel(config);
  try {
    const setUp = await setUpFeatures(enabled, kernel);
    try {
      const { provider, lane } = await openProvider(kernel, setUp.provider);
      return portcullisServer({ kernel, provider, lane, features: setUp, routes: await setUp.routes(provider) });
    } catch (err) {
      await setUp.close();
      throw err;
    }
  } catch (err) {
    // A failed start-up must not leave anything running: the ioredis client would reconnect forever and keep
    // the process alive (bad configuration found after the storage opened, a client that fails validation, …).
    await kernel.close();
    throw err;
  }
}
