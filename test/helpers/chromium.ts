import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { suiteIf } from './skip.js';

/**
 * Debian's Chromium for the in-browser tests (`.ci/run` installs it). Without it the browser suites are skipped
 * locally with a loud warning and fail under CI=true.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM);
if (!chromiumAvailable && process.env.CI) throw new Error(`CI=true but no Chromium at ${CHROMIUM}: the browser tests cannot run`);
if (!chromiumAvailable) console.warn(`Chromium not found at ${CHROMIUM}: the browser tests are SKIPPED (apt-get install chromium)`);

/** `describe` when Chromium is there, otherwise a skipped suite whose title says why. */
export const browserSuite = suiteIf(chromiumAvailable, `no Chromium at ${CHROMIUM} (apt-get install chromium)`);

/** Headless Chromium with the flags this machine's closed network needs, and `extraArgs`. */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...extraArgs],
  });
}
