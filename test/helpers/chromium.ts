import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, RUN_CHROMIUM_EXTRA_ARGS } from './global-setup.js';
import { runChromiumEndpoint } from './run-resources.js';
import { suiteIf } from './skip.js';

/**
 * Debian's Chromium for the in-browser tests (`.ci/run` installs it). Without it the browser suites are skipped
 * locally with a loud warning and fail under CI=true.
 */
export { CHROMIUM, CHROMIUM_ARGS };
export const chromiumAvailable = existsSync(CHROMIUM);
if (!chromiumAvailable && process.env.CI)
  throw new Error(`CI=true but no Chromium at ${CHROMIUM}: the browser tests cannot run`);
if (!chromiumAvailable)
  console.warn(`Chromium not found at ${CHROMIUM}: the browser tests are SKIPPED (apt-get install chromium)`);

/** `describe` when Chromium is there, otherwise a skipped suite whose title says why. */
export const browserSuite = suiteIf(chromiumAvailable, `no Chromium at ${CHROMIUM} (apt-get install chromium)`);

/**
 * Headless Chromium with the flags this machine's closed network needs and `extraArgs`. When the run has its one
 * Chromium (test/helpers/global-setup.ts) and it has those flags, a connection to it: its contexts and pages are
 * this file's alone, and `close()` closes them and disconnects, leaving the browser to the other files. Otherwise
 * (other flags are the whole browser's) a browser of its own.
 */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  const shared = runChromiumEndpoint();
  if (shared && extraArgs.every((arg) => RUN_CHROMIUM_EXTRA_ARGS.includes(arg))) return chromium.connect(shared);
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...extraArgs] });
}
