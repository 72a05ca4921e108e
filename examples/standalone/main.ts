/**
 * The standalone Portcullis server (`npm start`): the example catalog API plus, in development, the demo
 * fixtures. Settings come from the environment; see docs/guides/configuration.md "Environment variables".
 */
import { serve } from '../../lib/cli/start.js';
import { DEMO } from '../demo-fixtures.js';
import { standaloneSettings } from './config.js';

async function main(): Promise<void> {
  const { port, host, config, demo } = standaloneSettings();
  await serve({ port, host, config }, (line) => console.log(line));
  if (demo) {
    console.log('Development demo fixtures (refused with NODE_ENV=production):');
    console.log(
      `  client     ${DEMO.client.id} / ${DEMO.client.secret}  redirect_uri ${DEMO.client.redirectUri}  (client_secret_post)`,
    );
    console.log(
      `  client     ${DEMO.spa.id} (public, no secret)  redirect_uri ${DEMO.spa.redirectUri}  (code + PKCE, or implicit id_token token)`,
    );
    console.log(`  accounts   ${DEMO.alice.email} / ${DEMO.alice.password}`);
    console.log(
      `             ${DEMO.admin.email} / ${DEMO.admin.password}  (role admin: may be granted catalog:admin)`,
    );
    console.log(`  registration initial access token: ${DEMO.initialAccessToken}`);
  }
}

main().catch((err: Error & { code?: string }) => {
  // Only our message and code: never the error object, whose members or cause may carry secrets.
  console.error(`Portcullis failed to start: ${err.message}${err.code ? ` (${err.code})` : ''}`);
  process.exit(1);
});
