import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type Provider from 'oidc-provider';
import { html, type SafeHtml } from '../../ui/html.js';
import { formBody, formField } from '../../http/pages.js';
import { mountedPath } from '../../core/mount-path.js';
import type { Logger } from '../../core/logger.js';
import type { Translator } from '../../ui/i18n.js';
import { uiOf } from '../../ui/ui.js';
import { handleOf } from '../account-apps.js';
import type { AccountSessions } from '../account-sessions.js';
import { describeUserAgent, type SessionDevice, type SessionDevices } from '../session-devices.js';
import { HOME_PATHS } from '../paths.js';
import { button, finished, section, type SignedIn } from './common.js';

/** What the active sessions section needs. */
export interface SessionsSectionDeps {
  provider: Provider;
  logger: Logger;
  sessions: AccountSessions;
  devices: SessionDevices;
}

interface LiveSession {
  id: string;
  loginTs: number;
  grantIds: string[];
  device: SessionDevice | undefined;
}

/** The account's sessions that still exist (the index may hold ids oidc-provider replaced or expired), newest first. */
async function liveSessions(deps: SessionsSectionDeps, accountId: string): Promise<LiveSession[]> {
  const entries = await deps.sessions.list(accountId);
  const found = await Promise.all(
    entries.map(async ({ id }): Promise<LiveSession | undefined> => {
      const session = (await deps.provider.Session.find(id)) as unknown as
        | { accountId?: string; loginTs?: number; authorizations?: Record<string, { grantId?: string }> }
        | undefined;
      if (session?.accountId !== accountId) return undefined;
      const grantIds = Object.values(session.authorizations ?? {})
        .map((a) => a.grantId)
        .filter((g): g is string => typeof g === 'string');
      return { id, loginTs: session.loginTs ?? 0, grantIds, device: await deps.devices.find(id) };
    }),
  );
  return found.filter((s): s is LiveSession => s !== undefined).sort((a, b) => b.loginTs - a.loginTs);
}

/** "Chrome on Linux", "Firefox", "Windows", or "Unknown device", from the recorded User-Agent. */
function deviceWords(t: Translator, device: SessionDevice | undefined): string {
  const { browser, os } = describeUserAgent(device?.userAgent ?? '');
  if (browser && os) return t.t('account.sessions.deviceOn', { browser, os });
  return browser ?? os ?? t.t('account.sessions.unknownDevice');
}

/**
 * The "Active sessions" section (`#session-list`): one `li.session` per live session with its device
 * (`.session-device`), sign-in time (`.session-time`, UTC), IP (`.session-ip`), "This device" (`.this-device`) on
 * the browser's own session and a "Sign out" button (`#end-session-<n>`) on the others; then "sign out all others".
 */
export async function sessionsSection(
  ctx: Context,
  deps: SessionsSectionDeps,
  who: SignedIn,
  csrfToken: string,
  signOutOthers: SafeHtml,
): Promise<SafeHtml> {
  const { t, locale } = uiOf(ctx);
  const live = await liveSessions(deps, who.account.id);
  const mine = live.filter((s) => s.id === who.sessionId);
  const list = [...mine, ...live.filter((s) => s.id !== who.sessionId)];
  const when = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
  const action = mountedPath(ctx, HOME_PATHS.sessionEnd);
  const items = list.map((s, i) => {
    const self = s.id === who.sessionId;
    return html`<li class="session"><strong class="session-device">${deviceWords(t, s.device)}</strong>${
      self ? html` <span class="this-device">${t.t('account.sessions.thisDevice')}</span>` : ''
    }
<p><span class="session-time">${t.t('account.sessions.signedIn', {
      time: `${when.format(new Date(s.loginTs * 1000))} UTC`,
    })}</span>${
      s.device?.ip ? html` · <span class="session-ip">${t.t('account.sessions.ip', { ip: s.device.ip })}</span>` : ''
    }</p>
${
  self
    ? ''
    : button(action, csrfToken, t.t('account.sessions.signOut'), `end-session-${i}`, true, { session: handleOf(s.id) })
}</li>`;
  });
  return section(
    t.t('account.sessions.title'),
    html`<ul id="session-list">${items}</ul>${signOutOthers}`,
    'sessions-section',
  );
}

/**
 * Mounts `POST /account/sessions/end` behind `change`: ends the one session of the account whose handle is posted
 * (its Session is destroyed, so its cookie no longer signs in, and the Grants it holds are revoked with their
 * tokens); an unknown handle gets 404.
 */
export function sessionsRoutes(router: Router, deps: SessionsSectionDeps, change: Middleware[]): void {
  router.post(HOME_PATHS.sessionEnd, ...change, async (ctx: Context) => {
    const { account } = ctx.state.signedIn as SignedIn;
    const { t } = uiOf(ctx);
    const handle = formField(formBody(ctx), 'session', 64);
    const target = (await liveSessions(deps, account.id)).find((s) => handleOf(s.id) === handle);
    if (!target)
      return finished(
        ctx,
        t.t('account.sessions.gone.title'),
        t.t('account.sessions.gone'),
        t.t('account.home.back'),
        404,
      );
    await deps.sessions.revoke(account.id, { sessions: [target.id], grants: target.grantIds });
    await deps.devices.forget(target.id);
    deps.logger.info({ accountId: account.id, grants: target.grantIds.length }, 'account page: one session signed out');
    finished(
      ctx,
      t.t('account.sessions.ended.title'),
      t.t('account.sessions.ended', { device: deviceWords(t, target.device) }),
      t.t('account.home.back'),
    );
  });
}
