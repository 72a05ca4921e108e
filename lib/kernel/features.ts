import type Provider from 'oidc-provider';
import type { ResolvedConfig } from '../../config/types.js';
import type { FeatureParts, FeatureRoute, ProviderContribution } from '../core/feature.js';
import { ConfigError } from '../core/errors.js';
import type { Feature, Kernel } from './types.js';

/** The features that are set up, in set-up order, and what they returned. */
export interface SetUpFeatures {
  /** The features' provider contributions, in set-up order. */
  readonly provider: readonly ProviderContribution[];
  /** A feature's services, `undefined` when it is absent or off. */
  use<T>(featureId: string): T | undefined;
  /** The second step: every feature's routes, in set-up order. */
  routes(provider: Provider): Promise<FeatureRoute[]>;
  /** Closes every feature, in reverse order of set-up; a failing close does not stop the others. */
  close(): Promise<void>;
}

/**
 * The enabled features in set-up order: the list's order, except that a feature comes after those it `requires`
 * (when present in the list). Each enabled feature's `check(config)` has run in `loadConfig`.
 * @throws {ConfigError} at `features` for a repeated id or a cycle of `requires`.
 */
export function orderFeatures(features: readonly Feature[], config: ResolvedConfig): Feature[] {
  const byId = new Map<string, Feature>();
  for (const feature of features) {
    if (byId.has(feature.id))
      throw new ConfigError('features', `feature ${JSON.stringify(feature.id)} is listed twice`);
    byId.set(feature.id, feature);
  }
  const ordered: Feature[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (feature: Feature, path: readonly string[]) => {
    if (state.get(feature.id) === 'done') return;
    if (state.get(feature.id) === 'visiting')
      throw new ConfigError('features', `features require each other: ${[...path, feature.id].join(' → ')}`);
    state.set(feature.id, 'visiting');
    for (const id of feature.requires ?? []) {
      const required = byId.get(id);
      if (required) visit(required, [...path, feature.id]);
    }
    state.set(feature.id, 'done');
    ordered.push(feature);
  };
  for (const feature of features) visit(feature, []);
  return ordered.filter((feature) => feature.enabled(config));
}

/**
 * Sets the features up in order (see {@link orderFeatures}): each `setup` gets the configuration, the kernel and
 * `use(id)`. If one throws, those already set up are closed before the error propagates.
 */
export async function setUpFeatures(features: readonly Feature[], kernel: Kernel): Promise<SetUpFeatures> {
  const parts = new Map<string, FeatureParts>();
  const use = <T>(id: string) => parts.get(id)?.services as T | undefined;
  const extensions = <T>(point: string) =>
    [...parts.values()].flatMap((part) =>
      part.extend && Object.hasOwn(part.extend, point) ? [part.extend[point] as T] : [],
    );
  const close = async () => {
    for (const part of [...parts.values()].reverse())
      await part.close?.().catch((err: unknown) => kernel.logger.error({ err }, 'feature close failed'));
  };
  try {
    for (const feature of features)
      parts.set(feature.id, await feature.setup({ config: kernel.config, kernel, use, extensions }));
  } catch (err) {
    await close();
    throw err;
  }
  return {
    provider: [...parts.values()].flatMap((part) => (part.provider ? [part.provider] : [])),
    use,
    async routes(provider) {
      const routes: FeatureRoute[] = [];
      for (const part of parts.values()) if (part.routes) routes.push(...(await part.routes(provider)));
      return routes;
    },
    close,
  };
}
