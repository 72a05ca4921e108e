import { createHash } from 'node:crypto';
import type { ResolvedConfig } from '../../config/types.js';
import { createLogger } from '../core/logger.js';
import { CsrfGuard } from '../http/csrf.js';
import { issuerPath } from '../http/paths.js';
import { resolveUi } from '../ui/ui.js';
import { AccountLimits } from '../accounts/account-limits.js';
import { AccountSessions } from '../accounts/account-sessions.js';
import { createMailer } from '../accounts/mailer.js';
import { VerificationTokens } from '../accounts/verification-tokens.js';
import { ConsentStore } from '../oidc/consent-store.js';
import { DEFAULT_SIGNING_ALGORITHMS, generateCookieKey, generateSigningKeys } from '../oidc/keys.js';
import { ScopePolicy } from '../oidc/scope-policy.js';
import { createStorage } from '../storage.js';
import type { Kernel } from './types.js';

/**
 * Opens what every feature shares ({@link Kernel}): the branding, the logger, the keys (ephemeral development
 * keys with a warning each when `keys.signing` / `keys.cookies` are not set), the storage (memory, Redis or the
 * host's own instance), its limiter backend, the account store, the mailer (a warning without `mail.smtp`) and
 * the authorization server's records.
 * @throws {ConfigError} from `ui` (unknown message keys, templates) before anything is opened.
 * @throws {StorageConnectError} when Redis cannot be opened. Whatever fails after the storage opened, it is closed
 *   before the promise rejects.
 */
export async function openKernel(config: ResolvedConfig): Promise<Kernel> {
  const ui = resolveUi(config.ui);
  const prefix = issuerPath(config.issuer);
  const logger = config.logger ?? createLogger();
  if (!config.keys.signing)
    logger.warn(
      'keys.signing not set: using ephemeral RS256, ES256 and EdDSA signing keys (tokens die with this ' +
        'process; development only)',
    );
  if (!config.keys.cookies)
    logger.warn('keys.cookies not set: using random cookie keys (sessions die with this process; development only)');
  const signingKeys = config.keys.signing ?? (await generateSigningKeys(DEFAULT_SIGNING_ALGORITHMS));
  const cookieKeys = config.keys.cookies ? [...config.keys.cookies] : [generateCookieKey()];
  const secret = (purpose: string) =>
    createHash('sha256').update(`portcullis-${purpose}\n${cookieKeys[0]}`).digest('base64url');

  const { storage, owned: ownsStorage } = await createStorage(config.storage);
  try {
    const limiterBackend = storage.limiterBackend();
    const accounts = config.accountStore ?? (await storage.accountStore(config.accounts, logger));
    const sessions = new AccountSessions(storage.adapter, logger, storage.addToAccountIndex?.bind(storage));
    const { selfService } = config;
    const linkTokens = new VerificationTokens(
      storage.adapter,
      Math.max(selfService.verificationTtl, selfService.resetTtl, config.ttl.interaction),
    );
    const mailer = createMailer(config.mail, config.production, logger);
    if (!mailer) logger.warn('mail.smtp not set: no mail is sent, so sign-up and password reset are off');
    let closed = false;
    return {
      config,
      logger,
      signingKeys,
      cookieKeys,
      storage,
      ownsStorage,
      limiterBackend,
      accounts,
      mailer,
      ui,
      prefix,
      secret,
      csrf: new CsrfGuard(secret('csrf'), prefix), // every page; GraphQL: .under(graphql.path)
      consents: new ConsentStore(storage.adapter),
      scopes: new ScopePolicy(config.scopes),
      sessions,
      linkTokens,
      limits: new AccountLimits(config.accountLimits, limiterBackend),
      async close() {
        if (closed) return;
        closed = true;
        await sessions.settled();
        if (ownsStorage) await storage.close();
      },
    };
  } catch (err) {
    // The ioredis client would reconnect forever and keep the process alive.
    if (ownsStorage) await storage.close();
    throw err;
  }
}
