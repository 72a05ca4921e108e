/**
 * Suites that need something the machine may lack (Chromium, a `redis-server` binary). When it is missing the suite
 * is skipped with the reason in its title, and the skipped-suites reporter (test/helpers/skipped-reporter.cjs)
 * names it at the end of the run, so nothing is skipped silently. Under CI=true the helpers for Redis and Chromium
 * fail instead of skipping.
 */
export function suiteIf(condition: boolean, reason: string): jest.Describe {
  if (condition) return describe;
  const tag = (name: unknown) => `${String(name)} [SKIPPED: ${reason}]`;
  const skipped = ((name: string, fn: () => void) => describe.skip(tag(name), fn)) as unknown as jest.Describe;
  const each =
    (...table: unknown[]) =>
    (name: string, fn: (...args: unknown[]) => void, timeout?: number) =>
      (describe.skip.each as unknown as (...t: unknown[]) => (n: string, f: unknown, to?: number) => void)(...table)(
        tag(name),
        fn,
        timeout,
      );
  return Object.assign(skipped, { each, only: describe.only, skip: describe.skip }) as unknown as jest.Describe;
}
