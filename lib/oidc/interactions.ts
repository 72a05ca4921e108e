import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { InteractionDeps } from './interaction/common.js';
import { consentActions } from './interaction/consent.js';
import { cancelLoginActions, loginActions } from './interaction/login.js';
import { showInteractionActions } from './interaction/show.js';

/**
 * Login and consent pages (OpenID Connect Core §3.1.2.3–§3.1.2.4), at `/interaction/:uid`. oidc-provider's
 * `devInteractions` (which accepts any password) is never used. One action file per step in `interaction/`.
 */
export function interactionRoutes(deps: InteractionDeps): Middleware {
  const actionDeps = deps;
  const router = new Router({ prefix: '/interaction' });
  router.get('/:uid', ...showInteractionActions(actionDeps));
  router.post('/:uid/login', ...loginActions(actionDeps));
  for (const method of deps.methods ?? []) {
    for (const [name, actions] of Object.entries(method.actions?.(actionDeps) ?? {}))
      router.post(`/:uid/${name}`, ...actions);
  }
  router.post('/:uid/cancel', ...cancelLoginActions(actionDeps));
  router.post('/:uid/confirm', ...consentActions(actionDeps));
  for (const [name, actions] of Object.entries(deps.secondStep?.actions(actionDeps) ?? {}))
    router.post(`/:uid/${name}`, ...actions);
  return router.routes() as unknown as Middleware;
}
