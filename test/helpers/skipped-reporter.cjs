/**
 * Jest reporter: after the run, names every skipped suite and test with its file, and the reason when the title
 * carries one (see test/helpers/skip.ts). Prints "Skipped: none" when nothing was skipped.
 */
class SkippedReporter {
  onRunComplete(_contexts, results) {
    const lines = [];
    for (const file of results.testResults) {
      const titles = new Map();
      for (const t of file.testResults) {
        if (t.status !== 'pending' && t.status !== 'skipped' && t.status !== 'todo') continue;
        const suite = t.ancestorTitles[0] ?? t.title;
        titles.set(suite, (titles.get(suite) ?? 0) + 1);
      }
      const path = file.testFilePath.replace(`${process.cwd()}/`, '');
      for (const [suite, n] of titles) lines.push(`  ${path}: "${suite}" (${n} test${n === 1 ? '' : 's'})`);
    }
    process.stderr.write(
      lines.length
        ? `\nSkipped (${lines.length} suite${lines.length === 1 ? '' : 's'}):\n${lines.join('\n')}\n`
        : '\nSkipped: none\n',
    );
  }
}
module.exports = SkippedReporter;
