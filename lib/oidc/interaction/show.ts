import type { Context, Middleware, Next } from 'koa';
import { OFFLINE_MARKER } from '../offline-access.js';
import { showConsent } from './consent.js';
import { detailsOf, finishInteraction, loadInteraction, refuse, type InteractionActionDeps } from './common.js';
import { showLogin } from './login.js';

/**
 * `GET /interaction/:uid`: the page of the interaction's prompt (login or consent). A consent prompt that only
 * our `offline_access` rule added, with nothing left to approve, ends without a page.
 */
export function showInteractionActions(deps: InteractionActionDeps): Middleware[] {
  return [
    function prefetchPendingStep(ctx: Context, next: Next) {
      // The pending second step is keyed by the interaction's uid, which the URL names: it is read beside the
      // interaction itself (one round trip on Redis) and used only once the interaction proved to be this one.
      const uid = (ctx as Context & { params: Record<string, string> }).params.uid;
      if (deps.secondStep && uid) {
        const read = deps.secondStep.prefetch(uid);
        // a refused interaction never awaits it; a storage outage still reaches secondStep.of
        read.catch(() => undefined);
        ctx.state.pendingStep = read;
      }
      return next();
    },
    loadInteraction(deps.provider),
    async function showPrompt(ctx: Context) {
      const details = detailsOf(ctx);
      if (details.prompt.name === 'login') {
        const pending = await deps.secondStep?.of(deps, details, ctx.state.pendingStep as Promise<unknown> | undefined);
        return pending ? deps.secondStep!.show(ctx, deps, details, pending) : showLogin(ctx, deps, details);
      }
      if (details.prompt.name === 'consent') {
        const onlyOurPrompt =
          details.params[OFFLINE_MARKER] === '1' && details.prompt.reasons.every((r) => r === 'consent_prompt');
        if (onlyOurPrompt && details.grantId)
          return finishInteraction(ctx, details, { consent: { grantId: details.grantId } }, true);
        return showConsent(ctx, deps, details);
      }
      refuse(ctx, 400, 'invalid_request', `Unsupported interaction "${details.prompt.name}".`);
    },
  ];
}
