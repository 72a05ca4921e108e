import type Provider from 'oidc-provider';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';

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
 * Initial access tokens (RFC 7591 §3) kept as oidc-provider `InitialAccessToken` models in the server's storage:
 * the one from `registration.initialAccessToken` (multi-use, no expiry) and tokens minted at run time.
 *
 * Single use: the first registration presenting the token reserves it (in this process) before the client is
 * created; a successful registration destroys it and keeps it reserved until its expiry, a refused one
 * releases it.
 */
export class InitialAccessTokens {
  readonly #reserved = new Set<string>();
  /** Which request holds which reservation: only the holder may settle it. */
  readonly #holders = new WeakMap<object, string>();

  /** oidc-provider `features.registration.policies`. */
  readonly policies = {
    [SINGLE_USE_POLICY]: (ctx: KoaContextWithOIDC) => {
      // Policies are copied onto the registration access token and re-run on RFC 7592 updates: no-op there.
      const iat = ctx.oidc.entities.InitialAccessToken as { jti: string } | undefined;
      if (ctx.oidc.route !== 'registration' || !iat) return;
      if (this.#reserved.has(iat.jti)) throw new errors.InvalidToken('initial access token already used');
      this.#reserved.add(iat.jti);
      this.#holders.set(ctx, iat.jti);
    },
  };

  /**
   * Provider middleware that settles single-use tokens once the registration response is known.
   * Mount with `provider.use()`.
   */
  settle(registrationPath: string) {
    const reserved = this.#reserved;
    const holders = this.#holders;
    return async function settleSingleUseInitialAccessToken(ctx: KoaContextWithOIDC, next: () => Promise<void>) {
      if (ctx.method !== 'POST' || ctx.path !== registrationPath) return next();
      try {
        await next();
      } finally {
        const iat = ctx.oidc?.entities?.InitialAccessToken as { jti: string; exp?: number; destroy(): Promise<void> } | undefined;
        if (iat && holders.get(ctx) === iat.jti) {
          holders.delete(ctx);
          if (ctx.status === 201) {
            // Stays reserved until it would have expired: a request that found the token before it was
            // destroyed must still be refused.
            const jti = iat.jti;
            const remainingMs = Math.max(0, (iat.exp ?? 0) * 1000 - Date.now());
            setTimeout(() => reserved.delete(jti), Math.min(remainingMs, 2 ** 31 - 1)).unref();
            await iat.destroy();
          } else {
            reserved.delete(iat.jti);
          }
        }
      }
    };
  }

  /** Stores the configured (multi-use, non-expiring) token so oidc-provider finds it like a minted one. */
  static async seed(provider: Provider, value: string): Promise<void> {
    const iat = new provider.InitialAccessToken({ jti: value } as never);
    await iat.save();
  }

  /**
   * Mints an initial access token for `POST /registration`.
   * @returns the token value, to be sent as `Authorization: Bearer <value>`.
   */
  static async mint(provider: Provider, options: MintInitialAccessTokenOptions = {}): Promise<string> {
    const expiresIn = options.expiresIn ?? 86_400;
    if (!Number.isInteger(expiresIn) || expiresIn < 1) throw new TypeError('expiresIn must be a positive integer number of seconds');
    const policies = options.singleUse ?? true ? [SINGLE_USE_POLICY] : undefined;
    return new provider.InitialAccessToken({ expiresIn, ...(policies ? { policies } : {}) }).save();
  }
}
