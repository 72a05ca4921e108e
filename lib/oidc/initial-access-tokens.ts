import { createHash, timingSafeEqual } from 'node:crypto';
import type Provider from 'oidc-provider';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { overriding, type Adapter, type AdapterFactory, type AdapterPayload } from '../core/storage.js';
import { PortcullisError } from '../core/errors.js';

/** Name of the registration policy that makes an initial access token single-use. */
export const SINGLE_USE_POLICY = 'portcullis:single-use';

/** Options of {@link InitialAccessTokens.mint}. */
export interface MintInitialAccessTokenOptions {
  /** Lifetime in seconds. @default 86400 (one day) */
  expiresIn?: number;
  /** When true the token registers exactly one client; a refused registration does not spend it. @default true */
  singleUse?: boolean;
}

/**
 * Initial access tokens (RFC 7591 §3). Minted tokens are oidc-provider `InitialAccessToken` models in the server's
 * storage, always with an expiry. The one from `registration.initialAccessToken` (multi-use, no expiry) is never
 * stored: {@link InitialAccessTokens.withConfigured} answers it from the configuration of the running process, so
 * a token taken out of the configuration, or replaced, stops working at the next start (see its TSDoc).
 *
 * Single use: each minted single-use token has a companion `InitialAccessTokenUse` entry in the same storage. The
 * first registration presenting the token consumes it (the adapter's atomic check-and-set, so this holds across
 * instances sharing Redis) before the client is created; a successful registration destroys the token and keeps
 * the use consumed until its expiry, a refused one puts the use back.
 */
export class InitialAccessTokens {
  readonly #uses: Adapter;
  /** Which request holds which reservation: only the holder may settle it. */
  readonly #holders = new WeakMap<object, string>();

  constructor(adapter: AdapterFactory) {
    this.#uses = adapter('InitialAccessTokenUse');
  }

  /** oidc-provider `features.registration.policies`. */
  readonly policies = {
    [SINGLE_USE_POLICY]: async (ctx: KoaContextWithOIDC) => {
      // Policies are copied onto the registration access token and re-run on RFC 7592 updates: no-op there.
      const iat = ctx.oidc.entities.InitialAccessToken as { jti: string } | undefined;
      if (ctx.oidc.route !== 'registration' || !iat) return;
      try {
        await this.#uses.consume(iat.jti);
      } catch (err) {
        if ((err as { status?: number }).status === 503) throw err; // a storage outage, not a used token
        throw new errors.InvalidToken('initial access token already used');
      }
      this.#holders.set(ctx, iat.jti);
    },
  };

  /**
   * Provider middleware that settles single-use tokens once the registration response is known.
   * Mount with `provider.use()`.
   */
  settle(registrationPath: string) {
    const uses = this.#uses;
    const holders = this.#holders;
    return async function settleSingleUseInitialAccessToken(ctx: KoaContextWithOIDC, next: () => Promise<void>) {
      if (ctx.method !== 'POST' || ctx.path !== registrationPath) return next();
      try {
        await next();
      } finally {
        const iat = ctx.oidc?.entities?.InitialAccessToken as
          | { jti: string; exp?: number; destroy(): Promise<void> }
          | undefined;
        if (iat && holders.get(ctx) === iat.jti) {
          holders.delete(ctx);
          if (ctx.status === 201) {
            // The use stays consumed until it expires: a request that found the token before it was destroyed
            // is still refused.
            await iat.destroy();
          } else {
            const remaining = Math.max(1, (iat.exp ?? 0) - Math.floor(Date.now() / 1000));
            await uses.upsert(iat.jti, { jti: iat.jti }, remaining);
          }
        }
      }
    };
  }

  /**
   * Wraps oidc-provider's adapter factory so that its `InitialAccessToken` model finds the configured token
   * (`registration.initialAccessToken`) without it being in storage: a presented value equal to `configured`
   * (compared in constant time) is answered with a multi-use entry that has no expiry; any other value is looked up
   * in storage, where only minted tokens live. Every instance started with the same configuration accepts the same
   * token, and an instance accepts no configured token but its own (during a rolling deploy from one token to
   * another, each instance accepts the token it was started with).
   *
   * A stored entry without an expiry is refused and deleted: only the configured token was ever stored that way,
   * by releases before this one (it was written to storage at every start and never removed, so a replaced or
   * removed token kept working on Redis or a host's storage).
   *
   * @param configured the configured token, or `undefined` when none is configured or registration is off.
   */
  static withConfigured(factory: AdapterFactory, configured: string | undefined): AdapterFactory {
    const issuedAt = Math.floor(Date.now() / 1000);
    const digest = configured === undefined ? undefined : sha256(configured);
    return (model) => {
      const adapter = factory(model);
      if (model !== 'InitialAccessToken') return adapter;
      return overriding(adapter, {
        async find(id: string): Promise<AdapterPayload | undefined> {
          if (digest && timingSafeEqual(digest, sha256(id)))
            return { jti: id, kind: 'InitialAccessToken', iat: issuedAt };
          const stored = await adapter.find(id);
          if (stored && stored.exp === undefined) {
            await adapter.destroy(id);
            return undefined;
          }
          return stored;
        },
      });
    };
  }

  /**
   * Mints an initial access token for `POST /registration`.
   * @returns the token value, to be sent as `Authorization: Bearer <value>`.
   */
  async mint(provider: Provider, options: MintInitialAccessTokenOptions = {}): Promise<string> {
    const expiresIn = options.expiresIn ?? 86_400;
    if (!Number.isInteger(expiresIn) || expiresIn < 1)
      throw new PortcullisError('ERR_INVALID_ARGUMENT', 'expiresIn must be a positive integer number of seconds');
    const singleUse = options.singleUse ?? true;
    const value = await new provider.InitialAccessToken({
      expiresIn,
      ...(singleUse ? { policies: [SINGLE_USE_POLICY] } : {}),
    }).save();
    if (singleUse) await this.#uses.upsert(value, { jti: value }, expiresIn);
    return value;
  }
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
