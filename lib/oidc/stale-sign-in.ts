import type { Context, Next } from 'koa';
import type Provider from 'oidc-provider';
import { noteStorageOutage, storageOutageOf } from '../core/outage-note.js';
import { writeError } from '../http/error-handler.js';

/** When an account's password or address last changed, epoch ms (`VerificationTokens.credentialsChangedAt`). */
export type CredentialsChangedAt = (accountId: string) => Promise<number | undefined>;

/** An interaction uid as oidc-provider makes them (nanoid); anything else is left to oidc-provider to refuse. */
const UID = /^[\w-]{1,64}$/;

/** The `login` result our interaction actions save (lib/accounts/mfa/policy.ts `loginResult`). */
interface LoginResult { accountId?: unknown; ts?: unknown; firstFactorAt?: unknown }

/**
 * When the first factor of a finished sign-in was checked, epoch ms, or `undefined` when the sign-in needs no
 * check here. Our sign-ins record it (`firstFactorAt`: before the password hash or the passkey assertion was
 * checked, or when the password of a two-step sign-in was). A step-up (`ts` without it) keeps the signed-in
 * session's own sign-in and resumes only in that session, which oidc-provider requires to still exist (a change
 * ends it). A result saved without either (before the field existed) was checked after its interaction began.
 */
function firstFactorAt(login: LoginResult, interactionIat: number | undefined): number | undefined {
  if (typeof login.firstFactorAt === 'number') return login.firstFactorAt;
  if (login.ts !== undefined) return undefined;
  return (interactionIat ?? 0) * 1000;
}

/**
 * Provider pre-middleware of the resume route (`/authorization/:uid`): a finished sign-in whose first factor was
 * checked before the account's last password or address change (a reset, a change on `/account`, an e-mail
 * change) is taken out of its interaction before oidc-provider resumes it. oidc-provider then finds no sign-in and
 * no session and shows a fresh login page, as for a sign-in never made (the browser is not signed in).
 * Before, a browser that had posted the old password and kept the 303's Location until after the change was
 * signed in as the account there and got its consent page, or at once a code (remembered consent).
 *
 * The stored result is what is changed, not oidc-provider's session: its resume would apply the sign-in to the
 * browser's session, and every later step would save it, a refusal included. One Interaction read and, for a
 * sign-in, one marker read per resume; nothing on /token, /userinfo or GraphQL.
 *
 * @param resumePrefix the resume route's path up to the uid (`/authorization/`).
 */
export function dropStaleSignIns(provider: Provider, credentialsChangedAt: CredentialsChangedAt, resumePrefix: string) {
  /** Drops the sign-in result of interaction `uid` when the account's credentials changed since its first factor. */
  async function drop(uid: string): Promise<void> {
    const interaction = UID.test(uid) ? await provider.Interaction.find(uid) : undefined;
    const login = interaction?.result?.login as LoginResult | undefined;
    const checkedAt = login && typeof login.accountId === 'string' ? firstFactorAt(login, interaction!.iat) : undefined;
    if (checkedAt === undefined) return;
    const changedAt = await credentialsChangedAt(login!.accountId as string);
    // Equal counts as before: the marker is written after the new password, so a check in that very millisecond
    // may have read the old one.
    const ttl = interaction!.exp - Math.floor(Date.now() / 1000);
    if (changedAt === undefined || changedAt < checkedAt || ttl <= 0) return;
    interaction!.result = undefined;
    await interaction!.save(ttl);
  }
  return async function dropStaleSignIn(ctx: Context, next: Next): Promise<void> {
    try {
      await drop(ctx.path.slice(resumePrefix.length));
    } catch (err) {
      // Never resumed unchecked: with its storage down, the sign-in waits (503, our error page for a browser).
      const outage = storageOutageOf(err);
      if (!outage) throw err;
      noteStorageOutage(ctx.req, outage);
      return writeError(ctx, 503, 'temporarily_unavailable', outage.message, { headers: { 'Retry-After': '5' } });
    }
    await next();
  };
}
