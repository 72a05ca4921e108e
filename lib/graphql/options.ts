import { DEFAULTS } from '../../config/defaults.js';
import type { GraphqlConfig, GraphqlLimitsConfig } from '../config/types.js';
import type { LimitSpec } from '../limits/limiter.js';

/** The GraphQL options with every default applied (see `OPTION_DOCS` for each). */
export interface ResolvedGraphqlOptions {
  path: string;
  resource: string;
  introspection: { enabled: boolean; requiredScope?: string };
  transports: { get: boolean; form: boolean };
  corsOrigins: readonly string[];
  maxBatchSize: number;
  trustedDocuments?: readonly string[];
  limits: Required<GraphqlLimitsConfig>;
  rateLimit: LimitSpec | false;
  privateFieldCheck: 'warn' | 'refuse' | 'off';
}

/** Applies the defaults of `config/defaults.ts` to the `graphql` section. */
export function resolveGraphqlOptions(config: GraphqlConfig, issuer: string): ResolvedGraphqlOptions {
  const path = config.path ?? DEFAULTS.graphqlPath;
  return {
    path,
    resource: config.resource ?? `${issuer.replace(/\/$/, '')}${path}`,
    introspection: { enabled: config.introspection?.enabled ?? false, requiredScope: config.introspection?.requiredScope },
    transports: { get: config.transports?.get ?? false, form: config.transports?.form ?? false },
    corsOrigins: config.corsOrigins ?? [],
    maxBatchSize: config.maxBatchSize ?? 0,
    trustedDocuments: config.trustedDocuments,
    limits: { ...DEFAULTS.graphqlLimits, ...config.limits } as Required<GraphqlLimitsConfig>,
    rateLimit: config.rateLimit === false ? false : { ...DEFAULTS.graphqlRateLimit, ...config.rateLimit },
    privateFieldCheck: config.privateFieldCheck ?? 'warn',
  };
}
