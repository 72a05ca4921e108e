/**
 * A test schema with every kind of definition graphql-js validation looks at: all three root types, an
 * interface, a union, an enum, an input type, argument defaults and list-size arguments of several types. The
 * demo catalog has only a Query type, so the rules about mutations, subscriptions, abstract types and input
 * objects need this one.
 */
export const opsTypeDefs = /* GraphQL */ `
  interface Node { id: Int! }
  enum Currency { EUR USD }
  type Product implements Node {
    id: Int!
    name: String!
    price(currency: Currency = EUR): Float
    related(first: Int): [Product!]!
  }
  type Review implements Node { id: Int! stars: Int! }
  union SearchResult = Product | Review
  input ProductInput { name: String! price: Float }

  type Query {
    product(id: Int!): Product
    products(first: Int): [Product!]!
    "The schema's own default is a list size too: the executor passes first = 100000 when it is left out."
    bulk(first: Int = 100000): [Product!]!
    "A list size typed ID: the executor passes the string \\"100000\\"."
    page(limit: ID): [Product!]!
    "Two list sizes: the resolver reads last when it is given, else first."
    messages(first: Int, last: Int): [Product!]!
    node(id: Int!): Node
    search(text: String!): [SearchResult!]!
    pageSize: Int
  }
  type Mutation { addProduct(input: ProductInput!): Product }
  type Subscription { productAdded: Product reviewAdded: Review }
`;

const product = (id: number) => ({ id, name: `Product ${id}`, price: id * 1.5 });

/** Resolvers that answer from a generated list (sizes clamped like the catalog's). */
export const opsResolvers = {
  Query: {
    product: (_: unknown, { id }: { id: number }) => product(id),
    products: (_: unknown, { first }: { first?: number | null }) =>
      Array.from({ length: Math.min(3, Math.max(0, first ?? 3)) }, (_v, i) => product(i + 1)),
    bulk: () => [product(1)],
    page: () => [product(1)],
    messages: (_: unknown, { first, last }: { first?: number | null; last?: number | null }) =>
      Array.from({ length: Math.min(3, Math.max(0, last ?? first ?? 3)) }, (_v, i) => product(i + 1)),
    node: (_: unknown, { id }: { id: number }) => ({ ...product(id), __typename: 'Product' }),
    search: () => [],
    pageSize: () => 3,
  },
  Product: { related: () => [] },
  Node: { __resolveType: () => 'Product' },
  SearchResult: { __resolveType: () => 'Product' },
  Mutation: { addProduct: (_: unknown, { input }: { input: { name: string } }) => ({ id: 99, name: input.name }) },
  Subscription: {
    productAdded: {
      subscribe: () => {
        throw new Error('not reached: subscriptions are refused before execution');
      },
    },
  },
};
