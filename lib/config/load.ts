import { Type, type TProperties } from '@sinclair/typebox';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ConfigSchema, OPTION_KEYWORDS, type ValidatedOptions } from '../../config/options.js';
import { defaultFeatures } from '../features/index.js';
import type { Feature } from '../kernel/types.js';
import { ConfigError } from '../core/errors.js';
import {
  checkEntries,
  checkInstances,
  checkIssuerPath,
  clientPolicyViolations,
  insecureProductionSettings,
} from './checks.js';
import { checkSigningKeys, readSigningKeys } from '../oidc/keys.js';
import { cloneData, isPlainObject } from './merge.js';
import { schemaProblems } from './schema-errors.js';
import type { PortcullisConfig, ResolvedConfig, ValidatedConfig } from '../../config/types.js';

// `useDefaults` fills every literal default of the option schema into the (cloned) input while validating; sections
// are created empty first, so defaults apply at every depth and a partial section keeps its other members.
// `allErrors` reports every problem in one run; `verbose` gives schemaProblems the alternatives of an anyOf.
// `code.optimize: false` skips ajv's passes over the generated code: they made the option schema's compile take
// ~210 ms of CPU against ~135 (Node 22), for a validator that runs once per loadConfig (same checks, same errors).
const ajv = new Ajv({
  allErrors: true,
  verbose: true,
  strict: true,
  allowUnionTypes: true,
  useDefaults: true,
  code: { optimize: false },
});
ajv.addVocabulary([...OPTION_KEYWORDS]);
addFormats.default(ajv);
/**
 * The option schema's validator, compiled on the first loadConfig rather than on import (the CLI's commands and a
 * process that only imports Portcullis never pay for it).
 */
let coreValidate: ValidateFunction<ValidatedOptions> | undefined;
/** The option schema with the options of a host's own features (`options` of the contract), per feature list. */
const validators = new WeakMap<readonly Feature[], ValidateFunction<ValidatedOptions>>();

/**
 * The validator of the option schema plus what the features' `options` add to it. The server's own features' slices
 * are in the schema already (config/options.ts composes them); any other key is added, once: a key the core or
 * another feature declares is refused.
 * @throws {ConfigError} `ERR_CONFIG_INVALID` at `features` for an option key declared twice.
 */
function validatorFor(features: readonly Feature[]): ValidateFunction<ValidatedOptions> {
  const cached = validators.get(features);
  if (cached) return cached;
  const added: TProperties = {};
  const owners = new Map<string, string>();
  for (const { id, options = {} } of features) {
    for (const [key, schema] of Object.entries(options)) {
      // A slice of the server's own features (in the schema already), or a feature listed twice (orderFeatures says
      // so).
      if (ConfigSchema.properties[key as keyof typeof ConfigSchema.properties] === schema || added[key] === schema)
        continue;
      if (key in ConfigSchema.properties || owners.has(key)) {
        const owner = owners.has(key) ? `feature ${JSON.stringify(owners.get(key))}` : 'the server';
        throw new ConfigError(
          'features',
          `feature ${JSON.stringify(id)} declares the option ${JSON.stringify(key)}, which ${owner} declares already`,
        );
      }
      added[key] = schema;
      owners.set(key, id);
    }
  }
  const compiled = owners.size
    ? ajv.compile<ValidatedOptions>(
        Type.Object({ ...ConfigSchema.properties, ...added }, { additionalProperties: false }),
      )
    : (coreValidate ??= ajv.compile<ValidatedOptions>(ConfigSchema));
  validators.set(features, compiled);
  return compiled;
}

function deepFreeze<T>(value: T): T {
  if (Array.isArray(value) || isPlainObject(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}

/**
 * Validates `input` against the option schema (`config/options.ts`), merging it deeply over the defaults, and
 * returns a frozen copy; the caller's object is never mutated. Objects merge member by member at every depth;
 * arrays and maps (`clients`, `scopes`, `graphql.limits.fieldCosts`) replace the default as a whole.
 *
 * Then the derived defaults, each feature its own options' (its `defaults`), and the checks: the core's, and those of
 * each feature the configuration turns on (its `check`, and with `NODE_ENV=production` its `insecure`).
 *
 * @param env `NODE_ENV` (production guards, `selfService.signup` default) and `PORTCULLIS_DEV_MAILBOX`
 *   (`mail.mailbox` default).
 * @param features The server's features (`createServer`'s list): their `options` are validated with the rest, and
 *   the enabled ones' checks run. Default: `defaultFeatures`.
 * @throws {ConfigError} `ERR_CONFIG_INVALID` naming the dotted option path and what was expected (every problem
 *   the option schema finds in one error: `problems`, `path` of the first), or `ERR_CONFIG_INSECURE` when
 *   `NODE_ENV=production` meets an insecure setting; `ERR_CONFIG_INVALID` at `features` when two declare one option.
 */
export function loadConfig(
  input: PortcullisConfig,
  env: NodeJS.ProcessEnv = process.env,
  features: readonly Feature[] = defaultFeatures,
): ResolvedConfig {
  if (!isPlainObject(input)) throw new ConfigError('(root)', 'configuration must be an object');
  const production = env.NODE_ENV === 'production';
  const candidate: Record<string, unknown> = cloneData(input);
  // What defaults would hide, or defaults that come from the environment: read before ajv fills the rest in.
  const explicitType = isPlainObject(candidate.storage) && candidate.storage.type !== undefined;
  if (env.PORTCULLIS_DEV_MAILBOX && (candidate.mail === undefined || isPlainObject(candidate.mail))) {
    candidate.mail = { mailbox: env.PORTCULLIS_DEV_MAILBOX, ...candidate.mail };
  }
  const validate = validatorFor(features);
  if (!validate(candidate)) throw ConfigError.of(schemaProblems(validate.errors ?? []), 'ERR_CONFIG_INVALID');
  checkIssuerPath(candidate.issuer);

  const { keys } = candidate;
  let validated: ValidatedConfig = {
    ...candidate,
    keys: {
      ...keys,
      signing:
        typeof keys.signing === 'string'
          ? readSigningKeys(keys.signing)
          : keys.signing && checkSigningKeys(keys.signing),
    },
    storage: { ...candidate.storage, explicitType },
    production,
  };
  // Defaults derived from other options or the environment (`derived` in the option schema): each feature its own
  // options' (`defaults` of the contract), the server's own features always, since their options are in the schema
  // whatever the list.
  for (const feature of new Set([...defaultFeatures, ...features])) {
    if (feature.defaults) validated = { ...validated, ...feature.defaults(validated) };
  }
  const config = validated as ResolvedConfig;

  checkInstances(config);
  // Each feature the configuration turns on checks its own options (passkeys, mfa, graphql, a host's own).
  const enabled = features.filter((feature) => feature.enabled(config));
  for (const feature of enabled) feature.check?.(config);
  checkEntries(config);
  const insecure = config.production ? insecureProductionSettings(config, enabled) : [];
  const problems = [...insecure, ...clientPolicyViolations(config)];
  if (problems.length) throw ConfigError.of(problems, insecure.length ? 'ERR_CONFIG_INSECURE' : 'ERR_CONFIG_INVALID');
  return deepFreeze(config);
}
