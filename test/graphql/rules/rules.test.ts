import { buildSchema, parse, validate, type ValidationRule } from 'graphql';
import {
  createMaxAliasesRule,
  createMaxCostRule,
  createMaxDepthRule,
  createMaxDirectivesRule,
  createMaxRecursiveSelectionsRule,
  createMaxRootFieldsRule,
  createMaxUniqueFieldsRule,
  coerceVariables,
  operationCost,
} from '../../../lib/graphql/rules/index.js';

const schema = buildSchema(`
  type Product { id: Int! name: String! related(first: Int): [Product!]! }
  type Query { product(id: Int!): Product products(first: Int): [Product!]! a: Int b: Int c: Int q: Query }
`);

function errorsOf(rule: ValidationRule, query: string) {
  return validate(schema, parse(query), [rule]).map((e) => ({ code: e.extensions.code, limit: e.extensions.limit }));
}

/** 24 fragments, each spreading the previous one twice: ~1 kB, 2^24 selections once expanded. */
export function fragmentBomb(n = 24): string {
  const parts = ['fragment F0 on Query { a }'];
  for (let i = 1; i <= n; i++) parts.push(`fragment F${i} on Query { ...F${i - 1} ...F${i - 1} }`);
  return `query { ...F${n} }\n${parts.join('\n')}`;
}

describe('limit rules (graphql-js validate())', () => {
  test.each([
    ['depth at the limit', createMaxDepthRule(3), '{ product(id:1) { related { id } } }', []],
    [
      'depth over the limit',
      createMaxDepthRule(2),
      '{ product(id:1) { related { id } } }',
      [{ code: 'MAX_DEPTH_EXCEEDED', limit: 2 }],
    ],
    [
      'depth through fragments',
      createMaxDepthRule(2),
      '{ product(id:1) { ...R } } fragment R on Product { related { id } }',
      [{ code: 'MAX_DEPTH_EXCEEDED', limit: 2 }],
    ],
    [
      'depth through inline fragments',
      createMaxDepthRule(2),
      '{ product(id:1) { ... on Product { related { id } } } }',
      [{ code: 'MAX_DEPTH_EXCEEDED', limit: 2 }],
    ],
    ['depth: fragment bomb is shallow and answered at once', createMaxDepthRule(6), fragmentBomb(), []],
    ['aliases at the limit', createMaxAliasesRule(2), '{ x: a y: b }', []],
    [
      'aliases over the limit: one error however many',
      createMaxAliasesRule(2),
      '{ x: a y: b z: c w: a v: b }',
      [{ code: 'MAX_ALIASES_EXCEEDED', limit: 2 }],
    ],
    [
      '__typename aliases count',
      createMaxAliasesRule(1),
      '{ t1: __typename t2: __typename }',
      [{ code: 'MAX_ALIASES_EXCEEDED', limit: 1 }],
    ],
    [
      'aliases inside fragments count',
      createMaxAliasesRule(1),
      '{ x: a ...F } fragment F on Query { y: b }',
      [{ code: 'MAX_ALIASES_EXCEEDED', limit: 1 }],
    ],
    ['root fields at the limit', createMaxRootFieldsRule(3), '{ a b c }', []],
    [
      'root fields over the limit',
      createMaxRootFieldsRule(2),
      '{ a b c }',
      [{ code: 'MAX_ROOT_FIELDS_EXCEEDED', limit: 2 }],
    ],
    [
      'root fields through fragments',
      createMaxRootFieldsRule(2),
      '{ a ...F } fragment F on Query { b c }',
      [{ code: 'MAX_ROOT_FIELDS_EXCEEDED', limit: 2 }],
    ],
    [
      'root fields: fragment bomb counted without expanding',
      createMaxRootFieldsRule(10),
      fragmentBomb(),
      [{ code: 'MAX_ROOT_FIELDS_EXCEEDED', limit: 10 }],
    ],
    ['unique fields: duplicates count once', createMaxUniqueFieldsRule(2), '{ a a a a b }', []],
    [
      'unique fields over the limit',
      createMaxUniqueFieldsRule(2),
      '{ a b c }',
      [{ code: 'MAX_UNIQUE_FIELDS_EXCEEDED', limit: 2 }],
    ],
    ['directives at the limit', createMaxDirectivesRule(2), '{ a @include(if: true) b @skip(if: false) }', []],
    [
      'directives over the limit: one error',
      createMaxDirectivesRule(2),
      `{ __typename ${'@include(if: true) '.repeat(40)} }`,
      [{ code: 'MAX_DIRECTIVES_EXCEEDED', limit: 2 }],
    ],
    ['recursive selections: small query passes', createMaxRecursiveSelectionsRule(10), '{ a b c }', []],
    [
      'recursive selections: fragment bomb refused',
      createMaxRecursiveSelectionsRule(1000),
      fragmentBomb(),
      [{ code: 'MAX_RECURSIVE_SELECTIONS_EXCEEDED', limit: 1000 }],
    ],
    ['cost at the limit: (1 + 1) × 10', createMaxCostRule(20), '{ products { id } }', []],
    [
      'cost over the limit (default list size 10)',
      createMaxCostRule(100),
      '{ products { id related { id } } }',
      [{ code: 'MAX_COST_EXCEEDED', limit: 100 }],
    ],
    ['cost honours first:', createMaxCostRule(100), '{ products(first: 2) { id related(first: 2) { id } } }', []],
    [
      'cost: fragment bomb computed without expanding',
      createMaxCostRule(5000),
      fragmentBomb(),
      [{ code: 'MAX_COST_EXCEEDED', limit: 5000 }],
    ],
  ])('%s', (_name, rule, query, expected) => {
    expect(errorsOf(rule, query)).toEqual(expected);
  });

  test('fragment cycles do not hang the rules (graphql-js reports the cycle)', () => {
    const doc = parse('{ ...A } fragment A on Query { a ...B } fragment B on Query { b ...A }');
    const rules = [
      createMaxDepthRule(6),
      createMaxRootFieldsRule(10),
      createMaxRecursiveSelectionsRule(100),
      createMaxCostRule(100),
    ];
    expect(validate(schema, doc, rules)).toEqual([]);
  });

  test('cost uses variables for list sizes', () => {
    const doc = parse('query Q($n: Int) { products(first: $n) { id } }');
    const op = doc.definitions[0] as never;
    expect(operationCost(schema, doc, op, { n: 3 })).toBe(6); // (1 + 1) * 3
    expect(operationCost(schema, doc, op, {})).toBe(20); // default list size 10
    expect(operationCost(schema, doc, op, { n: 3 }, { fieldCosts: { 'Query.products': 5 } })).toBe(18);
  });

  test('list sizes are read as the executor sees them (graphql-js getVariableValues + getArgumentValues)', () => {
    const sized = buildSchema(`
      type P { id: Int! }
      type Query { byIds(ids: [Int!]): [P!]! capped(first: Int = 400): [P!]! paged(first: Int): [P!]! }
    `);
    const cost = (query: string, inputs: Record<string, unknown> = {}) => {
      const doc = parse(query);
      const op = doc.definitions.find((d) => d.kind === 'OperationDefinition') as never;
      const variables = coerceVariables(sized, op, inputs);
      if (variables.errors) throw variables.errors[0];
      return operationCost(sized, doc, op, variables.coerced, { listSizeArguments: ['first', 'ids'] });
    };
    expect(cost('query($n: Int = 300) { paged(first: $n) { id } }')).toBe(600); // the variable's default
    expect(cost('query($n: Int = 300) { paged(first: $n) { id } }', { n: 2 })).toBe(4); // the value sent wins
    expect(cost('{ capped { id } }')).toBe(800); // the schema's argument default
    expect(cost('{ paged(first: null) { id } }')).toBe(20); // null bounds nothing: default list size
    expect(cost('{ paged(first: -1) { id } }')).toBe(20); // a negative size bounds nothing either
    expect(
      cost('query($ids: [Int!]) { byIds(ids: $ids) { id } }', { ids: Array.from({ length: 50 }, (_, i) => i) }),
    ).toBe(100);
    expect(cost('query($ids: [Int!]) { byIds(ids: $ids) { id } }', { ids: 7 })).toBe(2); // 7 coerces to [7]
    expect(
      cost('query($n: Int = 300) { ...F } fragment F on Query { paged(first: 1) { ...G } } fragment G on P { id }'),
    ).toBe(2);
    expect(() => cost('query($n: Int) { paged(first: $n) { id } }', { n: '300' })).toThrow(/Int cannot represent/);
  });
});
