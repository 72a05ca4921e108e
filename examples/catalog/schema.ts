import { hasScope, visibleTo, type GraphqlContext } from '../../lib/graphql/index.js';

/**
 * The example catalog schema of the spec (area B): products with `id`, `name` and `listed`. No type exposes
 * e-mail addresses or user ids.
 */
export const typeDefs = /* GraphQL */ `
  enum ProductSort { NAME NEWEST }

  type Product {
    id: Int!
    name: String!
    listed: Boolean!
    "Other listed products."
    related(first: Int): [Product!]!
  }

  type Query {
    "A product by id. Delisted products are visible only to tokens with scope catalog:admin."
    product(id: Int!): Product
    "Listed products only; \`first\` bounds the list (and its cost)."
    products(sort: ProductSort, first: Int): [Product!]!
    "Delisted products: needs a token with scope catalog:admin (enforced before the resolver runs)."
    delistedProducts: [Product!]! @requiresScopes(scopes: ["catalog:admin"])
  }
`;

export interface Product {
  id: number;
  name: string;
  listed: boolean;
}

export const DEMO_PRODUCTS: readonly Product[] = Object.freeze(
  [
    { id: 1, name: 'Desk Lamp', listed: true },
    { id: 2, name: 'Office Chair', listed: true },
    { id: 3, name: 'Prototype Drone', listed: false },
    { id: 4, name: 'Standing Desk', listed: true },
  ].map((p) => Object.freeze(p)),
);

/** Scope that lets a token see delisted products. */
export const CATALOG_ADMIN_SCOPE = 'catalog:admin';

/**
 * Object-level rule shared by every resolver: a delisted product exists only for `catalog:admin`. Anyone else
 * gets exactly what a missing product gives (`null`), so the two cannot be told apart.
 */
export function visibleProduct(product: Product | undefined, auth: GraphqlContext['auth']): Product | null {
  return visibleTo(product, auth, (p, who) => p.listed || hasScope(who, CATALOG_ADMIN_SCOPE));
}

/** Resolvers over an in-memory product list. */
export function catalogResolvers(products: readonly Product[] = DEMO_PRODUCTS) {
  return {
    Query: {
      product: (_: unknown, args: { id: number }, ctx: GraphqlContext) =>
        visibleProduct(
          products.find((p) => p.id === args.id),
          ctx.auth,
        ),
      products: (_: unknown, args: { sort?: 'NAME' | 'NEWEST' | null; first?: number | null }) => {
        let listed = products.filter((p) => p.listed);
        if (args.sort === 'NAME') listed = [...listed].sort((a, b) => a.name.localeCompare(b.name));
        if (args.sort === 'NEWEST') listed = [...listed].sort((a, b) => b.id - a.id);
        return args.first === undefined || args.first === null ? listed : listed.slice(0, Math.max(0, args.first));
      },
      delistedProducts: () => products.filter((p) => !p.listed),
    },
    Product: {
      related: (product: Product, args: { first?: number | null }) =>
        products
          .filter((p) => p.listed && p.id !== product.id)
          .slice(0, args.first === undefined || args.first === null ? undefined : Math.max(0, args.first)),
    },
  };
}
