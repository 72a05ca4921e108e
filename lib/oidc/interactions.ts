import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import type { Context, Middleware } from 'koa';
import type Provider from 'oidc-provider';
import type { AccountLimits } from '../accounts/account-limits.js';
import type { AccountFlows } from '../accounts/account-routes.js';
import type { AccountStore } from '../accounts/account-store.js';
import { CsrfGuard } from '../http/csrf.js';
import { setPageSecurityHeaders } from '../http/security-headers.js';
import type { ConsentStore } from './consent-store.js';
import { OFFLINE_MARKER } from './provider.js';
import type { ScopePolicy } from './scope-policy.js';
import { consentPage, errorPage, loginPage } from './views.js';
import { displayableLogo } from './client-logo.js';

export interface InteractionDeps {
  provider: Provider;
  accounts: AccountStore;
  consents: ConsentStore;
  scopes: ScopePolicy;
  csrfSecret: string;
  /** Sign-up and reset links, verification mail (lib/accounts/account-routes.ts). */
  flows: AccountFlows;
  /** Login rate limits per account and per client IP. */
  limits: AccountLimits;
  /** `selfService.requireVerifiedEmail`. */
  requireVerifiedEmail: boolean;
  /** `registration.allowRemoteLogos`: show a client's https `logo_uri` on the consent page. @default false */
  allowRemoteLogos?: boolean;
}

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

const EXPIRED_INTERACTION = 'This sign-in request has expired or was opened in another browser. Go back to the application and start again.';

const GENERIC_LOGIN_ERROR = 'The e-mail address or password is incorrect.';

/**
 * Login and consent pages (OpenID Connect Core §3.1.2.3–§3.1.2.4), at `/interaction/:uid`. oidc-provider's
 * `devInteractions` (which accepts any password) is never used.
 */
export function interactionRoutes(deps: InteractionDeps): Middleware {
  const { provider, accounts, consents, scopes } = deps;
  const csrf = new CsrfGuard(deps.csrfSecret);
  const router = new Router({ prefix: '/interaction' });
  const form = bodyParser({ enableTypes: ['form'], formLimit: '16kb' });

  function render(ctx: Context, status: number, page: (nonce: string) => string, imgOrigin?: string): void {
    const nonce = setPageSecurityHeaders(ctx, imgOrigin);
    ctx.status = status;
    ctx.type = 'html';
    ctx.body = page(nonce);
  }

  function refuse(ctx: Context, status: number, error: string, description: string): void {
    render(ctx, status, (nonce) => errorPage(nonce, error, description));
  }

  /** Loads the interaction bound to this browser (its cookie) and checks it is the one in the URL. */
  async function load(ctx: Context): Promise<Details | undefined> {
    let details: Details;
    try {
      details = await provider.interactionDetails(ctx.req, ctx.res);
    } catch (err) {
      if ((err as { statusCode?: number }).statusCode === 503) throw err;
      refuse(ctx, 400, 'invalid_request', EXPIRED_INTERACTION);
      return undefined;
    }
    if (details.uid !== ctx.params.uid) {
      refuse(ctx, 400, 'invalid_request', 'This sign-in request does not belong to this browser session.');
      return undefined;
    }
    return details;
  }

  async function clientName(details: Details): Promise<string> {
    const client = await provider.Client.find(String(details.params.client_id));
    return client?.clientName ?? String(details.params.client_id);
  }

  async function showLogin(ctx: Context, details: Details, status = 200, error?: string, email?: string) {
    const scope = `/interaction/${details.uid}`;
    const csrfToken = csrf.issue(ctx, scope);
    const name = await clientName(details);
    render(ctx, status, (nonce) => loginPage({
      nonce, action: `${scope}/login`, csrfToken, clientName: name, error, email,
      signupUrl: deps.flows.signupUrl(details.uid), resetUrl: deps.flows.resetUrl(details.uid),
    }));
  }

  async function showConsent(ctx: Context, details: Details) {
    const accountId = details.session?.accountId;
    const account = accountId ? await accounts.findById(accountId) : undefined;
    if (!account) return refuse(ctx, 400, 'login_required', 'The account of this session no longer exists.');
    const requested = scopes.known(details.params.scope);
    const { grantable } = scopes.partition(account, requested);
    const scope = `/interaction/${details.uid}`;
    const csrfToken = csrf.issue(ctx, scope);
    const name = await clientName(details);
    const logo = displayableLogo((await provider.Client.find(String(details.params.client_id)))?.logoUri, deps.allowRemoteLogos ?? false);
    render(ctx, 200, (nonce) => consentPage({
      nonce, action: `${scope}/confirm`, csrfToken, clientName: name, accountEmail: account.email,
      scopes: grantable.map((s) => ({ name: s, description: scopes.describe(s) })), logoUri: logo?.src,
    }), logo?.origin);
  }

  /**
   * Stores the interaction's result and redirects back to the provider: what `provider.interactionResult` does,
   * on the interaction this request already loaded and checked (cookie, session, principal) in {@link load},
   * instead of reading it and its session from storage a second time.
   */
  async function finish(ctx: Context, details: Details, result: Parameters<Provider['interactionResult']>[2], merge: boolean) {
    // It may have expired while this request ran (a password hash takes a while): then, as a fresh read would have
    // found nothing, the sign-in is over; never saved with a lifetime of zero or less.
    const ttl = details.exp - Math.floor(Date.now() / 1000);
    if (ttl <= 0) return refuse(ctx, 400, 'invalid_request', EXPIRED_INTERACTION);
    details.result = merge && !('error' in result) ? { ...details.lastSubmission, ...result } : result;
    await details.save(ttl);
    ctx.status = 303;
    ctx.redirect(details.returnTo);
  }

  function checkCsrf(ctx: Context, details: Details): boolean {
    const body = ctx.request.body as Record<string, unknown> | undefined;
    if (csrf.verify(ctx, `/interaction/${details.uid}`, body?.csrf)) return true;
    refuse(ctx, 403, 'invalid_request', 'The form was not submitted from this sign-in page (missing or wrong CSRF token). Reload the page and try again.');
    return false;
  }

  router.get('/:uid', async (ctx) => {
    const details = await load(ctx);
    if (!details) return;
    if (details.prompt.name === 'login') return showLogin(ctx, details);
    if (details.prompt.name === 'consent') {
      // Only the prompt=consent we added for offline_access, and nothing left to approve: no page.
      const onlyOurPrompt = details.params[OFFLINE_MARKER] === '1' && details.prompt.reasons.every((r) => r === 'consent_prompt');
      if (onlyOurPrompt && details.grantId) return finish(ctx, details, { consent: { grantId: details.grantId } }, true);
      return showConsent(ctx, details);
    }
    refuse(ctx, 400, 'invalid_request', `Unsupported interaction "${details.prompt.name}".`);
  });

  router.post('/:uid/login', form, async (ctx) => {
    const details = await load(ctx);
    if (!details || !checkCsrf(ctx, details)) return;
    if (details.prompt.name !== 'login') return refuse(ctx, 400, 'invalid_request', 'This sign-in step is already complete.');
    const body = ctx.request.body as Record<string, unknown>;
    const email = typeof body.email === 'string' ? body.email.trim().slice(0, 320) : '';
    const password = typeof body.password === 'string' ? body.password.slice(0, 1024) : '';
    const limit = await deps.limits.loginAttempt(ctx.ip, email);
    if (!limit.allowed) {
      ctx.set('Retry-After', String(limit.retryAfterSeconds));
      return showLogin(ctx, details, 429, 'Too many sign-in attempts. Please try again later.', email);
    }
    const account = email && password ? await accounts.verifyPassword(email, password) : undefined;
    if (!account) return showLogin(ctx, details, 401, GENERIC_LOGIN_ERROR, email);
    // The counter reset goes out together with the interaction write (one round trip less); both are awaited.
    const reset = deps.limits.loginSucceeded(email);
    reset.catch(() => undefined); // rethrown by the `await reset` below, never an unhandled rejection meanwhile
    try {
      if (!account.emailVerified && deps.requireVerifiedEmail) {
        // Only said after the right password, so it reveals nothing to someone who does not hold the account.
        await deps.flows.resendVerification(ctx, account, details.uid);
        return showLogin(ctx, details, 403, 'Confirm your e-mail address first: we have sent you a new confirmation link.', email);
      }
      await finish(ctx, details, { login: { accountId: account.id, amr: ['pwd'], acr: 'urn:portcullis:pwd' } }, false);
    } finally {
      await reset;
    }
  });

  router.post('/:uid/confirm', form, async (ctx) => {
    const details = await load(ctx);
    if (!details || !checkCsrf(ctx, details)) return;
    if (details.prompt.name !== 'consent') return refuse(ctx, 400, 'invalid_request', 'There is nothing to consent to in this step.');
    const decision = (ctx.request.body as Record<string, unknown>).decision;
    if (decision === 'deny') {
      return finish(ctx, details, { error: 'access_denied', error_description: 'The end-user denied the request' }, false);
    }
    if (decision !== 'allow') return refuse(ctx, 400, 'invalid_request', 'Choose Allow or Deny.');

    const accountId = details.session!.accountId!;
    const clientId = String(details.params.client_id);
    // Independent reads, sent together (one round trip on Redis).
    const [account, previous, existing] = await Promise.all([
      accounts.findById(accountId),
      consents.find(accountId, clientId),
      details.grantId ? provider.Grant.find(details.grantId) : undefined,
    ]);
    if (!account) return refuse(ctx, 400, 'login_required', 'The account of this session no longer exists.');
    const requested = scopes.known(details.params.scope);
    const { grantable, forbidden } = scopes.partition(account, requested);

    const grant = existing ?? new provider.Grant({ accountId, clientId });
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
    const [grantId] = await Promise.all([grant.save(), consents.remember(accountId, clientId, grantable, { previous })]);
    await finish(ctx, details, { consent: { grantId } }, true);
  });

  return router.routes() as unknown as Middleware;
}
