import type { PrivateJwks, ResolvedConfig, ValidatedConfig } from '../../config/types.js';
import type { AccountStore } from '../core/account-store.js';
import type { FeatureOf } from '../core/feature.js';
import type { LimiterBackend } from '../core/limiter.js';
import type { Logger } from '../core/logger.js';
import type { Mailer } from '../core/mailer.js';
import type { Storage } from '../core/storage.js';
import type { CsrfGuard } from '../http/csrf.js';
import type { UiSettings } from '../ui/ui.js';
import type { AccountLimits } from '../accounts/account-limits.js';
import type { AccountSessions } from '../accounts/account-sessions.js';
import type { VerificationTokens } from '../accounts/verification-tokens.js';
import type { ConsentStore } from '../oidc/consent-store.js';
import type { ScopePolicy } from '../oidc/scope-policy.js';

/**
 * What every feature shares, opened by `openKernel` (lib/kernel/kernel.ts) before any feature is set up and closed
 * after every feature. The first group is the platform; the second the authorization server's own records, which
 * oidc-provider's adapter, the server's public methods (`revokeSessions`, `revokeConsent`) and several features
 * (sign-in, self-service, account page) use whatever features are on.
 */
export interface Kernel {
  readonly config: ResolvedConfig;
  readonly logger: Logger;
  /** `keys.signing`, else ephemeral development keys (with a warning). */
  readonly signingKeys: PrivateJwks;
  /** `keys.cookies`, else one random development key (with a warning); the first signs, all verify. */
  readonly cookieKeys: readonly string[];
  readonly storage: Storage;
  /** Whether the kernel opened the storage (and so closes it): not a host's own instance. */
  readonly ownsStorage: boolean;
  readonly limiterBackend: LimiterBackend;
  /** `accountStore`, else the storage's own, seeded from `accounts`. */
  readonly accounts: AccountStore;
  /** The SMTP mailer, `undefined` without `mail.smtp` (sign-up and reset are then off). */
  readonly mailer: Mailer | undefined;
  /** Branding, languages and templates (`ui`, resolved). */
  readonly ui: UiSettings;
  /** The issuer's path: `''` at a host's root, `/auth` for `https://host/auth`. */
  readonly prefix: string;
  /**
   * A key for one purpose derived from the first cookie key: base64url SHA-256 of `portcullis-<purpose>\n<key>`,
   * so it never equals a cookie-signing key. `csrf` signs the forms' tokens, `mfa` encrypts TOTP secrets without
   * `mfa.encryptionKey`: rotating `keys.cookies` changes both.
   */
  secret(purpose: string): string;
  /** The pages' CSRF guard (key `secret('csrf')`, cookie under the issuer's path on plain http). */
  readonly csrf: CsrfGuard;

  /** Remembered consents per account and client. */
  readonly consents: ConsentStore;
  readonly scopes: ScopePolicy;
  /** Each account's sessions and grants (wraps oidc-provider's adapter; `revokeSessions`). */
  readonly sessions: AccountSessions;
  /** E-mail links and when an account's credentials last changed (a sign-in checked before then is not resumed). */
  readonly linkTokens: VerificationTokens;
  /** The login and account-form rate limits (`accountLimits`). */
  readonly limits: AccountLimits;
  /** Waits for pending session bookkeeping and closes the storage it opened. Idempotent. */
  close(): Promise<void>;
}

/**
 * A feature of the Portcullis server (the contract: lib/core/feature.ts): `{ id, requires?, options?,
 * defaults?(config), enabled(config), check?(config), insecure?(config), setup({ config, kernel, use, extensions })
 * }`.
 * `createServer(config, features)` takes a list of them;
 * `defaultFeatures` is the server's own.
 */
export type Feature<Services = unknown> = FeatureOf<ResolvedConfig, Kernel, Services, ValidatedConfig>;
