/**
 * One test of a conformance suite: a name and a body that takes no argument (so jest and vitest do not take it for
 * a `done` callback) and rejects when the implementation under test breaks the contract.
 */
export interface ConformanceCase {
  readonly name: string;
  run(): Promise<void>;
}

/** A case body run on a fresh fixture of type `F`. */
export interface FixtureCase<F> {
  readonly name: string;
  run(fixture: F): Promise<void>;
}

/**
 * `cases` as {@link ConformanceCase}s: each run opens its own fixture with `open`, runs the body on it and closes it
 * with `close` whether the body passed or not (a failing close fails the case only when the body passed).
 */
export function onFreshFixture<F>(
  cases: readonly FixtureCase<F>[],
  open: () => Promise<F>,
  close: (fixture: F) => Promise<void>,
): ConformanceCase[] {
  return cases.map((c) => ({
    name: c.name,
    async run() {
      const fixture = await open();
      try {
        await c.run(fixture);
      } catch (err) {
        await close(fixture).catch(() => undefined);
        throw err;
      }
      await close(fixture);
    },
  }));
}

/**
 * `cases` with `prefix` (and `': '`) before each name, for a group of cases (a table of rows, say).
 */
export function grouped<F>(prefix: string, cases: readonly FixtureCase<F>[]): FixtureCase<F>[] {
  return cases.map((c) => ({ name: `${prefix}: ${c.name}`, run: c.run }));
}
