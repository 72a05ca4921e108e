import type { Context } from 'koa';
import type { AccountSection } from '../../accounts/account-home.js';
import { button, finished, section, type SignedIn } from '../../accounts/home/common.js';
import type { FactorChanges } from '../../accounts/mfa/factor-changes.js';
import type { SecondFactorService } from '../../accounts/mfa/second-factor-service.js';
import { messagePage } from '../../accounts/views.js';
import { html } from '../../ui/html.js';
import { formBody, formField, renderPage, renderTooManyRequests } from '../../http/pages.js';
import { mountedPath } from '../../core/mount-path.js';
import type { PlainKey, Translator } from '../../ui/i18n.js';
import { uiOf, withLocale } from '../../ui/ui.js';
import { HOME_PATHS } from '../../accounts/paths.js';
import { MFA_PATHS } from './paths.js';
import { enrolPage, recoveryCodesPage } from './views.js';

/** What the account page's second-factor section needs; `changes` is read when a change is made. */
export interface MfaSectionDeps {
  factors: SecondFactorService;
  changes(): FactorChanges;
}

/** A "done" page with `text` and a link back to the account page. */
function done(ctx: Context, text: (t: Translator) => string): void {
  const { t } = uiOf(ctx);
  finished(ctx, t.t('home.done'), text(t), t.t('home.back'));
}

/** The recovery codes, shown once, with a link back to the account page. */
function showCodes(ctx: Context, codes: string[]): void {
  renderPage(ctx, 200, (nonce, ui) =>
    recoveryCodesPage({
      nonce,
      ui,
      codes,
      next: { href: withLocale(ui, mountedPath(ctx, HOME_PATHS.home)), text: ui.t.t('home.back') },
    }),
  );
}

/**
 * The account page's two-step verification (the `accountSections` extension point): whether TOTP is on, the
 * recovery codes left, and the forms to set up or remove TOTP and to make new recovery codes, with their POST
 * routes (`MFA_PATHS`) behind the account page's change guard. Every change signs the other sessions out and
 * mails a notice (`FactorChanges`).
 */
export function mfaAccountSection(deps: MfaSectionDeps): AccountSection {
  const { factors } = deps;
  return {
    order: 10,
    async show(ctx, who, { csrfToken, at }) {
      const status = await factors.status(who.account.id);
      const { t } = uiOf(ctx);
      const left = (n: number) =>
        n === 1 ? t.t('home.recoveryLeft.one' satisfies PlainKey) : t.t('home.recoveryLeft.other', { count: n });
      const actions = {
        totpAdd: at(MFA_PATHS.totpStart),
        totpRemove: at(MFA_PATHS.totpRemove),
        recoveryCodes: at(MFA_PATHS.recoveryCodes),
      };
      const totpStatus = html`<p id="totp-status">${t.t(status.totp ? 'home.totpOn' : 'home.totpOff')}</p>`;
      const body = status.totp
        ? html`${totpStatus}<p id="recovery-left">${left(status.recoveryCodesLeft)}</p>${[
            button(actions.recoveryCodes, csrfToken, t.t('home.recoveryNew'), 'recovery-new', true),
            button(actions.totpRemove, csrfToken, t.t('home.totpRemove'), 'totp-remove', true),
          ]}`
        : html`${totpStatus}${button(actions.totpAdd, csrfToken, t.t('home.totpAdd'), 'totp-add')}`;
      return {
        html: section(t.t('home.twoStep'), body),
        view: { totp: { on: status.totp, recoveryCodesLeft: status.recoveryCodesLeft }, actions },
      };
    },
    routes(router, { change, csrfToken }) {
      const showEnrol = async (ctx: Context, status: number, error?: string, sealed?: string) => {
        const { account } = ctx.state.signedIn as SignedIn;
        const shown =
          (sealed ? await factors.reopenEnrolment(account, sealed) : undefined) ??
          (await factors.startEnrolment(account));
        const token = csrfToken(ctx);
        renderPage(ctx, status, (nonce, ui) =>
          enrolPage({
            nonce,
            ui,
            action: withLocale(ui, mountedPath(ctx, MFA_PATHS.totpConfirm)),
            csrfToken: token,
            svg: shown.svg,
            secret: shown.secret,
            sealed: shown.sealed,
            error,
          }),
        );
      };
      router.post(MFA_PATHS.totpStart, ...change, (ctx) => showEnrol(ctx, 200));
      router.post(MFA_PATHS.totpConfirm, ...change, async (ctx) => {
        const { account, sessionId } = ctx.state.signedIn as SignedIn;
        const body = formBody(ctx);
        const sealed = formField(body, 'enrolment', 2048);
        const result = await factors.confirmEnrolment(account.id, sealed, formField(body, 'code', 16), ctx.ip);
        if (result.kind === 'rate-limited') {
          return renderTooManyRequests(ctx, result.retryAfterSeconds, (nonce, ui) =>
            messagePage(nonce, ui.t.t('account.tooMany.title'), ui.t.t('mfa.tooMany'), { error: true, ui }),
          );
        }
        if (result.kind === 'wrong') return showEnrol(ctx, 401, uiOf(ctx).t.t('mfa.wrongCode'), sealed);
        await deps.changes().changed(account, 'added', 'an authenticator app (TOTP)', sessionId, uiOf(ctx).locale);
        showCodes(ctx, result.recoveryCodes);
      });
      router.post(MFA_PATHS.totpRemove, ...change, async (ctx) => {
        const { account, sessionId } = ctx.state.signedIn as SignedIn;
        await factors.remove(account.id);
        await deps.changes().changed(account, 'removed', 'an authenticator app (TOTP)', sessionId, uiOf(ctx).locale);
        done(ctx, (t) => t.t('home.totpRemoved'));
      });
      router.post(MFA_PATHS.recoveryCodes, ...change, async (ctx) => {
        const { account, sessionId } = ctx.state.signedIn as SignedIn;
        const codes = await factors.regenerateRecoveryCodes(account.id);
        if (!codes) return done(ctx, (t) => t.t('home.totpOff'));
        await deps.changes().changed(account, 'added', 'new recovery codes', sessionId, uiOf(ctx).locale);
        showCodes(ctx, codes);
      });
    },
  };
}
