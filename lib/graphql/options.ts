import type { ResolvedConfig } from '../../config/types.js';

/**
 * The `graphql` section with every default applied by `loadConfig` (the option schema, `config/options.ts`, is the
 * one home of each default; `resource` is derived from the issuer and `path`).
 */
export type ResolvedGraphqlOptions = NonNullable<ResolvedConfig['graphql']>;
