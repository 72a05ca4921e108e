/**
 * Jest test sequencer: the slowest files start first, so that neither worker is left running a two-minute file
 * (installing the package, a browser file) alone at the end of the run.
 *
 * Jest's own sequencer orders by the durations in its cache, and by file size when it has none. A fresh clone
 * (CI) has no cache, and size says little here: the package-install files are among the smallest and the slowest,
 * so they started last. This one takes each file's duration from, in order: jest's cache (the last run on this
 * machine), test/helpers/test-durations.json (seconds per file, committed; only the order matters, so times from a
 * loaded machine do), or, for a file in neither, its size times the median seconds per byte of the listed files.
 * Files that failed last time still come first, as with jest's sequencer.
 *
 * The list holds every file of a whole run (Node 22, three workers, 2026-11-29). To refresh it from a whole
 * run with `--json --outputFile=/tmp/jest.json`:
 *   node -e "const r=require('/tmp/jest.json');const d={};for(const t of r.testResults)d[require('path').relative(process.cwd(),t.name)]=Math.round((t.endTime-t.startTime)/1000);require('fs').writeFileSync('test/helpers/test-durations.json',JSON.stringify(Object.fromEntries(Object.entries(d).sort((a,b)=>b[1]-a[1])),null,1)+'\n')"
 */
const { existsSync, readFileSync, statSync } = require('node:fs');
const { join, relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/** Seconds per file (path from the project directory), as measured on a whole run. */
const LISTED = JSON.parse(readFileSync(join(__dirname, 'test-durations.json'), 'utf8'));

class SlowestFirstSequencer extends Sequencer {
  sort(tests) {
    const root = (test) => test.context.config.rootDir;
    const listed = (test) => LISTED[relative(root(test), test.path)];
    const size = (test) => test.context.hasteFS.getSize(test.path) ?? statSync(test.path).size;
    // The median over the whole list, not over the files of this run, so that a file's place does not depend on
    // which other files run with it.
    const rootDir = tests.length ? root(tests[0]) : process.cwd();
    const rates = Object.entries(LISTED)
      .filter(([path]) => existsSync(join(rootDir, path)))
      .map(([path, seconds]) => (seconds * 1000) / Math.max(statSync(join(rootDir, path)).size, 1))
      .sort((a, b) => a - b);
    const perByte = rates.length ? rates[Math.floor(rates.length / 2)] : 1;
    for (const t of tests) t.duration = this.time(t);
    const estimate = new Map(
      tests.map((t) => [t, t.duration ?? (listed(t) !== undefined ? listed(t) * 1000 : size(t) * perByte)]),
    );
    return [...tests].sort((a, b) => {
      const failedA = this.hasFailed(a);
      if (failedA !== this.hasFailed(b)) return failedA ? -1 : 1;
      return estimate.get(b) - estimate.get(a) || (a.path < b.path ? -1 : 1);
    });
  }
}

module.exports = SlowestFirstSequencer;
