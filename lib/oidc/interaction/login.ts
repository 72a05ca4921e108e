import type { Context, Middleware } from 'koa';
import { html, type SafeHtml } from '../../ui/html.js';
import { formBody, parseForm, renderPage, renderTooManyRequests, type PageBuilder } from '../../http/pages.js';
import { mountedPath } from '../../core/mount-path.js';
import { uiOf, withLocale } from '../../ui/ui.js';
import { loginPage } from '../views.js';
import {
  clientDomain,
  clientName,
  detailsOf,
  finishInteraction,
  interactionCsrf,
  interactionForm,
  interactionPath,
  loadInteraction,
  requirePrompt,
  type Details,
  type InteractionActionDeps,
} from './common.js';
import { loginResult } from '../../accounts/mfa/policy.js';
import { loginHintOf } from '../login-hint.js';

/** A page link under the issuer's path, if there is one. */
function underMount(ctx: Context, path: string | undefined): string | undefined {
  return path === undefined ? undefined : mountedPath(ctx, path);
}

/**
 * The sign-in methods' blocks of the login page as one, `undefined` for none (the login view's slot for other ways to
 * sign in).
 */
function joinBlocks(blocks: readonly SafeHtml[]): SafeHtml | undefined {
  return blocks.length ? html`${blocks}` : undefined;
}

/** What went wrong with the last submission, by its message key. */
/** A catalog key, or text already in words (a feature's sign-in method's own messages). */
export type LoginProblem = 'login.wrongPassword' | 'login.tooMany' | 'login.confirmFirst' | { text: string };

async function loginForm(
  ctx: Context,
  deps: InteractionActionDeps,
  details: Details,
  problem?: LoginProblem,
  email?: string,
): Promise<PageBuilder> {
  const scope = interactionPath(ctx, details);
  const csrfToken = deps.csrf.issue(ctx, interactionForm(ctx, details));
  // Independent: the client's name and the other features' sign-in blocks (e.g. a new sign-in
  // challenge bound to this interaction).
  const [name, ...prepared] = await Promise.all([
    clientName(deps.provider, details),
    ...(deps.methods ?? []).map((method) => method.loginBlock?.(ctx, details, { scope, csrfToken })),
  ]);
  const blocks = prepared.filter((block) => block !== undefined);
  const ui = uiOf(ctx);
  const link = (url: string | undefined) => (url ? withLocale(ui, url) : undefined);
  return (nonce) =>
    loginPage({
      nonce,
      ui,
      action: `${scope}/login`,
      cancelAction: `${scope}/cancel`,
      csrfToken,
      clientName: name,
      clientDomain: clientDomain(details),
      error: problem && (typeof problem === 'string' ? ui.t.t(problem) : problem.text),
      // The address typed in, else the client's login_hint (OIDC Core §3.1.2.1), which is this server's login
      // identifier.
      email: email ?? loginHintOf(details.params),
      // After a wrong password the address is kept: the password is what to type next.
      focusPassword: problem === 'login.wrongPassword' && Boolean(email),
      signupUrl: link(underMount(ctx, deps.flows.signupUrl(details.uid))),
      resetUrl: link(underMount(ctx, deps.flows.resetUrl(details.uid))),
      passkey: joinBlocks(blocks.map((block) => block(nonce, ui))),
    });
}

/** The login page of `details` (OpenID Connect Core §3.1.2.3), with an optional problem and the e-mail typed in. */
export async function showLogin(
  ctx: Context,
  deps: InteractionActionDeps,
  details: Details,
  status = 200,
  problem?: LoginProblem,
  email?: string,
): Promise<void> {
  renderPage(ctx, status, await loginForm(ctx, deps, details, problem, email));
}

/**
 * `POST /interaction/:uid/login`: checks the password under the login limits (counted before the check), then
 * ends the login prompt with `amr: ['pwd']`, or goes on to the second step when a feature's (the `secondStep` point)
 * asks for one.
 * Unconfirmed addresses are refused when
 * `selfService.requireVerifiedEmail`, with a new confirmation mail.
 */
export function loginActions(deps: InteractionActionDeps): Middleware[] {
  return [
    parseForm,
    loadInteraction(deps.provider),
    interactionCsrf(deps.csrf),
    requirePrompt('login', 'This sign-in step is already complete.'),
    async function checkPassword(ctx: Context) {
      const details = detailsOf(ctx);
      const body = formBody(ctx);
      const email = typeof body.email === 'string' ? body.email.trim().slice(0, 320) : '';
      const password = typeof body.password === 'string' ? body.password.slice(0, 1024) : '';
      const limit = await deps.limits.loginAttempt(ctx.ip, email);
      if (!limit.allowed) {
        const page = await loginForm(ctx, deps, details, 'login.tooMany', email);
        return renderTooManyRequests(ctx, limit.retryAfterSeconds, page);
      }
      // Taken before the hash is read: a password changed while it is checked counts as changed after the check.
      const checkedAt = Date.now();
      const account = email && password ? await deps.accounts.verifyPassword(email, password) : undefined;
      if (!account) return showLogin(ctx, deps, details, 401, 'login.wrongPassword', email);
      // The counter reset goes out together with the interaction write (one round trip less); both are awaited.
      const reset = deps.limits.loginSucceeded(email);
      reset.catch(() => undefined); // rethrown by the `await reset` below, never an unhandled rejection meanwhile
      try {
        if (!account.emailVerified && deps.requireVerifiedEmail) {
          // Only said after the right password, so it reveals nothing to someone who does not hold the account.
          await deps.flows.resendVerification(ctx, account, details.uid);
          return showLogin(ctx, deps, details, 403, 'login.confirmFirst', email);
        }
        // The second step may ask for a second factor (or its enrolment) first: then that page is shown instead.
        if (deps.secondStep && !(await deps.secondStep.afterPassword(ctx, deps, details, account, checkedAt))) return;
        await finishInteraction(ctx, details, { login: loginResult(account.id, ['pwd'], checkedAt) }, false);
      } finally {
        await reset;
      }
    },
  ];
}

/**
 * `POST /interaction/:uid/cancel`: the Cancel button of the login page. Ends the request with `access_denied`
 * (RFC 6749 §4.1.2.1), which oidc-provider sends to the client's redirect_uri with its `state`.
 */
export function cancelLoginActions(deps: InteractionActionDeps): Middleware[] {
  return [
    parseForm,
    loadInteraction(deps.provider),
    interactionCsrf(deps.csrf),
    requirePrompt('login', 'This sign-in step is already complete.'),
    async function cancelLogin(ctx: Context) {
      await finishInteraction(
        ctx,
        detailsOf(ctx),
        { error: 'access_denied', error_description: 'The end-user cancelled the sign-in' },
        false,
      );
    },
  ];
}
