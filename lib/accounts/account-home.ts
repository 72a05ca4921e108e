import Cookies from 'cookies';
import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import type Provider from 'oidc-provider';
import type { CsrfGuard } from '../http/csrf.js';
import { html, type SafeHtml } from '../ui/html.js';
import { csrfCheck, layout, parseForm, renderPage } from '../http/pages.js';
import type { AccountSessions } from './account-sessions.js';
import type { AccountStore } from '../core/account-store.js';
import type { Logger } from '../core/logger.js';
import { ACCOUNT_CSRF_SCOPE, HOME_PATHS } from './paths.js';
import { messagePage } from './views.js';
import { mountedPath } from '../core/mount-path.js';
import type { Translator } from '../ui/i18n.js';
import type { AccountHomeView } from '../ui/templates.js';
import { pageBody, uiOf, withLocale } from '../ui/ui.js';
import type { AccountLimits } from './account-limits.js';
import type { AccountMail } from './account-mail.js';
import type { SessionDevices } from './session-devices.js';
import type { VerificationTokens } from './verification-tokens.js';
import { appsRoutes, appsSection } from './home/apps.js';
import { button, section, signedInForm, type SignedIn } from './home/common.js';
import { passwordRoutes, passwordSection } from './home/password.js';
import { sessionsRoutes, sessionsSection } from './home/sessions.js';
import type { AccountSection, AccountSectionPart } from './home/sections.js';

export type { SignedIn } from './home/common.js';
export type { AccountSection, AccountSectionForms, AccountSectionPart } from './home/sections.js';

/** The first-party client through which `/account` signs a browser in (a public client, code + PKCE). */
export const ACCOUNT_CLIENT_ID = 'portcullis-account';

/** What {@link accountHomeRoutes} needs. */
export interface AccountHomeDeps {
  provider: Provider;
  issuer: string;
  accounts: AccountStore;
  sessions: AccountSessions;
  csrf: CsrfGuard;
  /**
   * The cookie keys oidc-provider signs its `_session` cookie with: read with our own keys, since a host app that
   * mounts Portcullis may have none (or others) on its `ctx.cookies`.
   */
  cookieKeys: readonly string[];
  /** `mfa.reauthenticateAfterSeconds`: changes need a sign-in at most this old. */
  reauthenticateAfterSeconds: number;
  /** The features' sections of the page (the `accountSections` extension point), in their `order`. */
  sections?: readonly AccountSection[];
  /** Links to the e-mail change and password reset pages (undefined without mail). */
  changeEmailUrl?: string;
  resetUrl?: string;
  /** The device (User-Agent, IP) of each session, recorded at sign-in (session-devices.ts). */
  devices: SessionDevices;
  /** The login rate limits, which the password change counts under. */
  limits: AccountLimits;
  /** The account mails (the password change notice). */
  mail: AccountMail;
  /** The e-mail links: a password change ends the account's reset links and pending e-mail changes. */
  linkTokens: VerificationTokens;
  /** `selfService.passwordMinLength`. */
  passwordMinLength: number;
  /** Where password changes, revoked applications and ended sessions are logged (no secrets). */
  logger: Logger;
  /** Forgets the remembered consent of an account for a client (the connected applications' "Revoke"). */
  forgetConsent(accountId: string, clientId: string): Promise<void>;
  /** The account's remembered consents with their scopes (the connected applications' list). */
  listConsents(accountId: string): Promise<Array<{ clientId: string; scopes: string[] }>>;
  /** The configured description of a scope without a shipped translation, if any. */
  describeScope?(name: string): string | undefined;
}

/**
 * The browser's provider session (the session cookie oidc-provider sets, `cookieName('session')`: `_session`, or
 * `__Host-portcullis.session` on an https issuer at a host's root; signed with the same cookie keys),
 * and its account, or `undefined` when the browser is not signed in.
 */
async function signedIn(ctx: Context, deps: AccountHomeDeps): Promise<SignedIn | undefined> {
  const id = new Cookies(ctx.req, ctx.res, { keys: [...deps.cookieKeys] }).get(deps.provider.cookieName('session'), {
    signed: true,
  });
  if (!id) return undefined;
  const session = (await deps.provider.Session.find(id)) as unknown as
    | { accountId?: string; loginTs?: number; acr?: string; jti: string; uid: string }
    | undefined;
  if (!session?.accountId) return undefined;
  const account = await deps.accounts.findById(session.accountId);
  return account
    ? { account, sessionId: session.jti, sessionUid: session.uid, loginTs: session.loginTs ?? 0, acr: session.acr }
    : undefined;
}

/** Sends the browser to sign in through the account client (code + PKCE; the code is never used). */
function signInFirst(ctx: Context, deps: AccountHomeDeps, fresh: boolean): void {
  const url = new URL(`${deps.issuer}/authorization`);
  url.search = new URLSearchParams({
    client_id: ACCOUNT_CLIENT_ID,
    response_type: 'code',
    scope: 'openid',
    redirect_uri: `${deps.issuer}${HOME_PATHS.callback}`,
    code_challenge: randomBytes(32).toString('base64url'),
    code_challenge_method: 'S256',
    state: randomBytes(16).toString('base64url'),
    ...(fresh ? { prompt: 'login' } : {}),
    // A language chosen by ui_locales carries on to the sign-in page (OpenID Connect Core §3.1.2.1).
    ...(uiOf(ctx).localeQuery ? { ui_locales: uiOf(ctx).locale } : {}),
  }).toString();
  ctx.status = 303;
  ctx.redirect(url.href);
}

/**
 * Middleware: a signed-in browser goes on (`ctx.state.signedIn`, a {@link SignedIn}); others are sent to sign in
 * through {@link ACCOUNT_CLIENT_ID} (303). The guard of every account page (`/account` and the features' pages under
 * it).
 */
export function requireSignIn(deps: AccountHomeDeps): Middleware {
  return async function requireSignIn(ctx: Context, next: Next) {
    const who = await signedIn(ctx, deps);
    if (!who) return signInFirst(ctx, deps, false);
    ctx.state.signedIn = who;
    await next();
  };
}

/**
 * Middleware after {@link requireSignIn}: a sign-in older than `reauthenticateAfterSeconds` signs in again first
 * (`prompt=login`).
 */
function requireFreshSignIn(deps: AccountHomeDeps): Middleware {
  return async function requireFreshSignIn(ctx: Context, next: Next) {
    // Every change re-authenticates when the sign-in is older than the window.
    if (Date.now() / 1000 - (ctx.state.signedIn as SignedIn).loginTs > deps.reauthenticateAfterSeconds)
      return signInFirst(ctx, deps, true);
    await next();
  };
}

/**
 * The guard of every change (POST) on the signed-in account pages, in order: the form is parsed; a browser
 * without a provider session is sent to sign in (303); the form's CSRF token must be the one issued for `scope`
 * in this session ({@link signedInForm}), else 403; a sign-in older than `reauthenticateAfterSeconds` signs in
 * again first.
 */
export function accountChange(deps: AccountHomeDeps, scope: string): Middleware[] {
  const refused = (ctx: Context) =>
    renderPage(ctx, 403, (nonce, ui) =>
      messagePage(nonce, ui.t.t('account.refused.title'), ui.t.t('account.refused'), { error: true, ui }),
    );
  return [
    parseForm,
    requireSignIn(deps),
    csrfCheck(deps.csrf, (ctx) => signedInForm(ctx, scope), refused),
    requireFreshSignIn(deps),
  ];
}

/** Our account page body (`home.*` messages in the request's language, the sections of home/ as they come). */
function homeBody(v: AccountHomeView): SafeHtml {
  const { t } = v.ui;
  const a = v.actions;
  return html`<h1>${t.t('home.title')}</h1>
${section(
  t.t('home.profile'),
  html`<dl id="profile">${v.profile.map(([k, value]) => html`<dt>${k}</dt><dd>${value}</dd>`)}</dl>`,
)}
${section(
  t.t('home.email'),
  html`<p id="email">${v.email}</p>${
    v.changeEmailUrl ? html`<p><a id="change-email" href="${v.changeEmailUrl}">${t.t('home.changeEmail')}</a></p>` : ''
  }`,
)}
${v.sections.password}
${v.sections.features ?? ''}
${v.sections.sessions}
${v.sections.apps}
<p><a id="sign-out" href="${a.signOut}">${t.t('home.signOut')}</a></p>`;
}

/** The view's fields the features' sections fill (their status for a host's template). */
function fromSections(parts: ReadonlyArray<AccountSectionPart | undefined>): Pick<AccountHomeView, 'totp'> {
  const totp = parts.find((part) => part?.view?.totp)?.view?.totp;
  return totp ? { totp } : {};
}

async function showHome(ctx: Context, deps: AccountHomeDeps): Promise<void> {
  const who = ctx.state.signedIn as SignedIn;
  const { account } = who;
  const ui = uiOf(ctx);
  const csrfToken = deps.csrf.issue(ctx, signedInForm(ctx, ACCOUNT_CSRF_SCOPE));
  // A language chosen by `ui_locales` stays on through the page's own forms and links.
  const at = (path: string) => withLocale(ui, mountedPath(ctx, path));
  const [added, apps, sessions] = await Promise.all([
    Promise.all((deps.sections ?? []).map((one) => one.show(ctx, who, { csrfToken, at }))),
    appsSection(ctx, { ...deps, hidden: [ACCOUNT_CLIENT_ID] }, who, csrfToken),
    sessionsSection(
      ctx,
      deps,
      who,
      csrfToken,
      button(at(HOME_PATHS.signOutOthers), csrfToken, ui.t.t('home.signOutOthers'), 'sign-out-others', true),
    ),
  ]);
  const profile = Object.entries(account.claims)
    .filter(([k, v]) => k !== 'updated_at' && (typeof v === 'string' || typeof v === 'number'))
    .map(([k, v]): [string, string] => [k, String(v)]);
  const parts = added.filter((part) => part !== undefined);
  const actions = Object.assign({}, ...parts.map((part) => part.view?.actions)) as Partial<AccountHomeView['actions']>;
  renderPage(ctx, 200, (nonce) => {
    const view: AccountHomeView = {
      nonce,
      ui,
      csrfToken,
      email: account.email,
      profile,
      changeEmailUrl: deps.changeEmailUrl && at(deps.changeEmailUrl),
      ...fromSections(added),
      sections: {
        password: passwordSection(ctx, deps, csrfToken),
        sessions,
        apps,
        features: parts.length ? html`${parts.map((part) => part.html)}` : undefined,
      },
      actions: {
        totpAdd: '',
        totpRemove: '',
        recoveryCodes: '',
        passkeys: '',
        ...actions,
        signOutOthers: at(HOME_PATHS.signOutOthers),
        signOut: at('/session/end'),
      },
    };
    return layout(
      nonce,
      ui.t.t('home.title'),
      pageBody(ui, 'accountHome', view, () => homeBody(view)),
      ui,
    );
  });
}

/** A "done" page with `text` and a link back to the account page. */
function done(ctx: Context, text: (t: Translator) => string): void {
  renderPage(ctx, 200, (nonce, ui) =>
    messagePage(nonce, ui.t.t('home.done'), text(ui.t), {
      links: [{ id: 'back', href: mountedPath(ctx, HOME_PATHS.home), text: ui.t.t('home.back') }],
      ui,
    }),
  );
}

/**
 * The signed-in account page `/account` (profile, e-mail and password links, the features' sections
 * (`accountSections`),
 * sessions) and its changes. A browser without a provider session is sent to sign in through the first-party
 * client {@link ACCOUNT_CLIENT_ID}; a change with a sign-in older than `mfa.reauthenticateAfterSeconds` signs in
 * again first (`prompt=login`). Every form carries the account pages' CSRF token; pages get the usual CSP.
 */
export function accountHomeRoutes(deps: AccountHomeDeps): Middleware {
  const router = new Router();
  const change = accountChange(deps, ACCOUNT_CSRF_SCOPE);
  router.get(HOME_PATHS.home, requireSignIn(deps), (ctx) => showHome(ctx, deps));
  router.get(HOME_PATHS.callback, (ctx) => {
    ctx.status = 303;
    ctx.redirect(mountedPath(ctx, HOME_PATHS.home));
  });
  appsRoutes(router, { ...deps, hidden: [ACCOUNT_CLIENT_ID] }, change);
  sessionsRoutes(router, deps, change);
  passwordRoutes(router, deps, change, (ctx) => deps.csrf.issue(ctx, signedInForm(ctx, ACCOUNT_CSRF_SCOPE)));
  router.post(HOME_PATHS.signOutOthers, ...change, async (ctx) => {
    const { account, sessionId } = ctx.state.signedIn as SignedIn;
    const ended = await deps.sessions.revokeOthers(account.id, sessionId);
    done(ctx, (t) =>
      ended.sessions === 1
        ? t.t('home.othersSignedOut.one')
        : t.t('home.othersSignedOut.other', { count: ended.sessions }),
    );
  });
  const forms = { change, csrfToken: (ctx: Context) => deps.csrf.issue(ctx, signedInForm(ctx, ACCOUNT_CSRF_SCOPE)) };
  for (const added of deps.sections ?? []) added.routes?.(router, forms);
  return router.routes() as unknown as Middleware;
}
