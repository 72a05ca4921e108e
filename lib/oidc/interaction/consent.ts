import type { Context, Middleware } from 'koa';
import type { Account } from '../../accounts/account-store.js';
import { formBody, parseForm, renderPage } from '../../http/pages.js';
import { displayableLogo } from '../client-logo.js';
import { consentPage } from '../views.js';
import {
  clientName, detailsOf, finishInteraction, interactionCsrf, interactionPath, loadInteraction, refuse, requirePrompt,
  type Details, type InteractionActionDeps,
} from './common.js';

const ACCOUNT_GONE = 'The account of this session no longer exists.';

/** The consent page of `details` (OpenID Connect Core §3.1.2.4): the scopes the account may grant. */
export async function showConsent(ctx: Context, deps: InteractionActionDeps, details: Details): Promise<void> {
  const { provider, scopes } = deps;
  const accountId = details.session?.accountId;
  const account = accountId ? await deps.accounts.findById(accountId) : undefined;
  if (!account) return refuse(ctx, 400, 'login_required', ACCOUNT_GONE);
  const { grantable } = scopes.partition(account, scopes.known(details.params.scope));
  const scope = interactionPath(details);
  const csrfToken = deps.csrf.issue(ctx, scope);
  const name = await clientName(provider, details);
  const logo = displayableLogo((await provider.Client.find(String(details.params.client_id)))?.logoUri, deps.allowRemoteLogos);
  renderPage(ctx, 200, (nonce) => consentPage({
    nonce, action: `${scope}/confirm`, csrfToken, clientName: name, accountEmail: account.email,
    scopes: grantable.map((s) => ({ name: s, description: scopes.describe(s) })), logoUri: logo?.src,
  }), logo?.origin);
}

/**
 * Saves the grant of an approved consent: the requested scopes the account's roles allow are granted, the others
 * rejected, for OpenID scopes and for each requested resource server (RFC 8707). Returns the grant id and the
 * granted OpenID scopes.
 */
async function saveGrant(deps: InteractionActionDeps, details: Details, account: Account): Promise<{ grantId: string; granted: string[] }> {
  const { provider, scopes } = deps;
  const { grantable, forbidden } = scopes.partition(account, scopes.known(details.params.scope));
  const grant = (details.grantId ? await provider.Grant.find(details.grantId) : undefined)
    ?? new provider.Grant({ accountId: details.session!.accountId!, clientId: String(details.params.client_id) });
  if (grantable.length) grant.addOIDCScope(grantable.join(' '));
  if (forbidden.length) grant.rejectOIDCScope(forbidden.join(' '));
  const missingClaims = (details.prompt.details.missingOIDCClaims as string[] | undefined) ?? [];
  if (missingClaims.length) grant.addOIDCClaims(missingClaims);
  // RFC 8707: scopes for a requested resource server (the GraphQL API), under the same role policy.
  const missingResource = (details.prompt.details.missingResourceScopes ?? {}) as Record<string, string[]>;
  for (const [resource, wanted] of Object.entries(missingResource)) {
    const { grantable: allowed, forbidden: refused } = scopes.partition(account, wanted);
    if (allowed.length) grant.addResourceScope(resource, allowed.join(' '));
    if (refused.length) grant.rejectResourceScope(resource, refused.join(' '));
  }
  return { grantId: await grant.save(), granted: grantable };
}

/**
 * `POST /interaction/:uid/confirm`: `decision=deny` ends the request with `access_denied`; `decision=allow`
 * saves the grant, remembers the consent and ends the consent prompt.
 */
export function consentActions(deps: InteractionActionDeps): Middleware[] {
  return [
    parseForm,
    loadInteraction(deps.provider),
    interactionCsrf(deps.csrf),
    requirePrompt('consent', 'There is nothing to consent to in this step.'),
    async function decide(ctx: Context) {
      const details = detailsOf(ctx);
      const decision = formBody(ctx).decision;
      if (decision === 'deny') {
        return finishInteraction(ctx, deps.provider, { error: 'access_denied', error_description: 'The end-user denied the request' }, false);
      }
      if (decision !== 'allow') return refuse(ctx, 400, 'invalid_request', 'Choose Allow or Deny.');
      const accountId = details.session!.accountId!;
      const account = await deps.accounts.findById(accountId);
      if (!account) return refuse(ctx, 400, 'login_required', ACCOUNT_GONE);
      const { grantId, granted } = await saveGrant(deps, details, account);
      await deps.consents.remember(accountId, String(details.params.client_id), granted);
      await finishInteraction(ctx, deps.provider, { consent: { grantId } }, true);
    },
  ];
}
