import type { Context, Middleware, Next } from 'koa';
import type Provider from 'oidc-provider';
import type { Account, AccountStore } from '../account-store.js';

/** The signed-in user of an account page, put on `ctx.state.signedIn` by {@link requireSignedIn}. */
export interface SignedIn {
  account: Account;
  /** oidc-provider's session id (`uid`, stable for the session's life): binds challenges to this browser. */
  sessionUid: string;
  /** When the user last authenticated, epoch seconds (`auth_time`, OIDC Core §2). */
  loginTs?: number;
  /** How (RFC 8176 `amr`). */
  amr?: string[];
}

/** The signed-in user {@link requireSignedIn} found. */
export function signedInOf(ctx: Context): SignedIn {
  return ctx.state.signedIn as SignedIn;
}

/**
 * Middleware: lets the request on only with a live oidc-provider session (its signed `_session` cookie, the
 * same one the authorization endpoint reads) naming an existing account; puts it on `ctx.state.signedIn`.
 * Otherwise `refuse` answers (the caller's page). A minimal guard for `/account/passkeys`, meant to be replaced
 * by the `/account` pages' own guard (with its re-authentication window) when that exists.
 */
export function requireSignedIn(provider: Provider, accounts: AccountStore, refuse: (ctx: Context) => void): Middleware {
  return async function requireSignedIn(ctx: Context, next: Next) {
    // With no `ctx.oidc`, Session.get reads the cookie through a context of the provider's own (its cookie keys).
    const session = await (provider.Session as unknown as { get(ctx: Context): Promise<{ accountId?: string; uid: string; loginTs?: number; amr?: string[] }> }).get(ctx);
    const account = session.accountId ? await accounts.findById(session.accountId) : undefined;
    if (!account) return refuse(ctx);
    ctx.state.signedIn = { account, sessionUid: session.uid, loginTs: session.loginTs, amr: session.amr } satisfies SignedIn;
    await next();
  };
}
