import type { Context, Middleware } from 'koa';
import type { Account } from '../../core/account-store.js';
import { formBody, parseForm, renderPage } from '../../http/pages.js';
import { displayableLogo } from '../client-logo.js';
import { PROVIDER_ROUTES } from '../../http/routes.js';
import { mountedPath } from '../../core/mount-path.js';
import type { MessageKey } from '../../ui/i18n.js';
import { uiOf, type PageUi } from '../../ui/ui.js';
import { OFFLINE_MARKER } from '../offline-access.js';
import { consentPage } from '../views.js';
import {
  clientDomain,
  clientName,
  detailsOf,
  finishInteraction,
  interactionCsrf,
  interactionForm,
  interactionPath,
  loadInteraction,
  refuse,
  requirePrompt,
  type Details,
  type InteractionActionDeps,
} from './common.js';

const ACCOUNT_GONE = 'The account of this session no longer exists.';

type Grant = InstanceType<InteractionActionDeps['provider']['Grant']>;
/** The scopes this account already consented to for this client (the consent store's record). */
type Previous = string[] | undefined;

/**
 * "Not you? Switch account": the same authorization request again (its validated parameters) with `prompt=login`
 * added, so oidc-provider asks for a sign-in and the new account's consent. Our offline-access marker is left
 * out (it is never taken from a client; a `prompt` present means it is not added again). The path is under the
 * issuer's path (`mountedPath`): under an issuer such as `https://host/auth` the link is
 * `/auth/authorization?…`; a bare `/authorization` would hand `state` and `code_challenge` to whatever the host
 * serves there.
 *
 * @example switchAccountUrl(ctx, details) // '/auth/authorization?client_id=demo-web&…&prompt=login'
 */
export function switchAccountUrl(ctx: Context, details: Details): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(details.params)) {
    if (name === OFFLINE_MARKER || value === undefined || value === null) continue;
    params.set(name, String(value));
  }
  const prompt = new Set(
    String(details.params.prompt ?? '')
      .split(' ')
      .filter(Boolean),
  );
  prompt.add('login');
  params.set('prompt', [...prompt].join(' '));
  return `${mountedPath(ctx, PROVIDER_ROUTES.authorization)}?${params}`;
}

/** A scope in words: the shipped translation of a standard scope, else the configured description. */
function describeScope(ui: PageUi, scopes: InteractionActionDeps['scopes'], name: string): string {
  const key = `scope.${name}`;
  return ui.t.has(key) ? (ui.t.t as (k: MessageKey) => string)(key) : scopes.describe(name);
}

/** The consent page of `details` (OpenID Connect Core §3.1.2.4): the scopes the account may grant. */
export async function showConsent(ctx: Context, deps: InteractionActionDeps, details: Details): Promise<void> {
  const { provider, scopes } = deps;
  const accountId = details.session?.accountId;
  const account = accountId ? await deps.accounts.findById(accountId) : undefined;
  if (!account) return refuse(ctx, 400, 'login_required', ACCOUNT_GONE);
  const { grantable } = scopes.partition(account, scopes.known(details.params.scope));
  const scope = interactionPath(ctx, details);
  const csrfToken = deps.csrf.issue(ctx, interactionForm(ctx, details));
  const name = await clientName(provider, details);
  const logo = displayableLogo(
    (await provider.Client.find(String(details.params.client_id)))?.logoUri,
    deps.allowRemoteLogos,
  );
  const ui = uiOf(ctx);
  renderPage(
    ctx,
    200,
    (nonce) =>
      consentPage({
        nonce,
        ui,
        action: `${scope}/confirm`,
        csrfToken,
        clientName: name,
        clientDomain: clientDomain(details),
        accountEmail: account.email,
        scopes: grantable.map((s) => ({ name: s, description: describeScope(ui, scopes, s) })),
        logoUri: logo?.src,
        switchAccountUrl: switchAccountUrl(ctx, details),
      }),
    logo?.origin,
  );
}

/**
 * Saves the grant of an approved consent: the requested scopes the account's roles allow are granted, the others
 * rejected, for OpenID scopes and for each requested resource server (RFC 8707). Returns the grant id and the
 * granted OpenID scopes.
 */
async function saveGrant(
  deps: InteractionActionDeps,
  details: Details,
  account: Account,
  existing: Grant | undefined,
  previous: Previous,
): Promise<{ grantId: string }> {
  const { provider, scopes } = deps;
  const accountId = details.session!.accountId!;
  const clientId = String(details.params.client_id);
  const { grantable, forbidden } = scopes.partition(account, scopes.known(details.params.scope));
  const grant = existing ?? new provider.Grant({ accountId, clientId });
  // Rejections follow the account's roles now: one refused earlier for want of a role the account has since is lifted.
  scopes.applyRoles(grant, account);
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
  // The grant and the remembered consent are independent writes: sent together.
  const [grantId] = await Promise.all([
    grant.save(),
    deps.consents.remember(accountId, clientId, grantable, { previous }),
  ]);
  return { grantId };
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
        return finishInteraction(
          ctx,
          details,
          { error: 'access_denied', error_description: 'The end-user denied the request' },
          false,
        );
      }
      if (decision !== 'allow') return refuse(ctx, 400, 'invalid_request', 'Choose Allow or Deny.');
      const accountId = details.session!.accountId!;
      // Independent reads, sent together (one round trip on Redis).
      const [account, previous, existing] = await Promise.all([
        deps.accounts.findById(accountId),
        deps.consents.find(accountId, String(details.params.client_id)),
        details.grantId ? deps.provider.Grant.find(details.grantId) : undefined,
      ]);
      if (!account) return refuse(ctx, 400, 'login_required', ACCOUNT_GONE);
      const { grantId } = await saveGrant(deps, details, account, existing, previous);
      await finishInteraction(ctx, details, { consent: { grantId } }, true);
    },
  ];
}
