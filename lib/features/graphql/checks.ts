import { ConfigError } from '../../core/errors.js';
import { isReservedPath, issuerPath } from '../../http/paths.js';
import type { ResolvedConfig } from '../../../config/types.js';

/** `graphql.path` is absolute on the host; under the issuer's path it must not shadow a route of the server. */
function checkGraphqlPath(path: string, prefix: string): void {
  const under =
    prefix === ''
      ? path
      : path === prefix
        ? '/'
        : path.startsWith(`${prefix}/`)
          ? path.slice(prefix.length)
          : undefined;
  if (under !== undefined && isReservedPath(under)) {
    throw new ConfigError(
      'graphql.path',
      `${path} collides with an authorization server route under the issuer ${prefix ? `path ${prefix}` : 'root'}`,
    );
  }
}

/**
 * What the graphql feature refuses when on (`check`, run by `loadConfig`): a path shadowing a route of the server,
 * a validation rule or an `onReject` that is not a function.
 * @throws {ConfigError} `ERR_CONFIG_INVALID` at `graphql.path`, `graphql.onReject` or `graphql.validationRules[i]`.
 */
export function checkGraphql(config: ResolvedConfig): void {
  const options = config.graphql!;
  if (options.onReject !== undefined && typeof options.onReject !== 'function') {
    throw new ConfigError('graphql.onReject', 'must be a function of the rejection');
  }
  options.validationRules.forEach((rule, i) => {
    if (typeof rule !== 'function')
      throw new ConfigError(
        `graphql.validationRules[${i}]`,
        'must be a graphql-js ValidationRule (a function of the validation context)',
      );
  });
  checkGraphqlPath(options.path, issuerPath(config.issuer));
}
