import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { html, type SafeHtml } from '../../ui/html.js';
import { formBody, formField } from '../../http/pages.js';
import { mountedPath } from '../../core/mount-path.js';
import type { Logger } from '../../core/logger.js';
import type { MessageKey } from '../../ui/i18n.js';
import { uiOf, type PageUi } from '../../ui/ui.js';
import { connectedApps, handleOf, revokeApp, type ConnectedAppsDeps } from '../account-apps.js';
import { HOME_PATHS } from '../paths.js';
import { button, finished, section, type SignedIn } from './common.js';

/** What the connected applications section needs. */
export interface AppsSectionDeps extends ConnectedAppsDeps {
  logger: Logger;
  /** The configured description of a scope without a shipped translation (`scopes` option), if any. */
  describeScope?(name: string): string | undefined;
}

/**
 * A scope in the reader's words: the shipped `scope.<name>` message, else the configured description, else the name.
 */
function scopeWords(ui: PageUi, deps: AppsSectionDeps, name: string): string {
  const key = `scope.${name}`;
  return ui.t.has(key) ? (ui.t.t as (k: MessageKey) => string)(key) : (deps.describeScope?.(name) ?? name);
}

/**
 * The "Connected applications" section (`#apps`): one `li.app` per client with a remembered consent, its name
 * (`.app-name`), domains (`.app-domain`), scopes in words (`.app-scopes li`) and a "Revoke" button (`#revoke-<n>`).
 */
export async function appsSection(
  ctx: Context,
  deps: AppsSectionDeps,
  who: SignedIn,
  csrfToken: string,
): Promise<SafeHtml> {
  const ui = uiOf(ctx);
  const { t } = ui;
  const apps = await connectedApps(deps, who.account.id);
  const action = mountedPath(ctx, HOME_PATHS.appsRevoke);
  const body =
    apps.length === 0
      ? html`<p id="apps-none">${t.t('account.apps.none')}</p>`
      : html`<ul id="app-list">${apps.map(
          (
            app,
            i,
          ) => html`<li class="app" data-client-id="${app.clientId}"><strong class="app-name">${app.name}</strong>
${
  app.domains.length
    ? html`<p class="app-domain">${t.t('account.apps.domain', { domain: app.domains.join(', ') })}</p>`
    : ''
}
<p>${t.t('account.apps.canDo')}</p><ul class="app-scopes">${app.scopes.map(
            (s) => html`<li data-scope="${s}">${scopeWords(ui, deps, s)}</li>`,
          )}</ul>
${button(action, csrfToken, t.t('account.apps.revoke'), `revoke-${i}`, true, { app: handleOf(app.clientId) })}</li>`,
        )}</ul>`;
  return section(t.t('account.apps.title'), html`<p>${t.t('account.apps.intro')}</p>${body}`, 'apps');
}

/** Mounts `POST /account/apps/revoke` behind `change` (form parsing, CSRF, fresh sign-in). */
export function appsRoutes(router: Router, deps: AppsSectionDeps, change: Middleware[]): void {
  router.post(HOME_PATHS.appsRevoke, ...change, async (ctx: Context) => {
    const { account } = ctx.state.signedIn as SignedIn;
    const { t } = uiOf(ctx);
    const handle = formField(formBody(ctx), 'app', 64);
    const app = (await connectedApps(deps, account.id)).find((a) => handleOf(a.clientId) === handle);
    if (!app)
      return finished(ctx, t.t('account.apps.gone.title'), t.t('account.apps.gone'), t.t('account.home.back'), 404);
    await revokeApp(deps, account.id, app);
    deps.logger.info(
      { accountId: account.id, clientId: app.clientId, grants: app.grantIds.length },
      'account page: application access revoked',
    );
    finished(
      ctx,
      t.t('account.apps.revoked.title'),
      t.t('account.apps.revoked', { client: app.name }),
      t.t('account.home.back'),
    );
  });
}
