import { HEALTH_PATHS } from '../../http/paths.js';
import type { Feature } from '../../kernel/types.js';
import { healthEndpoints } from './health.js';

/**
 * Health probes: `GET /healthz` (the process serves) and `GET /readyz` (the storage answers, else 503), under the
 * issuer's path, for any Host and with the request log only (load balancers probe by address).
 */
export const health: Feature = {
  id: 'health',
  enabled: () => true,
  setup: ({ kernel }) => ({
    routes: () => [
      {
        name: 'health',
        where: { paths: Object.values(HEALTH_PATHS) },
        bodyLimit: 0,
        guarded: false,
        chain: [healthEndpoints(kernel.storage)],
      },
    ],
  }),
};
