import { rmSync } from 'node:fs';

/** Jest globalTeardown: closes the run's Chromium and removes its key file (see test/helpers/global-setup.ts). */
export default async function globalTeardown(): Promise<void> {
  const shared = globalThis as { portcullisChromium?: { close(): Promise<void> }; portcullisRunDir?: string };
  await shared.portcullisChromium?.close();
  if (shared.portcullisRunDir) rmSync(shared.portcullisRunDir, { recursive: true, force: true });
}
