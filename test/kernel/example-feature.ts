// The example feature of docs/architecture.md ("Writing a feature"), word for word but for the import path.
import type { Middleware } from 'koa';
import { BODY_LIMITS, type Feature } from '../../lib/index.js';

/** `GET /motd` under the issuer's path: a greeting naming the issuer's host, and how many sign-ins it saw. */
export const motd: Feature<{ signIns(): number }> = {
  id: 'motd',
  enabled: (config) => !config.production,
  setup({ config, kernel }) {
    let signIns = 0;
    const serveMotd: Middleware = async (ctx, next) => {
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { message: `Welcome to ${new URL(config.issuer).host}`, signIns };
    };
    kernel.logger.info({ feature: 'motd' }, 'motd: serving /motd');
    return {
      provider: {
        on: {
          'interaction.ended': () => {
            signIns += 1;
          },
        },
      },
      services: { signIns: () => signIns },
      routes: () => [{ name: 'motd', where: { paths: ['/motd'] }, bodyLimit: BODY_LIMITS.pages, chain: [serveMotd] }],
    };
  },
};
