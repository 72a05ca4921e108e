import type { Adapter, AdapterFactory } from '../core/storage.js';

/** When an account's password or address last changed, epoch ms (`VerificationTokens.credentialsChangedAt`). */
export type CredentialsChangedAt = (accountId: string) => Promise<number | undefined>;

/**
 * Whether a first factor checked at `checkedAt` (epoch ms) is outlived by the account's credential change at
 * `changedAt` (epoch ms, none: `undefined`). Equal counts as outlived: the marker is written after the new password,
 * so a check in that very millisecond may have read the old one. The one rule of both checks: a finished sign-in here,
 * a sign-in parked at its second step (lib/features/mfa/second-step.ts).
 */
export function outlivedBy(changedAt: number | undefined, checkedAt: number): boolean {
  return changedAt !== undefined && changedAt >= checkedAt;
}

/** The `login` result our interaction actions save (lib/accounts/mfa/policy.ts `loginResult`). */
interface LoginResult {
  accountId?: unknown;
  ts?: unknown;
  firstFactorAt?: unknown;
}

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
 * Wraps the storage of oidc-provider's Interaction model so that a finished sign-in (`result.login`) whose first
 * factor was checked before the account's last password or address change (a reset, a change on `/account`, an
 * e-mail change) never becomes a session. oidc-provider's resume (`/authorization/:uid`) reads the interaction,
 * destroys it, and only then applies `result.login` to the browser's session: the read starts the marker read
 * (`credentialsChangedAt`) beside the account and consent reads it starts anyway (lib/oidc/provider-accounts.ts),
 * and the destroy waits for it. A stale sign-in is then taken out of the very `result` object the resume holds
 * (oidc-provider's models copy a stored payload's members, not their contents) and out of storage, so the resume
 * finds no sign-in and no session and shows a fresh login page, as for a sign-in never made. Before, a browser that
 * had posted the old password and kept the 303's Location until after the change was signed in as the account there
 * and got its consent page, or at once a code (remembered consent).
 *
 * An interaction bound to a session (`session.uid`: the consent step after a sign-in, a step-up) is not checked:
 * oidc-provider resumes it only in that session, which the change ends. A marker that cannot be read fails the
 * destroy (a storage outage: 503), so a sign-in is never resumed unchecked. Cost: one marker read per resume of a
 * fresh sign-in, sent with reads already under way (no round trip of its own on Redis); nothing on other
 * interactions, /token, /userinfo or GraphQL.
 */
export function checkedSignIns(base: AdapterFactory, credentialsChangedAt: CredentialsChangedAt): AdapterFactory {
  return (model) => {
    const inner = base(model);
    if (model !== 'Interaction') return inner;
    /** Checks under way, by interaction id: each resolves once the stale sign-in (if any) is taken out. */
    const checks = new Map<string, Promise<void>>();
    /**
     * Ids destroyed while their check ran: the sign-in taken out is not written back (that would restore the entry).
     */
    const destroyed = new Set<string>();
    const checked = Object.create(inner) as Adapter;
    checked.find = async (id: string) => {
      const payload = await inner.find(id);
      const session = payload?.session as { uid?: unknown } | undefined;
      const result = payload?.result as { login?: LoginResult } | undefined;
      const login = result?.login;
      const checkedAt =
        login && !session?.uid && typeof login.accountId === 'string'
          ? firstFactorAt(login, payload!.iat as number | undefined)
          : undefined;
      if (checkedAt === undefined) return payload;
      const check = (async () => {
        if (!outlivedBy(await credentialsChangedAt(login!.accountId as string), checkedAt)) return;
        delete result!.login;
        const ttl = (payload!.exp as number) - Math.floor(Date.now() / 1000);
        if (ttl > 0 && !destroyed.has(id)) await inner.upsert(id, payload!, ttl);
      })();
      checks.set(id, check);
      // Settled either way; a failure is rethrown by the destroy or write that waits for it, never unhandled.
      const settled = () => {
        checks.delete(id);
        destroyed.delete(id);
      };
      void check.then(settled, settled);
      return payload;
    };
    checked.destroy = async (id: string) => {
      const check = checks.get(id);
      if (check) destroyed.add(id);
      await Promise.all([inner.destroy(id), check]);
    };
    checked.upsert = async (id, payload, expiresIn) => {
      const check = checks.get(id);
      if (check) await check;
      return inner.upsert(id, payload, expiresIn);
    };
    return checked;
  };
}
