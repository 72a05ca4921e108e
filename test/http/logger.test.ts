import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The default logger (lib/core/logger.ts) batches lines before writing them to stdout. Whatever way the process
 * ends, every line must arrive, whole, in order, as one JSON object per line, with secrets redacted. Each row runs
 * the built library (`npm run build`) in a child node process whose stdout is a pipe.
 */
const LOGGER = fileURLToPath(new URL('../../dist/lib/core/logger.js', import.meta.url));
const LINES = 5000; // about 600 KB: dozens of batches, several still in flight when the process ends

function run(ending: string): Promise<{ code: number | null; out: string }> {
  const script = `
    import { createLogger } from ${JSON.stringify(LOGGER)};
    const a = createLogger({ LOG_LEVEL: 'info' });
    const b = createLogger({ LOG_LEVEL: 'info' }).child({ part: 'b' });
    for (let i = 0; i < ${LINES}; i++) (i % 2 ? b : a).info({ n: i, password: 'hunter2', body: { client_secret: 's3cret' } }, 'line ' + 'x'.repeat(40));
    ${ending}`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH! },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let signalled = false;
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      // The SIGTERM row's child says when its handler is installed; the signal follows 500 ms later, as it followed
      // the spawn before. Sent at a fixed delay after the spawn, it could arrive before the handler on a loaded
      // machine and end the child by the default action (exit code null; seen with four jest workers on two cores).
      // Sent at once, while batches are still being written, lines came out of order: a known defect (a write in
      // flight at exit; see docs/limitations.md), which the delay leaves aside as before.
      if (ending.includes('SIGTERM') && err.includes('handler installed') && !signalled) {
        signalled = true;
        setTimeout(() => child.kill('SIGTERM'), 500);
      }
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`child did not exit: ${err}`));
    }, 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      // the pipe may still hold output after 'exit': wait for stdout to end
      if (child.stdout!.readableEnded) resolve({ code, out });
      else child.stdout!.once('end', () => resolve({ code, out }));
    });
  });
}

describe('default logger: batched, non-blocking, nothing lost', () => {
  test.each([
    ['the event loop empties', ''],
    ['process.exit() right after logging', 'process.exit(0);'],
    [
      'a SIGTERM handler that exits',
      "process.on('SIGTERM', () => process.exit(0)); setInterval(() => {}, 1000); " +
        "process.stderr.write('handler installed\\n');",
    ],
    ['a timer keeps the process alive past the flush interval, then exits', 'setTimeout(() => process.exit(0), 1500);'],
  ])('every line arrives, in order, redacted, when %s', async (_name, ending) => {
    const { code, out } = await run(ending);
    expect(code).toBe(0);
    const lines = out.split('\n');
    expect(lines.pop()).toBe(''); // ends with a newline: no partial line
    expect(lines).toHaveLength(LINES);
    // One comparison of the fields each line must have, not five expect calls per line (25,000 per row).
    const fields = lines.map((text) => {
      const line = JSON.parse(text) as {
        n: number;
        password: string;
        body: { client_secret: string };
        part?: string;
        name: string;
        msg: string;
      };
      return [line.n, line.name, line.part, line.password, line.body.client_secret];
    });
    expect(fields).toEqual(
      fields.map((_, i) => [i, 'portcullis', i % 2 ? 'b' : undefined, '[redacted]', '[redacted]']),
    );
    expect(out).not.toContain('hunter2');
    expect(out).not.toContain('s3cret');
  });

  test('a warning is written at once, with the info lines logged before it, in order', async () => {
    // The flush timer runs once a second from the logger's creation: lines logged right after it that arrive well
    // before that second were written at once.
    const script = `
      import { createLogger } from ${JSON.stringify(LOGGER)};
      const log = createLogger({ LOG_LEVEL: 'info' });
      log.info('first, info');
      log.warn('second, a warning');
      process.stderr.write('logged\\n');
      setTimeout(() => {}, 5000);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH! },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const loggedAt = await new Promise<number>((resolve) => child.stderr!.once('data', () => resolve(Date.now())));
      let out = '';
      const arrivedAt = await new Promise<number>((resolve) =>
        child.stdout!.on('data', (c: Buffer) => {
          out += c.toString();
          if (out.split('\n').length > 2) resolve(Date.now());
        }),
      );
      expect(
        out
          .split('\n')
          .slice(0, 2)
          .map((l) => (JSON.parse(l) as { msg: string; level: number }).msg),
      ).toEqual(['first, info', 'second, a warning']);
      expect(arrivedAt - loggedAt).toBeLessThan(500);
    } finally {
      child.kill('SIGKILL');
    }
  });

  test('a quiet process still writes its lines within about a second (the flush timer)', async () => {
    const script = `
      import { createLogger } from ${JSON.stringify(LOGGER)};
      createLogger({ LOG_LEVEL: 'info' }).info('one quiet line');
      setTimeout(() => {}, 5000);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH! },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const started = Date.now();
    try {
      const first = await new Promise<string>((resolve) =>
        child.stdout!.once('data', (c: Buffer) => resolve(c.toString())),
      );
      expect(JSON.parse(first)).toMatchObject({ msg: 'one quiet line', level: 30 });
      expect(Date.now() - started).toBeLessThan(4000); // the line did not wait for the process to end (5 s)
    } finally {
      child.kill('SIGKILL');
    }
  });
});
