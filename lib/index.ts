/**
 * Portcullis: a secure-by-default OAuth 2.0 authorization server with OpenID Connect, plus a hardened GraphQL
 * API, on one Koa app.
 *
 * This entry point (`portcullis`) holds the server, its configuration types, the errors it throws, what a host
 * needs to plug in its own accounts, storage or mail, and the types of the page templates (`ui.templates`). Every
 * type an option, a template or a store signature uses can be imported by name from here (`test/types/`). The
 * other entry points:
 * - `portcullis/redis`: the Redis storage and account store (ioredis);
 * - `portcullis/rp`: the relying-party helper that checks an access token belongs to a signed-in user;
 * - `portcullis/graphql`: the validation rules, cost function and authorization directives, for hosts that run
 *   their own Apollo Server.
 * @packageDocumentation
 */
export { createServer, defaultFeatures, type PortcullisServer } from './server.js';
// Features (docs/architecture.md): the contract, the kernel a feature's setup receives, the routes it returns.
export type { Feature, Kernel } from './kernel/types.js';
export type {
  FeatureContext,
  FeatureParts,
  FeatureRoute,
  ProviderBefore,
  ProviderContribution,
  ProviderEndpoint,
  RouteWhere,
} from './core/feature.js';
export { BODY_LIMITS } from './http/body-limit.js';
export type { NodeHandlerSource, NodeNext, NodeRequestHandler } from './http/node-handler.js';
export type {
  PortcullisConfig,
  ClientConfig,
  SeedAccount,
  ScopeDefinition,
  TtlConfig,
  KeysConfig,
  GraphqlConfig,
  StorageConfig,
  PrivateJwks,
  ResolvedConfig,
  ValidatedConfig,
  SelfServiceConfig,
  MailConfig,
  AccountLimitsConfig,
  LimitConfig,
  OutboundFetchConfig,
  RateLimitsConfig,
  RateLimitSpec,
  GraphqlIntrospectionConfig,
  GraphqlTransportsConfig,
  GraphqlLimitsConfig,
  RegistrationConfig,
  PasskeysConfig,
  MfaConfig,
  UiConfig,
  UiColorsConfig,
} from '../config/types.js';
// `ui.templates`: the hook, the kit and the view of every page. SafeHtml and Translator are types only: markup is
// made with the kit's `html` and `raw`, so that escaping stays the default.
export type {
  UiTemplates,
  TemplateKit,
  PageTemplate,
  FrameView,
  LoginView,
  ConsentView,
  LogoutView,
  SignedOutView,
  Field,
  FormView,
  MessageView,
  ErrorView,
  ErrorSituation,
  CodeView,
  EnrolView,
  RecoveryView,
  PasskeyPageView,
  AccountHomeView,
  PageUi,
  UiSettings,
  Logo,
} from './ui/templates.js';
export type { SafeHtml } from './ui/html.js';
export type { Translator, Locale, MessageKey } from './ui/i18n.js';
export type { LimitSpec, LimiterBackend } from './core/limiter.js';
export { loadConfig } from './config/load.js';
export {
  PortcullisError,
  ConfigError,
  StorageConnectError,
  StorageUnavailableError,
  type PortcullisErrorCode,
  type PortcullisErrorOptions,
  type OAuthErrorCode,
  type ConfigProblem,
} from './core/errors.js';
export { InvalidTokenError } from './graphql/auth-context.js';
export { InvalidDpopProofError } from './graphql/dpop.js';
export { GraphqlErrorCode } from './graphql/errors.js';
export type {
  Account,
  AccountSeed,
  AccountStore,
  NewAccount,
  StoredPasskey,
  StoredSecondFactor,
} from './core/account-store.js';
export { canonicalEmail, parseEmailAddress, sameEmailAddress, type EmailAddress } from './core/email-address.js';
export { mergeConfig } from './config/merge.js';
export type { Mailer, MailMessage } from './core/mailer.js';
export { MemoryAccountStore } from '../adapters/memory-account-store.js';
export { hashPassword, verifyPassword } from '../adapters/password.js';
export type { AuthInfo, GraphqlContext } from './graphql/auth-context.js';
export type { GraphqlRejection, GraphqlRejectHook } from './core/graphql-rejection.js';
export { hasScope } from './graphql/auth-context.js';
export {
  generateSigningKeys,
  generateCookieKey,
  readSigningKeys,
  readSigningKeysFile,
  DEFAULT_SIGNING_ALGORITHMS,
  type SigningAlgorithm,
} from './oidc/keys.js';
export {
  createGuardedFetch,
  checkOutboundUrl,
  isPublicAddress,
  OutboundFetchError,
  type GuardedFetch,
  type GuardedFetchOptions,
  type OutboundRefusal,
} from './http/guarded-fetch.js';
export type { MintInitialAccessTokenOptions, InitialAccessTokens } from './oidc/initial-access-tokens.js';
export { MemoryStorage, type MemoryStorageOptions } from '../adapters/memory.js';
export type { Adapter, AdapterFactory, AdapterPayload, Storage } from './core/storage.js';
export type { Logger } from './core/logger.js';
