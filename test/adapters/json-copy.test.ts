import { jsonCopy } from '../../lib/core/json-copy.js';

class Point {
  constructor(
    public x: number,
    public y?: number,
  ) {}
}

/** Values whose copy must equal their JSON round trip, one row per rule of JSON.stringify the copy follows. */
const ROWS: Array<[string, unknown]> = [
  [
    'an oidc-provider grant payload',
    {
      iat: 1,
      exp: 2,
      accountId: 'alice',
      openid: { scope: 'openid email', claims: ['sub'] },
      resources: { 'https://api.example': 'read' },
      rejected: {},
    },
  ],
  ['undefined members are left out', { a: undefined, b: 1, c: { d: undefined } }],
  ['functions and symbols as members are left out', { f: () => 1, s: Symbol('x'), k: 'kept' }],
  ['undefined, functions and symbols in arrays become null', [undefined, () => 1, Symbol('x'), 2]],
  ['non-finite numbers become null', { n: NaN, p: Infinity, m: -Infinity, z: -0, a: [NaN] }],
  ['a Date becomes its ISO string (toJSON)', { at: new Date(0), list: [new Date(1000)] }],
  [
    'toJSON gets the member name and is called once',
    { k: { toJSON: (key: string) => ({ key, toJSON: () => 'not called' }) } },
  ],
  ['a Map becomes an empty object', { m: new Map([['a', 1]]) }],
  ['a class instance keeps its own enumerable members, not its prototype', { p: new Point(1) }],
  ['boxed primitives are unboxed', { n: Object(1), s: Object('x'), b: Object(false) }],
  ['a null-prototype object', Object.assign(Object.create(null) as object, { a: 1 })],
  ['nested arrays and empty containers', { a: [[], [{}], [[1, [2]]]], e: '' }],
  ['strings with control, quote and lone-surrogate characters', { s: 'a"b\\c\n\u0000\ud800' }],
];

describe("jsonCopy (the memory storage's copies) equals JSON.parse(JSON.stringify(value))", () => {
  test.each(ROWS)('%s', (_name, value) => {
    const copied = jsonCopy(value);
    expect(copied).toStrictEqual(JSON.parse(JSON.stringify(value)));
    expect(JSON.stringify(copied)).toBe(JSON.stringify(value));
  });

  test('a __proto__ member stays an own member and never becomes the prototype (as JSON.parse makes it)', () => {
    const value = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    const copied = jsonCopy(value) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
    expect(copied.polluted).toBeUndefined();
    expect(Object.keys(copied)).toEqual(['__proto__', 'a']);
    expect(JSON.stringify(copied)).toBe(JSON.stringify(value));
  });

  test('the copy shares no object with the original', () => {
    const value = { a: { b: [{ c: 1 }] } };
    const copied = jsonCopy(value);
    copied.a.b[0]!.c = 2;
    copied.a.b.push({ c: 3 });
    expect(value).toEqual({ a: { b: [{ c: 1 }] } });
  });

  test('a circular structure and a bigint throw TypeError, as JSON.stringify does', () => {
    const circular: Record<string, unknown> = { a: 1 };
    circular.self = { back: circular };
    expect(() => JSON.stringify(circular)).toThrow(TypeError);
    expect(() => jsonCopy(circular)).toThrow(TypeError);
    expect(() => jsonCopy({ n: 1n })).toThrow(TypeError);
    // The same object twice, side by side, is no cycle.
    const shared = { x: 1 };
    expect(jsonCopy({ a: shared, b: [shared, shared] })).toEqual({ a: { x: 1 }, b: [{ x: 1 }, { x: 1 }] });
  });
});
