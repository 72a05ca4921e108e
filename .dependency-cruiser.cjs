/**
 * The layers of Portcullis, checked by `npm run check:layers` (and by test/architecture/layers.test.ts, so the
 * README's test command fails on a violation). Each layer imports only the layers above it in this list:
 *
 *   core      lib/core/ (errors, logger, contracts: Storage, AccountStore, Limiter, Mailer), then config/ (the
 *             option schema, types, defaults; imports lib/core contracts only), then lib/ui/ (branding,
 *             languages, message catalogs, HTML escaping, the template hook and its views), then lib/http/ (page
 *             rendering with lib/ui, CSRF, security headers, the error writer, outbound fetch guard, route table,
 *             issuer-host guard); config/ may name the ui types
 *             (lib/ui/i18n.ts, lib/ui/templates.ts: message keys, languages, the hook) and nothing else of lib/ui.
 *             A feature's option slice (lib/features/<id>/options.ts) belongs to this layer although it lives in
 *             its feature's folder: config/options.ts composes the one option schema from the core's options and
 *             these slices, and that schema cannot sit higher, because every layer below the features reads what
 *             it gives (the resolved types in lib/ui, the modules and the kernel; DEFAULTS in adapters and
 *             lib/http). So a slice is schema only: it imports the option kit (config/option-kit.ts), lib/core contracts, the ui types
 *             and third-party types, nothing else of ours
 *   adapters  adapters/ (memory and Redis: storage and account store each); contracts only, no lib/http
 *   modules   lib/oidc/, lib/accounts/, lib/graphql/, lib/rp/: the capabilities' code; lib/oidc may use
 *             lib/accounts (the login page links the account pages and shares their limits); no adapters, no other
 *             module, nothing of the layers below
 *   kernel    lib/kernel/ (openKernel, setUpFeatures, the provider's creation, the server object) and lib/storage.ts:
 *             anything above, but no feature: it takes the features as values (createServer's `features`)
 *   features  lib/features/<id>/ (one folder per feature, the contract of lib/core/feature.ts): core, config, http,
 *             ui, the modules and the kernel's types (lib/kernel/types.ts); no other feature's folder: what they
 *             share is declared in lib/features/services.ts (types only, reached through `use(id)`)
 *   top       lib/server.ts (createServer), lib/features/index.ts (defaultFeatures), lib/config/ (loading),
 *             lib/cli/ and the entry points (lib/index.ts, lib/redis.ts); anything below
 *   testing   lib/testing/ (`portcullis/testing`, the conformance suites for a host's own Storage / AccountStore):
 *             core only, and imported by nothing in lib/, adapters/ or config/ (only by tests and by hosts)
 * Plus: no circular import anywhere, type-only imports included; no test framework (jest, vitest) anywhere: the
 * suites assert with node:assert, so that a host runs them under any runner.
 */
const FEATURES = '^lib/(oidc|accounts|graphql|rp)/';
const KERNEL = '^lib/kernel/|^lib/storage\\.ts$';
const FEATURE_FOLDERS = '^lib/features/';
/** A feature's slice of the option schema: a config-layer file in its feature's folder (see above). */
const OPTION_SLICES = '^lib/features/[^/]+/options\\.ts$';
const TOP = '^lib/(server|index|redis)\\.ts$|^lib/features/index\\.ts$|^lib/(config|cli)/';

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'A cycle hides which module depends on which; break it by moving the shared part down a layer.', from: {}, to: { circular: true } },
    { name: 'core-is-innermost', severity: 'error', comment: 'lib/core holds the contracts everything else implements or uses: it imports nothing of ours outside lib/core.', from: { path: '^lib/core/' }, to: { path: '^(lib|adapters|config)/', pathNot: '^lib/core/' } },
    { name: 'config-uses-contracts-only', severity: 'error', comment: 'The option schema names contracts (lib/core) and the ui types (message keys, languages, the template hook), never implementations; it composes the features\' option slices.', from: { path: '^config/' }, to: { path: '^(lib|adapters)/', pathNot: ['^lib/core/', '^lib/ui/(i18n|templates)\\.ts$', '^lib/ui/messages/', OPTION_SLICES] } },
    {
      name: 'option-slices-are-schema-only', severity: 'error',
      comment: 'config/options.ts imports the features\' option slices, so a slice stays at the config layer: the option kit (config/option-kit.ts), the contracts of lib/core (as config/ may) and the ui types only, no feature code (which would pull the features below the config).',
      from: { path: OPTION_SLICES }, to: { path: '^(lib|adapters|config)/', pathNot: ['^config/option-kit\\.ts$', '^lib/core/', '^lib/ui/(i18n|templates)\\.ts$', '^lib/ui/messages/'] },
    },
    { name: 'http-knows-no-feature', severity: 'error', comment: 'lib/http is shared by every feature: it imports core, config and lib/ui only.', from: { path: '^lib/http/' }, to: { path: '^(lib|adapters)/', pathNot: '^lib/(core|http|ui)/' } },
    { name: 'ui-knows-no-feature', severity: 'error', comment: 'lib/ui (branding, languages, the template hook and its views, HTML escaping) is shared by every page: it imports core and config only. lib/http renders pages with it, so an import of lib/http from here would make the two folders depend on each other (they did until issue 29: html.ts and mountedPath moved down).', from: { path: '^lib/ui/' }, to: { path: '^(lib|adapters)/', pathNot: '^lib/(core|ui)/' } },
    { name: 'adapters-use-contracts-only', severity: 'error', comment: 'Adapters implement the contracts of lib/core with the option defaults of config/; nothing else of lib/.', from: { path: '^adapters/' }, to: { path: '^lib/', pathNot: '^lib/core/' } },
    { name: 'features-use-no-adapter', severity: 'error', comment: 'Features reach storage through the Storage contract; the server picks the adapter.', from: { path: FEATURES }, to: { path: '^adapters/' } },
    { name: 'features-below-top', severity: 'error', comment: 'Modules never import the server, the kernel, the features, loading, the CLI or the entry points.', from: { path: FEATURES }, to: { path: [TOP, KERNEL, FEATURE_FOLDERS] } },
    { name: 'kernel-knows-no-feature', severity: 'error', comment: 'The kernel takes the features as values (createServer\'s list): it imports no feature folder, the server or the entry points.', from: { path: KERNEL }, to: { path: [FEATURE_FOLDERS, TOP] } },
    {
      name: 'features-use-kernel-types-only', severity: 'error',
      comment: 'A feature receives the kernel in setup: it imports only its types (lib/kernel/types.ts), never the kernel\'s code or the server.',
      from: { path: FEATURE_FOLDERS, pathNot: TOP }, to: { path: [KERNEL, TOP], pathNot: '^lib/kernel/types\\.ts$' },
    },
    {
      name: 'features-independent-folders', severity: 'error',
      comment: 'A feature imports no other feature\'s folder; what features share is declared in lib/features/services.ts (types) and reached through use(id).',
      from: { path: '^lib/features/([^/]+)/' }, to: { path: FEATURE_FOLDERS, pathNot: ['^lib/features/$1/', '^lib/features/services\\.ts$'] },
    },
    { name: 'features-use-no-adapter-either', severity: 'error', comment: 'Features reach storage through the kernel\'s Storage.', from: { path: FEATURE_FOLDERS }, to: { path: '^adapters/' } },
    { name: 'features-independent', severity: 'error', comment: 'accounts, graphql and rp import no other feature.', from: { path: '^lib/(accounts|graphql|rp)/' }, to: { path: FEATURES, pathNot: '^lib/$1/' } },
    { name: 'oidc-uses-accounts-only', severity: 'error', comment: 'oidc may use accounts (the login page links the account pages and shares their limits), no other feature.', from: { path: '^lib/oidc/' }, to: { path: FEATURES, pathNot: '^lib/(oidc|accounts)/' } },
    {
      name: 'testing-uses-core-only', severity: 'error',
      comment: 'The conformance suites test the contracts of lib/core, and nothing else of ours.',
      from: { path: '^lib/testing/' }, to: { path: '^(lib|adapters|config)/', pathNot: '^lib/(core|testing)/' },
    },
    {
      name: 'nothing-imports-testing', severity: 'error',
      comment: 'lib/testing is for tests only (portcullis/testing): runtime code never loads it.',
      from: { pathNot: '^lib/testing/' }, to: { path: '^lib/testing/' },
    },
    {
      name: 'no-test-framework', severity: 'error',
      comment: 'The library runs without jest or vitest installed: lib/testing asserts with node:assert.',
      from: {}, to: { path: '(^|/)node_modules/(jest|jest-[^/]+|@jest/[^/]+|ts-jest|vitest|@vitest/[^/]+)/' },
    },
    { name: 'only-known-folders', severity: 'error', comment: 'Every file of lib/ belongs to a layer; a new folder needs a rule here.', from: { path: '^lib/', pathNot: ['^lib/(core|http|ui|oidc|accounts|graphql|rp|config|cli|testing|kernel|features)/', TOP, KERNEL] }, to: {} },
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    // node_modules is not followed but stays in the graph (as leaves), so that no-test-framework sees imports of it.
    exclude: { path: '^dist/' },
  },
};
