import { BREAK, buildSchema, parse, specifiedRules, validate, type GraphQLError, type ValidationRule } from 'graphql';
import { limitRules } from '../../../lib/graphql/document-gate.js';
import { DEFAULTS } from '../../../config/defaults.js';
import { KnownOperationTypesRule } from '../../../lib/graphql/rules/index.js';
import { parallelRules } from '../../../lib/graphql/rules/parallel.js';
import { AUTHORIZATION_TYPE_DEFS } from '../../../lib/graphql/index.js';
import { opsTypeDefs } from '../ops-schema.js';

/**
 * `parallelRules(rules)` is a faster way to run `rules` in one traversal: `validate()` with it must report exactly
 * what `validate()` with the rules reports — every error, its message, locations and extensions, in order —
 * for valid documents, documents breaking each standard rule, documents breaking the limits, and documents with
 * more errors than `maxErrors`.
 */
const schema = buildSchema(`${AUTHORIZATION_TYPE_DEFS}\n${opsTypeDefs}`);
const standard: ValidationRule[] = [...specifiedRules, KnownOperationTypesRule];
const limits = limitRules(DEFAULTS.graphql.limits);

const documents: Record<string, string> = {
  valid:
    'query Q($id: Int!, $skip: Boolean = false) { product(id: $id) { id ...F ... on Product { name @skip(if: $skip) } } } fragment F on Product { name }',
  'several operations': 'query A { pageSize } query B { __typename } mutation M { __typename }',
  'type system definitions': '{ pageSize } type Extra { a: Int }',
  'unknown type': '{ product(id: 1) { ... on Prodct { id } } }',
  'unknown field': '{ product(id: 1) { nope } }',
  'fragment cycle':
    '{ product(id: 1) { ...A } } fragment A on Product { related { ...B } } fragment B on Product { related { ...A } }',
  variables: 'query($a: Int, $a: Int!, $p: Product) { product(id: $a) { id } x: product(id: $undefined) { id } }',
  directives: '{ pageSize @aa @skip(if: false) @skip(if: false) }',
  arguments: '{ product(id: "one", nope: 2) { id } other: product { id } }',
  'overlapping fields': '{ product(id: 1) { x: id x: name } }',
  'subscription fields': 'subscription S { productAdded { id } reviewAdded { id } }',
  'introspection depth': '{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }',
  'more than 100 errors': `{ ${Array.from({ length: 150 }, (_, i) => `f${i}`).join(' ')} }`,
  'many aliases': `{ ${Array.from({ length: 60 }, (_, i) => `a${i}: pageSize`).join(' ')} }`,
  deep: `{ product(id: 1) ${'{ related '.repeat(20)}{ id }${' }'.repeat(20)} }`,
  'fragment bomb': fragmentBomb(),
};

/** 24 fragments, each spreading the previous one twice (as in rules.test.ts). */
function fragmentBomb(n = 24): string {
  const parts = ['fragment F0 on Query { pageSize }'];
  for (let i = 1; i <= n; i++) parts.push(`fragment F${i} on Query { ...F${i - 1} ...F${i - 1} }`);
  return `query { ...F${n} }\n${parts.join('\n')}`;
}

const shape = (errors: readonly GraphQLError[]) =>
  errors.map((e) => ({ message: e.message, locations: e.locations, extensions: e.extensions }));

describe('parallelRules reports what the rules report', () => {
  test.each(Object.entries(documents))('%s', (_name, query) => {
    const document = parse(query);
    for (const [rules, options] of [
      [standard, { maxErrors: 100 }],
      [standard, { maxErrors: 3 }],
      [limits, undefined],
    ] as const) {
      const expected = shape(validate(schema, document, rules, options));
      expect(shape(validate(schema, document, [parallelRules(rules)], options))).toEqual(expected);
    }
  });

  test('the corpus breaks rules and limits (the comparison is not between empty lists)', () => {
    expect(validate(schema, parse(documents['fragment cycle']!), standard).length).toBeGreaterThan(0);
    expect(
      validate(schema, parse(documents['more than 100 errors']!), standard, { maxErrors: 100 }).at(-1)?.message,
    ).toMatch(/Too many validation errors/);
    expect(validate(schema, parse(documents['many aliases']!), limits).length).toBeGreaterThan(0);
    expect(validate(schema, parse(documents.deep!), limits).length).toBeGreaterThan(0);
  });

  test('skip (false), BREAK and the order of visits are those of graphql-js visitInParallel', () => {
    // Three rules that log every visit: one skips each field's subtree, one stops at the second field, one sees all.
    const run = (wrap: (rules: ValidationRule[]) => ValidationRule[]) => {
      const log: string[] = [];
      let fields = 0;
      const rules: ValidationRule[] = [
        () => ({
          Field: {
            enter: (n) => {
              log.push(`skip>${n.name.value}`);
              return false;
            },
            leave: (n) => {
              log.push(`skip<${n.name.value}`);
            },
          },
        }),
        () => ({
          Field(n) {
            log.push(`break>${n.name.value}`);
            return ++fields === 2 ? BREAK : undefined;
          },
        }),
        () => ({
          enter(n) {
            log.push(`all>${n.kind}`);
          },
          leave(n) {
            log.push(`all<${n.kind}`);
          },
        }),
      ];
      validate(schema, parse(documents.valid!), wrap(rules));
      return log;
    };
    const expected = run((rules) => rules);
    // graphql-js: a visitor that skipped a node is not called inside it nor on leaving it; after BREAK, never.
    expect(expected).toContain('skip>product');
    expect(expected.filter((e) => e.startsWith('skip'))).toEqual(['skip>product', 'skip>name']);
    expect(expected.filter((e) => e.startsWith('break'))).toHaveLength(2);
    expect(run((rules) => [parallelRules(rules)])).toEqual(expected);
  });
});
