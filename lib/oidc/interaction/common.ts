import type { Context, Middleware, Next } from 'koa';
import type Provider from 'oidc-provider';
import type { AccountLimits } from '../../accounts/account-limits.js';
import type { AccountFlows } from '../../accounts/account-routes.js';
import type { Account, AccountStore } from '../../core/account-store.js';
import type { CsrfForm, CsrfGuard } from '../../http/csrf.js';
import { csrfCheck, renderPage } from '../../http/pages.js';
import { mountedPath } from '../../core/mount-path.js';
import { keepOpenerForWebMessage } from '../../http/security-headers.js';
import type { ConsentStore } from '../consent-store.js';
import type { ScopePolicy } from '../scope-policy.js';
import { errorPage } from '../../http/pages.js';
import type { SafeHtml } from '../../ui/html.js';
import type { ErrorSituation, PageUi } from '../../ui/templates.js';
import { useUiLocales } from '../../ui/ui.js';

/**
 * A sign-in between its first and second factor (the {@link SecondSignInStep}'s state, kept for the interaction's
 * lifetime): the account, the factors passed (`amr` values) and the step's stage.
 */
export interface PendingStep {
  readonly accountId: string;
  readonly methods: readonly string[];
  readonly stage: string;
}

/**
 * The second sign-in step after the first factor (the `secondStep` extension point, lib/features/services.ts:
 * a feature's second factors): the login page asks it after a correct password, the interaction page shows its
 * pending step instead of the login form, and another sign-in method that passes a second factor ends
 * the step through it.
 */
export interface SecondSignInStep {
  /** Starts reading the pending step of interaction `uid` (beside the interaction itself, before it is checked). */
  prefetch(uid: string): Promise<unknown>;
  /**
   * The pending step of this interaction (or a step-up it starts), `undefined` for none; `prefetched` from
   * {@link prefetch}.
   */
  of(deps: InteractionActionDeps, details: Details, prefetched?: Promise<unknown>): Promise<PendingStep | undefined>;
  /**
   * After a correct password (checked from `checkedAt`, epoch ms): `false` when a step was started (its page is
   * rendered), `true` when the caller ends the sign-in with the password alone.
   */
  afterPassword(
    ctx: Context,
    deps: InteractionActionDeps,
    details: Details,
    account: Account,
    checkedAt: number,
  ): Promise<boolean>;
  /** Renders the page of a pending step, with `status` and an `error` in words. */
  show(
    ctx: Context,
    deps: InteractionActionDeps,
    details: Details,
    pending: PendingStep,
    status?: number,
    error?: string,
  ): Promise<void>;
  /** Ends a pending step: the login prompt is done with the factors passed before plus `methods` (`amr` values). */
  finish(
    ctx: Context,
    deps: InteractionActionDeps,
    details: Details,
    pending: PendingStep,
    methods: readonly string[],
  ): Promise<void>;
  /** The step's POST actions by name (`second-factor` → `POST /interaction/:uid/second-factor`). */
  actions(deps: InteractionActionDeps): Readonly<Record<string, Middleware[]>>;
}

/**
 * A way to sign in that a feature adds to the login page (the `signIn` extension point, lib/features/services.ts;
 * a feature's sign-in method): the POST actions it answers under `/interaction/:uid/<name>` and a block on the login
 * page.
 */
export interface SignInMethod {
  /** The POST actions by name (`<name>` → `POST /interaction/:uid/<name>`), given the sign-in's deps. */
  actions?(deps: InteractionActionDeps): Readonly<Record<string, Middleware[]>>;
  /**
   * Prepares the method's block of one login page (e.g. a challenge bound to this interaction), `undefined` for
   * none; the blocks go below the password form (the login view's slot for other ways to sign in). `scope` is the
   * interaction's form path (`interactionPath`), `csrfToken` the page's token.
   */
  loginBlock?(
    ctx: Context,
    details: Details,
    form: { readonly scope: string; readonly csrfToken: string },
  ): Promise<((nonce: string, ui: PageUi) => SafeHtml) | undefined>;
  /** The method as a second factor of the second step (when the feature's options make it one). */
  secondStep?: SecondStepMethod;
}

/** A second factor that another feature adds to the second sign-in step (the step's own factors aside). */
export interface SecondStepMethod {
  /** Whether the account has it (then it counts as enrolled: the step asks for a factor, not for an enrolment). */
  has(accountId: string): Promise<boolean>;
  /**
   * Prepares its part of one step page for the account (e.g. a challenge bound to the interaction that remembers
   * the factors passed, `methods`): `block`, shown below the step's own form, and `page`, the whole step when the
   * account has none of the step's own factors.
   */
  prepare(
    ctx: Context,
    details: Details,
    pending: { readonly accountId: string; readonly methods: readonly string[] },
    form: { readonly scope: string; readonly csrfToken: string },
  ): Promise<{
    block(nonce: string, ui: PageUi): SafeHtml;
    page(nonce: string, ui: PageUi, error: string | undefined): string;
  }>;
}

const EXPIRED_INTERACTION =
  'This sign-in request has expired or was opened in another browser. Go back to the application and start again.';

export interface InteractionDeps {
  provider: Provider;
  accounts: AccountStore;
  consents: ConsentStore;
  scopes: ScopePolicy;
  /** The pages' CSRF guard (cookie under the issuer's path on plain http). */
  csrf: CsrfGuard;
  /** Sign-up and reset links, verification mail (lib/accounts/account-routes.ts). */
  flows: AccountFlows;
  /** Login rate limits per account and per client IP. */
  limits: AccountLimits;
  /** `selfService.requireVerifiedEmail`. */
  requireVerifiedEmail: boolean;
  /** `registration.allowRemoteLogos`: show a client's https `logo_uri` on the consent page. */
  allowRemoteLogos: boolean;
  /** The second step after the password (the `secondStep` extension point); absent: one factor only. */
  secondStep?: SecondSignInStep;
  /** The other features' ways to sign in (the `signIn` extension point), in the features' order. */
  methods?: readonly SignInMethod[];
}

/** What the interaction actions use: the deps, CSRF guard included. */
export type InteractionActionDeps = InteractionDeps;

/** oidc-provider's view of the pending interaction. */
export type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

/** The interaction {@link loadInteraction} put on the request. */
export function detailsOf(ctx: Context): Details {
  return ctx.state.interaction as Details;
}

/** The form action base of an interaction's pages (under the issuer's path). */
export function interactionPath(ctx: Context, details: Details): string {
  return mountedPath(ctx, `/interaction/${details.uid}`);
}

/**
 * The CSRF form of an interaction's pages: scoped to its path and bound to its uid, which oidc-provider ties to
 * this browser (its `_interaction` cookie) and to the session the sign-in started in. A sign-in page has no
 * session of ours yet; the uid is what a token minted for the attacker's own sign-in cannot share.
 */
export function interactionForm(ctx: Context, details: Details): CsrfForm {
  return { scope: interactionPath(ctx, details), binding: `interaction:${details.uid}` };
}

/**
 * Our error page for a request that cannot go on: in words (by `situation`, else by the `error` code), with the
 * OAuth `error` code and `description` in small print.
 */
export function refuse(
  ctx: Context,
  status: number,
  error: string,
  description: string,
  situation?: ErrorSituation,
): void {
  renderPage(ctx, status, (nonce, ui) => errorPage(nonce, error, description, { ui, situation }));
}

/**
 * Middleware: loads the interaction bound to this browser (its cookie), checks it is the one in the URL and
 * puts it on `ctx.state.interaction`; otherwise answers 400. A storage outage (503) is thrown on.
 */
export function loadInteraction(provider: Provider): Middleware {
  return async function loadInteraction(ctx: Context, next: Next) {
    let details: Details;
    try {
      details = await provider.interactionDetails(ctx.req, ctx.res);
    } catch (err) {
      if ((err as { statusCode?: number }).statusCode === 503) throw err;
      return refuse(ctx, 400, 'invalid_request', EXPIRED_INTERACTION, 'expired');
    }
    if (details.uid !== (ctx as Context & { params: Record<string, string> }).params.uid) {
      return refuse(
        ctx,
        400,
        'invalid_request',
        'This sign-in request does not belong to this browser session.',
        'expired',
      );
    }
    ctx.state.interaction = details;
    useUiLocales(ctx, details.params.ui_locales);
    await next();
    keepOpenerForWebMessage(ctx, details.params.response_mode);
  };
}

/** Middleware: a form submission goes on only with this interaction's CSRF token; else 403. */
export function interactionCsrf(csrf: CsrfGuard): Middleware {
  return csrfCheck(
    csrf,
    (ctx) => interactionForm(ctx, detailsOf(ctx)),
    (ctx) =>
      refuse(
        ctx,
        403,
        'invalid_request',
        'The form was not submitted from this sign-in page (missing or wrong CSRF token). Reload the page ' +
          'and try again.',
        'form',
      ),
  );
}

/** Middleware: the interaction must be at prompt `name` (`login` or `consent`); else 400 with `description`. */
export function requirePrompt(name: 'login' | 'consent', description: string): Middleware {
  return async function requirePrompt(ctx: Context, next: Next) {
    if (detailsOf(ctx).prompt.name !== name) return refuse(ctx, 400, 'invalid_request', description, 'step');
    await next();
  };
}

/**
 * The host the answer of `details` goes to (its redirect_uri), shown to the user beside the client's name; the
 * scheme for a native app's private-use URI scheme (RFC 8252 §7.1).
 */
export function clientDomain(details: Details): string | undefined {
  const uri = details.params.redirect_uri;
  if (typeof uri !== 'string' || !URL.canParse(uri)) return undefined;
  const url = new URL(uri);
  return url.host || url.protocol.replace(/:$/, '');
}

/** The client's display name (`client_name`), else its id. */
export async function clientName(provider: Provider, details: Details): Promise<string> {
  const client = await provider.Client.find(String(details.params.client_id));
  return client?.clientName ?? String(details.params.client_id);
}

/**
 * Ends the interaction with `result` and sends the browser back to oidc-provider (303): what
 * `provider.interactionResult` does, on the interaction this request already loaded and checked (cookie, session,
 * uid) in {@link loadInteraction}, instead of reading it and its session from storage a second time.
 */
export async function finishInteraction(
  ctx: Context,
  details: Details,
  result: Parameters<Provider['interactionResult']>[2],
  merge: boolean,
): Promise<void> {
  // It may have expired while this request ran (a password hash takes a while): then, as a fresh read would have
  // found nothing, the sign-in is over; never saved with a lifetime of zero or less.
  const ttl = details.exp - Math.floor(Date.now() / 1000);
  if (ttl <= 0) return refuse(ctx, 400, 'invalid_request', EXPIRED_INTERACTION, 'expired');
  details.result = merge && !('error' in result) ? { ...details.lastSubmission, ...result } : result;
  await details.save(ttl);
  ctx.status = 303;
  ctx.redirect(details.returnTo);
}
