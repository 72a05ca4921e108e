import type { ErrorObject } from 'ajv';
import type { ConfigProblem } from '../core/errors.js';

/** `/clients/0/redirect_uris` → `clients[0].redirect_uris`. */
function dottedPath(instancePath: string, extra?: string): string {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  let out = '';
  for (const part of parts) out += /^\d+$/.test(part) ? `[${part}]` : out ? `.${part}` : part;
  return out || '(root)';
}

/** One ajv error as the option path and what was expected. */
function describe(error: ErrorObject): ConfigProblem {
  if (error.keyword === 'additionalProperties') {
    return {
      path: dottedPath(error.instancePath, String((error.params as { additionalProperty: string }).additionalProperty)),
      message: 'unknown option',
    };
  }
  if (error.keyword === 'required') {
    return {
      path: dottedPath(error.instancePath, String((error.params as { missingProperty: string }).missingProperty)),
      message: 'is required',
    };
  }
  // An option's own words for this keyword (`errorMessages` in config/options.ts), else ajv's.
  const own = (error.parentSchema as { errorMessages?: Record<string, string> } | undefined)?.errorMessages?.[
    error.keyword
  ];
  let expected = own ?? error.message ?? 'is invalid';
  if (error.keyword === 'enum') {
    expected =
      `must be one ` +
      `of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  // A map's key (`scopes`, `graphql.limits.fieldCosts`) that breaks `propertyNames`: name it (names are not secrets).
  if (error.propertyName !== undefined) expected = `the name ${JSON.stringify(error.propertyName)} ${expected}`;
  return { path: dottedPath(error.instancePath), message: expected };
}

const ARTICLE: Readonly<Record<string, string>> = {
  string: 'a string',
  object: 'an object',
  array: 'an array',
  boolean: 'a boolean',
  number: 'a number',
  integer: 'an integer',
};

/** What one `anyOf`/`oneOf` branch accepts, in words: `a string`, `false`, `an object`. */
function branchWords(branch: Record<string, unknown>): string {
  if ('const' in branch) return JSON.stringify(branch.const);
  const type = typeof branch.type === 'string' ? ARTICLE[branch.type] : undefined;
  return type ?? 'a value of another shape';
}

/**
 * Replaces each failed `anyOf`/`oneOf` and the errors of its branches by what matters: when the value has the type
 * of a branch (a string for `string | object`), that branch's errors (`must NOT have fewer than 1 characters`);
 * otherwise one error saying which types are accepted. `allErrors` reports every branch, which would read as
 * contradictions (`must be string`, `must have required property 'keys'`, `must match a schema in anyOf`).
 */
function resolveAlternatives(errors: readonly ErrorObject[]): Array<ErrorObject | ConfigProblem> {
  let out: Array<ErrorObject | ConfigProblem> = [...errors];
  for (const alt of errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')) {
    if (!out.includes(alt)) continue; // inside a branch already dropped
    const prefix = `${alt.schemaPath}/`;
    const branchOf = (e: ErrorObject) => e.schemaPath.slice(prefix.length).split('/')[0]!;
    const inBranches = out.filter((e): e is ErrorObject => 'schemaPath' in e && e.schemaPath.startsWith(prefix));
    const mismatched = new Set(
      inBranches
        .filter((e) => e.instancePath === alt.instancePath && ['type', 'const'].includes(e.keyword))
        .map(branchOf),
    );
    const fitting = inBranches.map(branchOf).find((b) => !mismatched.has(b));
    const replacement: Array<ErrorObject | ConfigProblem> =
      fitting === undefined
        ? [
            {
              path: dottedPath(alt.instancePath),
              message: `must be ${wordsOr((alt.schema as Array<Record<string, unknown>>).map(branchWords))}`,
            },
          ]
        : inBranches.filter((e) => branchOf(e) === fitting);
    // The replacement takes the place of the first error it replaces (ajv lists branch errors before the anyOf).
    const replaced = new Set<ErrorObject | ConfigProblem>([alt, ...inBranches]);
    const at = out.findIndex((e) => replaced.has(e));
    out = [
      ...out.slice(0, at).filter((e) => !replaced.has(e)),
      ...replacement,
      ...out.slice(at).filter((e) => !replaced.has(e)),
    ];
  }
  // A map key breaking `propertyNames` gives its own error (which names it) and a vaguer one: keep the first.
  const named = new Set(
    out.filter((e): e is ErrorObject => 'schemaPath' in e && e.propertyName !== undefined).map((e) => e.instancePath),
  );
  return out.filter((e) => !('schemaPath' in e && e.keyword === 'propertyNames' && named.has(e.instancePath)));
}

/** `a, b or c`. */
function wordsOr(words: readonly string[]): string {
  const unique = [...new Set(words)];
  return unique.length > 1 ? `${unique.slice(0, -1).join(', ')} or ${unique.at(-1)}` : (unique[0] ?? 'valid');
}

/**
 * Every problem ajv found (`allErrors`, `verbose`), in the order of the input, as option paths and messages: the
 * alternatives of an `anyOf` reduced to the one that applies, a conditional (`if`/`then`) by its branch's errors,
 * several messages for one path joined with `; `, no duplicate. Never empty.
 */
export function schemaProblems(errors: readonly ErrorObject[]): ConfigProblem[] {
  const byPath = new Map<string, string[]>();
  // A failed `if`/`then` says only `must match "then" schema`: the errors of its `then` say what is missing.
  for (const item of resolveAlternatives(errors.filter((e) => e.keyword !== 'if'))) {
    const { path, message } = 'schemaPath' in item ? describe(item) : item;
    const messages = byPath.get(path) ?? [];
    if (!messages.includes(message)) messages.push(message);
    byPath.set(path, messages);
  }
  const problems = [...byPath].map(([path, messages]) => ({ path, message: messages.join('; ') }));
  return problems.length ? problems : [{ path: '(root)', message: 'is invalid' }];
}
