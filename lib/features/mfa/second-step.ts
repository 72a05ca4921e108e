import type { Context, Middleware } from 'koa';
import type { Amr } from '../../accounts/mfa/policy.js';
import { recoveryCodesPage, codePage } from './views.js';
import { formBody, formField, parseForm, renderPage, renderTooManyRequests } from '../../http/pages.js';
import { uiOf } from '../../ui/ui.js';
import {
  clientName,
  detailsOf,
  interactionCsrf,
  interactionForm,
  interactionPath,
  loadInteraction,
  refuse,
  requirePrompt,
  type Details,
  type InteractionActionDeps as SignInDeps,
  type SecondSignInStep,
} from '../../oidc/interaction/common.js';
import {
  afterPassword,
  enrolled,
  finishSecondStep,
  savePending,
  secondStepOf,
  showSecondStep,
  type InteractionActionDeps,
  type MfaInteractionDeps,
  type Pending,
} from './pending-step.js';

export {
  afterPassword,
  finishSecondStep,
  secondStepOf,
  showSecondStep,
  type MfaInteractionDeps,
  type Pending,
} from './pending-step.js';

function finish(ctx: Context, deps: InteractionActionDeps, details: Details, pending: Pending): Promise<void> {
  return finishSecondStep(ctx, deps, details, pending, ['otp']);
}

/** Loads the pending second step of the interaction, else answers 400. */
function requireSecondStep(stage: Pending['stage']): Middleware {
  return async function requireSecondStep(ctx, next) {
    const pending = await secondStepOf(ctx.state.deps as InteractionActionDeps, detailsOf(ctx));
    if (!pending || pending.stage !== stage)
      return refuse(
        ctx,
        400,
        'invalid_request',
        'There is no second sign-in step pending here. Go back to the application and start again.',
      );
    ctx.state.pending = pending;
    await next();
  };
}

function withDeps(deps: InteractionActionDeps): Middleware {
  return async function withDeps(ctx, next) {
    ctx.state.deps = deps;
    await next();
  };
}

/** `POST /interaction/:uid/second-factor`: checks the TOTP or recovery code and finishes the sign-in. */
function checkSecondFactorOf(deps: InteractionActionDeps): Middleware {
  return async function checkSecondFactor(ctx: Context) {
    const details = detailsOf(ctx);
    const pending = ctx.state.pending as Pending;
    const result = await deps.mfa.factors.check(pending.accountId, formField(formBody(ctx), 'code', 64), ctx.ip);
    if (result.kind === 'rate-limited') {
      const name = await clientName(deps.provider, details);
      const csrfToken = deps.csrf.issue(ctx, interactionForm(ctx, details));
      return renderTooManyRequests(ctx, result.retryAfterSeconds, (nonce, ui) =>
        codePage({
          nonce,
          ui,
          action: `${interactionPath(ctx, details)}/second-factor`,
          csrfToken,
          clientName: name,
          error: ui.t.t('mfa.tooMany'),
        }),
      );
    }
    if (result.kind === 'wrong')
      return showSecondStep(ctx, deps, details, pending, undefined, 401, uiOf(ctx).t.t('mfa.wrongCode'));
    await finish(ctx, deps, details, pending);
  };
}

/**
 * `POST /interaction/:uid/enrol`: confirms the first TOTP enrolment with a code, then shows the recovery codes once
 * (an account that got a second factor meanwhile is asked for that factor instead: 409).
 */
function confirmEnrolmentOf(deps: InteractionActionDeps): Middleware {
  return async function confirmEnrolment(ctx: Context) {
    const details = detailsOf(ctx);
    const pending = ctx.state.pending as Pending;
    const body = formBody(ctx);
    const enrolment = formField(body, 'enrolment', 2048);
    // The account got a second factor since this step began (on /account, another sign-in): that factor is asked
    // for now, never replaced by one the password alone set up.
    const result = (await enrolled(deps, pending.accountId))
      ? { kind: 'already-enrolled' as const }
      : await deps.mfa.factors.confirmFirstEnrolment(pending.accountId, enrolment, formField(body, 'code', 16), ctx.ip);
    if (result.kind === 'already-enrolled') {
      const now: Pending = { ...pending, stage: 'second-factor' };
      await savePending(deps.mfa, details, now);
      return showSecondStep(ctx, deps, details, now, undefined, 409, uiOf(ctx).t.t('mfa.enrolledMeanwhile'));
    }
    if (result.kind === 'rate-limited') {
      ctx.set('Retry-After', String(result.retryAfterSeconds));
      return showSecondStep(ctx, deps, details, pending, undefined, 429, uiOf(ctx).t.t('mfa.tooMany'), enrolment);
    }
    if (result.kind === 'wrong')
      return showSecondStep(ctx, deps, details, pending, undefined, 401, uiOf(ctx).t.t('mfa.wrongCode'), enrolment);
    const account = await deps.accounts.findById(pending.accountId);
    if (account)
      await deps.mfa.changes.changed(
        account,
        'added',
        'an authenticator app (TOTP)',
        details.session?.accountId === account.id ? details.session.cookie : undefined,
        uiOf(ctx).locale,
      );
    await savePending(deps.mfa, details, { ...pending, stage: 'codes-shown' });
    const scope = interactionPath(ctx, details);
    const csrfToken = deps.csrf.issue(ctx, interactionForm(ctx, details));
    renderPage(ctx, 200, (nonce, ui) =>
      recoveryCodesPage({
        nonce,
        ui,
        codes: result.recoveryCodes,
        next: { action: `${scope}/continue`, csrfToken },
      }),
    );
  };
}

/**
 * `POST /interaction/:uid/second-factor` (field `code`: TOTP or recovery code), `POST /interaction/:uid/enrol`
 * (fields `enrolment`, `code`) and `POST /interaction/:uid/continue` (after the recovery codes were shown).
 * Each attempt counts against the second-factor limits (429 with `Retry-After` over them).
 */
export function secondFactorActions(deps: InteractionActionDeps): {
  code: Middleware[];
  enrol: Middleware[];
  continue: Middleware[];
} {
  const common = [
    parseForm,
    loadInteraction(deps.provider),
    interactionCsrf(deps.csrf),
    requirePrompt('login', 'This sign-in step is already complete.'),
    withDeps(deps),
  ];
  return {
    code: [...common, requireSecondStep('second-factor'), checkSecondFactorOf(deps)],
    enrol: [...common, requireSecondStep('enrol'), confirmEnrolmentOf(deps)],
    continue: [
      ...common,
      requireSecondStep('codes-shown'),
      async function continueAfterCodes(ctx: Context) {
        await finish(ctx, deps, detailsOf(ctx), ctx.state.pending as Pending);
      },
    ],
  };
}

/**
 * The second factors' second sign-in step (the sign-in's `secondStep` extension point): TOTP and recovery codes,
 * their enrolment when a client or request needs two factors, and the other features' second factors
 * (`SecondStepMethod`). `mfa` is read once the sign-in asks (the factor-change notices belong to the
 * self-service feature, set up after this one).
 */
export function mfaSecondStep(mfa: () => MfaInteractionDeps): SecondSignInStep {
  const withMfa = (deps: SignInDeps): InteractionActionDeps => ({ ...deps, mfa: mfa() });
  return {
    prefetch: (uid) => mfa().pending.find(uid),
    of: (deps, details, prefetched) => secondStepOf(withMfa(deps), details, prefetched),
    afterPassword: (ctx, deps, details, account, checkedAt) =>
      afterPassword(ctx, withMfa(deps), details, account, checkedAt),
    show: (ctx, deps, details, pending, status, error) =>
      showSecondStep(ctx, withMfa(deps), details, pending as Pending, undefined, status, error),
    finish: (ctx, deps, details, pending, methods) =>
      finishSecondStep(ctx, withMfa(deps), details, pending as Pending, methods as Amr[]),
    actions(deps) {
      const second = secondFactorActions(withMfa(deps));
      return { 'second-factor': second.code, enrol: second.enrol, continue: second.continue };
    },
  };
}
