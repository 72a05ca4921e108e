#!/usr/bin/env node
// The `portcullis` command (package.json "bin"). It is a committed file, not dist/lib/cli/main.js itself, so that
// npm links the command whether or not dist/ is built yet: `npx portcullis` in a clone before any build installs the
// project into npx's cache once, and a link that was missing then stayed missing after the build (issue 28).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../dist/lib/cli/main.js', import.meta.url);
if (!existsSync(cli)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  process.stderr.write(`portcullis: the command is not built yet: run \`npm run build\` in ${root} first\n`);
  process.exit(1);
}
await import(cli.href);
