import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * `graphql.limits.fieldCosts` holds however a field is selected: a cost given on an implementation's field prices
 * the field when it is selected on an interface (the interface field runs the implementation's resolver), and a cost
 * given on an interface field prices every implementation's field. Found by an outside-style review: with
 * `{ "Pdf.render": 100 }`, `{ reports(first: 100) { render } }` was measured as `Report.render` (cost 1 each, 200 in
 * all) and ran 100 renders; with `{ "Report.render": 100 }`, `{ pdfs(first: 100) { render } }` did the same.
 * Likewise a list size selected through an interface is the one the implementation's resolver gets (its own
 * argument defaults, an optional size argument only it has), not the interface's default.
 */

const typeDefs = /* GraphQL */ `
  type Version { id: ID! }
  interface Report { id: ID! render: String! versions(first: Int = 1): [Version!]! }
  interface Paged implements Report { id: ID! render: String! pages: Int! versions(first: Int = 1): [Version!]! }
  "An implementation may give an argument another default, or add an optional one: the executor passes those."
  type Pdf implements Report & Paged { id: ID! render: String! pages: Int! versions(first: Int, limit: Int = 1000): [Version!]! }
  type Csv implements Report { id: ID! render: String! versions(first: Int = 1000): [Version!]! }
  union Item = Pdf | Csv
  type Query {
    reports(first: Int): [Report!]!
    paged(first: Int): [Paged!]!
    items(first: Int): [Item!]!
    pdfs(first: Int): [Pdf!]!
  }
`;

let renders = 0;
const list =
  <T>(make: (i: number) => T) =>
  (_: unknown, { first }: { first?: number | null }) =>
    Array.from({ length: Math.min(100, first ?? 10) }, (_v, i) => make(i));
const pdf = (i: number) => ({ kind: 'Pdf', id: `p${i}`, pages: 1 });
const any = (i: number) => (i % 2 ? { kind: 'Csv', id: `c${i}` } : pdf(i));
const render = () => {
  renders++;
  return 'rendered';
};
let versions = 0;
const versionList = (_: unknown, args: { first?: number | null; limit?: number }) => {
  const n = args.first ?? args.limit ?? 10;
  versions += n;
  return Array.from({ length: n }, (_v, i) => ({ id: `v${i}` }));
};
const resolvers = {
  Query: { reports: list(any), paged: list(pdf), items: list(any), pdfs: list(pdf) },
  Pdf: { render, versions: versionList },
  Csv: { render, versions: versionList },
  Report: { __resolveType: (o: { kind: string }) => o.kind },
  Paged: { __resolveType: (o: { kind: string }) => o.kind },
  Item: { __resolveType: (o: { kind: string }) => o.kind },
};

let onObject: RunningServer; // the cost is given on the implementations' field
let onInterface: RunningServer; // the cost is given on the interface field

beforeAll(async () => {
  const serve = (fieldCosts: Record<string, number>) =>
    startServer({ graphql: { path: '/graphql', typeDefs, resolvers, limits: { fieldCosts } } });
  [onObject, onInterface] = await Promise.all([
    serve({ 'Pdf.render': 100, 'Csv.render': 100 }),
    serve({ 'Report.render': 100 }),
  ]);
});
afterAll(async () => {
  await Promise.all([onObject.close(), onInterface.close()]);
});

async function post(srv: RunningServer, query: string) {
  const res = await fetch(srv.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  return {
    status: res.status,
    body: (await res.json()) as {
      data?: unknown;
      errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
    },
  };
}

// 100 renders priced 100 each: (1 + 100) × 100 = 10,100 > 5000, whichever coordinate the query goes through.
const rows: Array<[string, () => RunningServer, string]> = [
  [
    'object price, field selected on the interface type a list returns',
    () => onObject,
    '{ reports(first: 100) { render } }',
  ],
  [
    'object price, inline fragment on the interface inside a union',
    () => onObject,
    '{ items(first: 100) { ... on Report { render } } }',
  ],
  [
    'object price, named fragment on the interface',
    () => onObject,
    '{ reports(first: 100) { ...R } } fragment R on Report { render }',
  ],
  ['object price, an interface implementing the interface', () => onObject, '{ paged(first: 100) { render } }'],
  [
    'object price, the object itself (as before)',
    () => onObject,
    '{ items(first: 100) { ... on Pdf { render } ... on Csv { render } } }',
  ],
  [
    'interface price, field selected on the object type a list returns',
    () => onInterface,
    '{ pdfs(first: 100) { render } }',
  ],
  [
    'interface price, inline fragment on an implementation',
    () => onInterface,
    '{ reports(first: 100) { ... on Pdf { render } } }',
  ],
  ['interface price, union member', () => onInterface, '{ items(first: 100) { ... on Csv { render } } }'],
  [
    'interface price, another interface of the implementation',
    () => onInterface,
    '{ reports(first: 100) { ... on Paged { render } } }',
  ],
  ['interface price, the interface itself (as before)', () => onInterface, '{ reports(first: 100) { render } }'],
];

// The interfaces say 1 version; Csv's default is 1000, Pdf (the only Paged) adds `limit` = 1000: 10 × (1 + 2 × 1000).
const sizeRows: Array<[string, string]> = [
  ["an implementation's own default list size, through the interface", '{ reports(first: 10) { versions { id } } }'],
  [
    "an implementation's own default list size, through a fragment on the interface",
    '{ items(first: 10) { ... on Report { versions { id } } } }',
  ],
  [
    'an argument only the implementation has (its default), through the interface',
    '{ paged(first: 10) { versions { id } } }',
  ],
];

describe('a list size holds through interfaces: the arguments the implementation gets', () => {
  test.each(sizeRows)('%s: 400 MAX_COST_EXCEEDED, nothing resolved', async (_name, query) => {
    versions = 0;
    const res = await post(onObject, query);
    expect(res).toEqual({
      status: 400,
      body: {
        errors: [
          expect.objectContaining({
            message: 'The query costs more than the limit of 5000.',
            extensions: { code: 'MAX_COST_EXCEEDED', limit: 5000 },
          }),
        ],
      },
    });
    expect(versions).toBe(0);
  });
});

describe('a field cost holds through interfaces, implementations and unions', () => {
  test.each(rows)('%s: 400 MAX_COST_EXCEEDED, nothing rendered', async (_name, srv, query) => {
    renders = 0;
    const res = await post(srv(), query);
    expect(res).toEqual({
      status: 400,
      body: {
        errors: [
          expect.objectContaining({
            message: 'The query costs more than the limit of 5000.',
            extensions: { code: 'MAX_COST_EXCEEDED', limit: 5000 },
          }),
        ],
      },
    });
    expect(renders).toBe(0);
  });

  test.each([
    ['cheap fields through the interface', () => onObject, '{ reports(first: 100) { id } }', 0],
    [
      'the priced field within the limit, through the interface',
      () => onObject,
      '{ reports(first: 40) { render } }',
      40,
    ],
    ['the priced field within the limit, on the object', () => onInterface, '{ pdfs(first: 40) { render } }', 40],
  ] as Array<[string, () => RunningServer, string, number]>)('still runs: %s', async (_name, srv, query, expected) => {
    renders = 0;
    const res = await post(srv(), query);
    expect({ status: res.status, errors: res.body.errors }).toEqual({ status: 200, errors: undefined });
    expect(renders).toBe(expected);
  });
});
