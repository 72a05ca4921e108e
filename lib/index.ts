/**
 * Portcullis: a secure-by-default OAuth 2.0 authorization server with OpenID Connect, plus a hardened GraphQL
 * API, on one Koa app.
 * @packageDocumentation
 */
export { createServer, type PortcullisServer } from './server.js';
export type {
  PortcullisConfig, ClientConfig, SeedAccount, ScopeDefinition, TtlConfig, KeysConfig, GraphqlConfig,
  StorageConfig, PrivateJwks, ResolvedConfig,
} from './config/types.js';
export { loadConfig } from './config/load.js';
export { mergeConfig } from './config/merge.js';
export { PortcullisError, ConfigError, StorageConnectError, StorageUnavailableError, type PortcullisErrorCode } from './errors.js';
export type { Account, AccountStore } from './accounts/account-store.js';
export type { NewAccount } from './accounts/account-store.js';
export type { SelfServiceConfig, MailConfig, AccountLimitsConfig, LimitConfig } from './config/types.js';
export type { Mailer, MailMessage } from './accounts/mailer.js';
export { MemoryAccountStore } from './accounts/memory-account-store.js';
export { hashPassword, verifyPassword } from './accounts/password.js';
export type { AuthInfo, GraphqlContext } from './graphql/auth-context.js';
export { hasScope } from './graphql/auth-context.js';
export { generateSigningKeys, generateCookieKey, readSigningKeys, readSigningKeysFile, DEFAULT_SIGNING_ALGORITHMS, type SigningAlgorithm } from './oidc/keys.js';
export { createGuardedFetch, checkOutboundUrl, isPublicAddress, OutboundFetchError, type GuardedFetch, type GuardedFetchOptions, type OutboundRefusal } from './http/guarded-fetch.js';
export type { MintInitialAccessTokenOptions } from './oidc/initial-access-tokens.js';
export type { OutboundFetchConfig, RateLimitsConfig, RateLimitSpec } from './config/types.js';
export { visibleTo, forbidden, findPrivateLookingFields, AUTHORIZATION_TYPE_DEFS } from './graphql/authorization.js';
export {
  createMaxAliasesRule, createMaxCostRule, createMaxDepthRule, createMaxDirectivesRule, createMaxRecursiveSelectionsRule,
  createMaxRootFieldsRule, createMaxUniqueFieldsRule, coerceVariables, KnownOperationTypesRule, operationCost, type CostOptions, type LimitErrorCode,
} from './graphql/rules/index.js';
export { MemoryStorage, type MemoryStorageOptions } from '../adapters/memory.js';
export type { Adapter, AdapterFactory, AdapterPayload, Storage } from '../adapters/types.js';
export { OPTION_DOCS, DEFAULTS } from '../config/defaults.js';
export { createLogger, type Logger } from './logger.js';
export { createLimiter, type Limiter, type LimitResult, type LimitSpec } from './limits/limiter.js';
export {
  verifyAccessTokenForUser, TokenPairingError, type TokenPairingErrorCode, type VerifyAccessTokenOptions, type VerifiedUser,
} from './rp/verify-access-token.js';
export { RedisStorage, failFastRedisOptions, type RedisClient, type RedisStorageOptions } from '../adapters/redis.js';
export { RedisAccountStore } from '../adapters/redis-account-store.js';
