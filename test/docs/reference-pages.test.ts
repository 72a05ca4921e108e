import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GraphqlErrorCode } from '../../lib/graphql/errors.js';
import { PROVIDER_ROUTES } from '../../lib/http/paths.js';
import { errorsPage, referencePages, routesPage } from '../../scripts/reference-pages.js';
import { ROOT } from '../helpers/readme-command.js';

/** The committed pages of docs/reference/ are exactly what `npm run docs:options` generates from the code. */
test.each(referencePages().map((page) => [page.path, page] as const))(
  '%s is up to date (npm run docs:options)',
  (_path, page) => {
    expect(readFileSync(join(ROOT, page.path), 'utf8')).toBe(page.markdown);
  },
);

test('the reference has the options, the error codes and the routes', () => {
  expect(referencePages().map((page) => page.path)).toEqual([
    'docs/reference/options.md',
    'docs/reference/errors.md',
    'docs/reference/routes.md',
  ]);
});

test('the error code page names every code of each declaration (the generator throws on one its doc comment misses)', () => {
  const page = errorsPage().markdown;
  for (const code of [
    ...Object.values(GraphqlErrorCode),
    'ERR_CONFIG_INSECURE',
    'ERR_INTERNAL',
    'invalid_dpop_proof',
    'consent_required',
  ]) {
    expect(page).toContain(`\`${code}\``);
  }
});

test('the routes page lists the endpoints with their methods', () => {
  const page = routesPage().markdown;
  expect(page).toContain(`| \`${PROVIDER_ROUTES.token}\` | \`POST\`, \`OPTIONS\` | \`token\` |`);
  expect(page).toContain('| `/account/signup` | `signup` |');
});
