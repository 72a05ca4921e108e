import Provider, { type FindAccount, type Grant, type KoaContextWithOIDC } from 'oidc-provider';
import type { Account, AccountStore } from '../core/account-store.js';
import { requestSlot } from '../core/request-slot.js';
import { watchReads, type AdapterFactory, type AdapterPayload } from '../core/storage.js';
import type { ConsentStore } from './consent-store.js';
import type { ScopePolicy } from './scope-policy.js';
import { ACCOUNT_CLIENT_ID } from '../accounts/account-home.js';

/** Accounts as oidc-provider's configuration reads them: memoised per request, prefetched beside storage reads. */

/**
 * oidc-provider models whose entries name an account (`accountId`; an Interaction in `result.login` or
 * `session`), and whose reads are followed by that account's lookup in the same request.
 */
const ACCOUNT_BEARING_MODELS = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'Session',
  'Interaction',
]);

/** The account lookups of one provider: {@link AccountLookup.findById} memoised per request, and its prefetch. */
export type AccountLookup = ReturnType<typeof accountLookup>;

/**
 * Builds the per-request account memo over `store`. With `consents`, reading an Interaction that names an account
 * and a client also starts reading that remembered consent (what `loadExistingGrant` reads next on resume).
 */
export function accountLookup(store: AccountStore, consents?: ConsentStore) {
  // oidc-provider asks for the same account several times while answering one request (claims for the ID token,
  // the grant, userinfo): one store lookup per account and request. Keyed by the Node request, which every
  // context oidc-provider creates for that request shares.
  const perRequest = requestSlot<Map<string, ReturnType<AccountStore['findById']>>>('portcullis.accounts');
  return {
    findById(ctx: { req: object }, id: string) {
      let seen = perRequest.get(ctx.req);
      if (!seen) perRequest.set(ctx.req, (seen = new Map()));
      let found = seen.get(id);
      if (!found) seen.set(id, (found = store.findById(id)));
      return found;
    },
    /**
     * Starts the lookup of the account an entry just read from storage names, in the current provider request,
     * so that it travels with oidc-provider's next storage read instead of after it (one round trip less per
     * token, code, session or interaction read on Redis). It fills the same per-request memo `findAccount` uses:
     * nothing is shared across requests. A failure surfaces where the account is awaited, never unhandled.
     */
    prefetch(payload: AdapterPayload | undefined) {
      const ctx = Provider.ctx as { req?: object } | undefined;
      if (!payload || !ctx?.req) return;
      const interaction = payload as {
        kind?: unknown;
        params?: { client_id?: unknown };
        result?: { login?: { accountId?: unknown } };
        session?: { accountId?: unknown };
      };
      const id = payload.accountId ?? interaction.result?.login?.accountId ?? interaction.session?.accountId;
      if (typeof id !== 'string' || !id) return;
      this.findById(ctx as { req: object }, id).catch(() => undefined);
      const clientId = interaction.params?.client_id;
      if (consents && interaction.kind === 'Interaction' && typeof clientId === 'string')
        consents.prefetch(ctx.req, id, clientId);
    },
  };
}

/** Wraps `base` so that reads of account-bearing entries start the lookup of the account they name. */
export function prefetchingAdapter(base: AdapterFactory, accounts: AccountLookup): AdapterFactory {
  return (model) => {
    const inner = base(model);
    if (!ACCOUNT_BEARING_MODELS.has(model)) return inner;
    return watchReads(inner, (payload) => accounts.prefetch(payload));
  };
}

/**
 * oidc-provider's `findAccount`: the account and its claims (OIDC Core §5.1), from this request's memo.
 *
 * At the token endpoint it is also where the account's roles are applied to what is issued: oidc-provider calls
 * it with the code or refresh token being redeemed (`token`) after it has loaded and checked that token's Grant
 * (`ctx.oidc.entities.Grant`) and before it mints the access token from it. A role-restricted scope the account
 * no longer may be granted is withheld from that Grant in memory ({@link ScopePolicy.applyRoles}), so the token
 * response carries less and says so in `scope` (RFC 6749 §3.3, §6), rather than a refresh token carrying the
 * scope for as long as it is rotated. The Grant is not saved: once the role is back, the consent still stands
 * and the next refresh carries the scope again (also when an authorization in the session saved the rejection
 * meanwhile: a rejected scope the account may be granted now is restored, in memory too). Consent is where roles were
 * checked before; this is the
 * issuance-time check of the same rule, for the authorization code and refresh token grants alike.
 */
export function accountFinder(accounts: AccountLookup, scopes: ScopePolicy): FindAccount {
  return async function findAccount(ctx, sub, token) {
    const account = await accounts.findById(ctx, sub);
    if (!account) return undefined;
    const grant = ctx.oidc?.route === 'token' && token ? ctx.oidc.entities.Grant : undefined;
    if (grant?.accountId === account.id) scopes.applyRoles(grant, account);
    return {
      accountId: account.id,
      async claims() {
        return { ...account.claims, sub: account.id, email: account.email, email_verified: account.emailVerified };
      },
    };
  };
}

/**
 * oidc-provider's `loadExistingGrant`: the session's Grant, or a fresh one per session copied from the remembered
 * consent of the account and client, restricted to what the account may be granted now.
 */
export function existingGrantLoader(accounts: AccountLookup, consents: ConsentStore, scopes: ScopePolicy) {
  return async function loadExistingGrant(ctx: KoaContextWithOIDC) {
    const { provider, client, session } = ctx.oidc;
    const clientId = client!.clientId;
    const grantId = ctx.oidc.result?.consent?.grantId ?? session?.grantIdFor(clientId);
    const accountId = session?.accountId;
    if (clientId === ACCOUNT_CLIENT_ID && accountId) {
      // The account page is first-party and receives nothing (its code is never redeemed): no consent page.
      const grant =
        (grantId ? await provider.Grant.find(grantId) : undefined) ?? new provider.Grant({ accountId, clientId });
      if (!grant.getOIDCScope().includes('openid')) {
        grant.addOIDCScope('openid');
        await grant.save();
      }
      return grant;
    }
    // Independent reads, sent together (one round trip on Redis); the account is usually this request's memo.
    const [found, remembered, account] = await Promise.all([
      grantId ? provider.Grant.find(grantId) : undefined,
      accountId ? consents.findFor(ctx.req, accountId, clientId) : undefined,
      accountId ? accounts.findById(ctx, accountId) : undefined,
    ]);
    // A scope rejected in the session's Grant for want of a role the account has been given since is taken off the
    // rejected list and saved, so that it is granted again (approved before) or asked on the consent page.
    if (found && account && scopes.applyRoles(found, account).restored.length) await found.save();
    const grant =
      account && remembered ? await copyRememberedConsent(ctx, found, grantId, account, remembered, scopes) : found;
    // The session's Grant may hold a scope consented to while the account had a role it has lost since (also a
    // resource server's, RFC 8707): withheld for this request only, after any save, as at the token endpoint.
    if (grant && account) scopes.applyRoles(grant, account);
    return grant;
  };
}

/**
 * The session's Grant (or a fresh one: never one shared Grant per account and client, since a replayed code
 * revokes its whole Grant) with the remembered consent's scopes that the request asks for and the account may be
 * granted added, and the requested ones it may not rejected; saved when it changed or is new.
 */
async function copyRememberedConsent(
  ctx: KoaContextWithOIDC,
  found: Grant | undefined,
  grantId: string | undefined,
  account: Account,
  remembered: readonly string[],
  scopes: ScopePolicy,
): Promise<Grant> {
  const grant = found ?? new ctx.oidc.provider.Grant({ accountId: account.id, clientId: ctx.oidc.client!.clientId });
  const { grantable, forbidden } = scopes.partition(account, ctx.oidc.requestParamScopes);
  const approved = new Set(remembered);
  const granted = new Set(grant.getOIDCScope().split(' ').filter(Boolean));
  const toAdd = grantable.filter((s) => approved.has(s) && !granted.has(s));
  const rejected = new Set(grant.getRejectedOIDCScope().split(' '));
  const toReject = forbidden.filter((s) => !rejected.has(s));
  if (toAdd.length === 0 && toReject.length === 0 && grantId) return grant;
  if (toAdd.length) grant.addOIDCScope(toAdd.join(' '));
  if (toReject.length) grant.rejectOIDCScope(toReject.join(' '));
  await grant.save();
  return grant;
}
