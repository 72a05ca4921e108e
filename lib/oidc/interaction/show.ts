import type { Context, Middleware } from 'koa';
import { OFFLINE_MARKER } from '../provider.js';
import { showConsent } from './consent.js';
import { detailsOf, finishInteraction, loadInteraction, refuse, type InteractionActionDeps } from './common.js';
import { showLogin } from './login.js';
import { secondStepOf, showSecondStep } from './second-factor.js';

/**
 * `GET /interaction/:uid`: the page of the interaction's prompt (login or consent). A consent prompt that only
 * our `offline_access` rule added, with nothing left to approve, ends without a page.
 */
export function showInteractionActions(deps: InteractionActionDeps): Middleware[] {
  return [
    loadInteraction(deps.provider),
    async function showPrompt(ctx: Context) {
      const details = detailsOf(ctx);
      if (details.prompt.name === 'login') {
        const pending = await secondStepOf(deps, details);
        return pending ? showSecondStep(ctx, deps, details, pending) : showLogin(ctx, deps, details);
      }
      if (details.prompt.name === 'consent') {
        const onlyOurPrompt = details.params[OFFLINE_MARKER] === '1' && details.prompt.reasons.every((r) => r === 'consent_prompt');
        if (onlyOurPrompt && details.grantId) return finishInteraction(ctx, details, { consent: { grantId: details.grantId } }, true);
        return showConsent(ctx, deps, details);
      }
      refuse(ctx, 400, 'invalid_request', `Unsupported interaction "${details.prompt.name}".`);
    },
  ];
}
