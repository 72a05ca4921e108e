import type { TProperties } from '@sinclair/typebox';
import type { Middleware } from 'koa';
import type Provider from 'oidc-provider';
import type { Configuration } from 'oidc-provider';
import type { ConfigProblem } from './errors.js';
import type { AdapterFactory } from './storage.js';

/**
 * The feature contract: a capability of the server (a page, an API, a sign-in method, a provider rule) is one value
 * that the server takes in a list (`createServer(config, features)`), after better-auth's plugins. A feature is set
 * up in two steps, because its pages need the oidc-provider instance, which needs every feature's provider parts:
 *
 * 1. `setup(context)` returns its {@link FeatureParts}: what it adds to oidc-provider (configuration, adapter
 *    wrappers, pre-middleware per endpoint, event listeners), its `services` for other features and for the
 *    server's public methods, and `close()`;
 * 2. once the provider exists, `parts.routes(provider)` returns its {@link FeatureRoute}s, which the route table
 *    (lib/http/routes.ts) places behind the guards.
 *
 * The contract is generic over the configuration and the kernel so that lib/core names neither; the server's own
 * instance is `Feature` in lib/kernel/types.ts (exported from `portcullis`). docs/architecture.md walks through
 * writing one.
 */

/** The oidc-provider endpoints a feature may put pre-middleware before; `resume` is `/authorization/:uid`. */
export type ProviderEndpoint =
  | 'authorization'
  | 'resume'
  | 'token'
  | 'userinfo'
  | 'registration'
  | 'introspection'
  | 'revocation'
  | 'pushed_authorization_request'
  | 'end_session'
  | 'jwks';

/**
 * Where a route answers. Paths of the first two kinds are under the issuer's path (`/auth/account/…` for an issuer
 * `https://host/auth`), the third kind is absolute on the host (it may lie outside the issuer's path).
 * - `paths`: these exact paths (`/healthz`);
 * - `segment`: every path whose first segment is this (`/account` serves `/account`, `/account/signup`, …): a page
 *   route. Several features may share a segment (the self-service flows and the account page both answer under
 *   `/account`): their chains run in the features' order, so their paths must not overlap;
 * - `absolute`: these exact absolute paths (`graphql.path` and its CSRF-token path).
 */
export type RouteWhere =
  | { readonly paths: readonly string[] }
  | { readonly segment: string }
  | { readonly absolute: readonly string[] };

/** One route a feature serves; the route table adds the guards (see lib/http/routes.ts for their order). */
export interface FeatureRoute {
  /** A name for errors and docs (`accountPage`, `graphql`). */
  readonly name: string;
  readonly where: RouteWhere;
  /**
   * The largest request body in bytes the route takes (`BODY_LIMITS` in lib/http/body-limit.ts): enforced when a
   * host app's body parser read the body first (adoptHostBody); the route's own parsers enforce it otherwise.
   */
  readonly bodyLimit: number;
  /** Named Koa middleware, in the order they run after the guards. */
  readonly chain: readonly Middleware[];
  /**
   * `true` (default): requestLog → uiContext → handleErrors → requireIssuerHost → adoptHostBody → chain.
   * `false`: requestLog → chain only (health probes, answered for any Host).
   */
  readonly guarded?: boolean;
}

/** A feature's pre-middleware of oidc-provider endpoints: runs after Portcullis' own for those endpoints, in order. */
export interface ProviderBefore {
  readonly endpoints: readonly ProviderEndpoint[];
  readonly middleware: Middleware;
}

/** What a feature adds to oidc-provider, before the instance is created. */
export interface ProviderContribution {
  /** Changes the configuration Portcullis built (e.g. `features.registration`), before the instance is created. */
  configure?(configuration: Configuration): void;
  /**
   * Wraps the adapter factory of oidc-provider's models. Features wrap in their order, innermost first (over the
   * account index of sessions and grants); Portcullis' own wrappers (account prefetch, stale sign-ins, code
   * exchange scopes) go outside all of them.
   */
  wrapAdapter?(factory: AdapterFactory): AdapterFactory;
  /** Pre-middleware by endpoint. None on `/token` and `/userinfo` unless a feature needs it: they are hot paths. */
  readonly before?: readonly ProviderBefore[];
  /** oidc-provider event listeners (`grant.revoked`, `end_session.success`, …), by event name. */
  readonly on?: Readonly<Record<string, (...args: never[]) => unknown>>;
}

/** What `setup` returns. Every member is optional: a feature may only add a service, or only a route. */
export interface FeatureParts<Services = unknown> {
  readonly provider?: ProviderContribution;
  /** What other features (through `use(id)`) or the server's public methods use. */
  readonly services?: Services;
  /** The second step: the routes, once the provider exists. */
  routes?(provider: Provider): readonly FeatureRoute[] | Promise<readonly FeatureRoute[]>;
  /** Releases what `setup` opened (Apollo, timers); called once, in reverse order of set-up. */
  close?(): Promise<void>;
  /**
   * What the feature adds to other features' extension points, by point name: e.g. the sign-in page's methods
   * (`signIn`: a block on the login page and its form actions), so that the feature that owns the page need not
   * name this one. Each point's value type is declared by the feature that reads it (the server's own points:
   * `ExtensionPoints` in lib/features/services.ts, by declaration merging); it reads them with
   * {@link FeatureContext.extensions}.
   */
  readonly extend?: Readonly<Record<string, unknown>>;
}

/** What `setup` receives. */
export interface FeatureContext<Config, Kernel> {
  readonly config: Config;
  /** What every feature shares: logger, keys, storage, account store, mailer, `secret(purpose)`, … */
  readonly kernel: Kernel;
  /**
   * The services of another feature, `undefined` when it is absent or off. During `setup` only the features set
   * up before this one are known (name them in `requires`); during `routes(provider)` every feature is.
   */
  use<T>(featureId: string): T | undefined;
  /**
   * Every set-up feature's contribution to the extension point `point` ({@link FeatureParts.extend}), in set-up
   * order; empty when none. Complete once every feature is set up: read it in `routes(provider)`, not in `setup`.
   */
  extensions<T>(point: string): readonly T[];
}

/**
 * A feature, generic over the configuration and the kernel (see `Feature` in lib/kernel/types.ts); `Validated` is the
 * configuration before the derived defaults ({@link FeatureOf.defaults}).
 */
export interface FeatureOf<Config, Kernel, Services = unknown, Validated = Config> {
  /** Unique among the features (`health`, `graphql`). */
  readonly id: string;
  /** Features set up before this one when present (their services are then known to `use` during `setup`). */
  readonly requires?: readonly string[];
  /**
   * The feature's options: top-level members it adds to the configuration, as TypeBox schemas (JSON Schema), e.g.
   * `{ motd: Type.Optional(Type.Object({ greeting: Type.String({ default: 'Welcome' }) }, { default: {} })) }`.
   * `loadConfig` validates them with the rest of the configuration (unknown members refused, `default`s filled in,
   * errors `ERR_CONFIG_INVALID` at the dotted path), and `config` then holds them under their key. A key is declared
   * once, by the core or by one feature (`ConfigError` at `features` otherwise). The server's own features write
   * theirs in `lib/features/<id>/options.ts`, which config/options.ts composes into the option schema, and so into
   * `PortcullisConfig` and the option reference; a host feature's options are in neither: its code reads them from
   * `config` with a type of its own (docs/architecture.md).
   */
  readonly options?: TProperties;
  /**
   * The paths of the pages and form actions it serves under a page segment (its `segment` routes), by name, under
   * the issuer's path (`{ list: '/account/passkeys' }`): the route reference (docs/reference/routes.md) lists the
   * server's own features' ones. What is served is what its routes answer; this names it for the reader.
   */
  readonly pages?: Readonly<Record<string, string>>;
  /**
   * Its options' derived defaults (`derived` in the option schema: a default computed from other options or the
   * environment, e.g. `passkeys.enabled` from the issuer's host and the account store). Run by `loadConfig` after
   * the option schema's validation, before `enabled` and the checks, for the server's own features always (their
   * options are in the schema whatever the list) and then for the list's others, on or off (`enabled` may read what
   * it derives), in order. It receives the configuration so far (literal defaults filled in, signing keys read,
   * `production` set, the earlier features' derived values in) and returns the top-level members it completes,
   * whole: `{ passkeys: { ...config.passkeys, enabled: … } }`; members it leaves out are kept. A host's feature
   * returns its own options' members the same way (they are not in `Config`: docs/architecture.md).
   */
  defaults?(config: Validated): Partial<Config> & Readonly<Record<string, unknown>>;
  /** Whether the configuration turns it on; an off feature is not set up and `use` returns `undefined` for it. */
  enabled(config: Config): boolean;
  /**
   * Refuses a configuration the feature cannot serve (throw a ConfigError), before anything is opened: run by
   * `loadConfig` (so by `createServer` and `portcullis doctor`) for each enabled feature, in the list's order.
   */
  check?(config: Config): void;
  /**
   * What `NODE_ENV=production` refuses while the feature is on (a secret left derived, a flow that cannot work):
   * returned, not thrown, so that `loadConfig` reports them with the core's in one `ERR_CONFIG_INSECURE`.
   */
  insecure?(config: Config): readonly ConfigProblem[];
  setup(context: FeatureContext<Config, Kernel>): FeatureParts<Services> | Promise<FeatureParts<Services>>;
}
