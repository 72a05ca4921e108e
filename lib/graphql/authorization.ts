import { getDirective, MapperKind, mapSchema } from '@graphql-tools/utils';
import {
  defaultFieldResolver,
  GraphQLError,
  isInterfaceType,
  isObjectType,
  type GraphQLInterfaceType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import type { GraphqlContext } from './auth-context.js';
import { GraphqlErrorCode } from './errors.js';

/**
 * SDL of the authorization directives, added to every host schema:
 * - `@requiresScopes(scopes: [String!]!)` on a field, an object type or an interface (type or field): the resolver
 *   runs only for tokens carrying every listed scope; others get a `FORBIDDEN` error for that field (and `null`).
 *   A mark on an interface guards the implementing objects' fields (see {@link applyScopeDirectives}).
 * - `@public(reason: String!)` on a field: marks a field that looks private (e-mail, token, user id …) as
 *   deliberately public, for the start-up check.
 */
export const AUTHORIZATION_TYPE_DEFS = /* GraphQL */ `
  directive @requiresScopes(scopes: [String!]!) on FIELD_DEFINITION | OBJECT | INTERFACE
  directive @public(reason: String!) on FIELD_DEFINITION
`;

/** The error of a field the token's scopes do not cover (the field's value becomes `null`). */
export function forbidden(): GraphQLError {
  return new GraphQLError('Not authorized to read this field.', { extensions: { code: GraphqlErrorCode.FORBIDDEN } });
}

type ScopeMark = { scopes: string[] } | undefined;

/** The scopes `@requiresScopes` lists on a type or field definition (none when it carries no mark). */
function marked(schema: GraphQLSchema, node: Parameters<typeof getDirective>[1]): readonly string[] {
  return (getDirective(schema, node, 'requiresScopes')?.[0] as ScopeMark)?.scopes ?? [];
}

/**
 * Every interface `type` implements, directly or through interfaces implementing interfaces (graphql-js
 * validation already makes an object list the interfaces of its interfaces; walking them costs nothing and
 * does not rely on it).
 */
function allInterfaces(type: GraphQLObjectType | GraphQLInterfaceType): GraphQLInterfaceType[] {
  const seen = new Set<GraphQLInterfaceType>();
  const walk = (t: GraphQLObjectType | GraphQLInterfaceType) => {
    for (const i of t.getInterfaces()) {
      if (seen.has(i)) continue;
      seen.add(i);
      walk(i);
    }
  };
  walk(type);
  return [...seen];
}

/**
 * The scopes a token needs to read `type.fieldName`: the union of the `@requiresScopes` marks on the field, on
 * `type`, on every interface `type` implements (transitively) and on those interfaces' field of the same name.
 * For an object field this is exactly what {@link applyScopeDirectives} enforces; for an interface field it is
 * what every implementation enforces at least. Sorted, without duplicates; empty when nothing guards the field.
 */
function requiredScopes(
  schema: GraphQLSchema,
  type: GraphQLObjectType | GraphQLInterfaceType,
  fieldName: string,
): string[] {
  const required = new Set<string>();
  for (const owner of [type, ...allInterfaces(type)]) {
    for (const s of marked(schema, owner)) required.add(s);
    const field = owner.getFields()[fieldName];
    if (field) for (const s of marked(schema, field)) required.add(s);
  }
  return [...required].sort();
}

/**
 * Enforces `@requiresScopes` before the resolver runs: wraps the resolver of each object field that
 * {@link requiredScopes} finds guarded — by a mark on the field, on its object type, on an interface the type
 * implements (directly or through other interfaces) or on that interface's field of the same name — in a check of
 * `context.auth.scopes`. Interface fields have no resolvers of their own (graphql-js runs the object's field), so
 * a mark on an interface guards that field of every implementation, whatever the query selects it through.
 */
export function applyScopeDirectives(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field, fieldName, typeName) => {
      const type = schema.getType(typeName);
      const required = isObjectType(type) ? requiredScopes(schema, type, fieldName) : [];
      if (required.length === 0) return field;
      const resolve = field.resolve ?? defaultFieldResolver;
      return {
        ...field,
        resolve(source, args, context: GraphqlContext, info) {
          const granted = context.auth?.scopes ?? [];
          if (!required.every((s) => granted.includes(s))) throw forbidden();
          return resolve(source, args, context, info);
        },
      };
    },
  });
}

/**
 * Object-level authorization shared by resolvers: returns `object` when `allowed(object, auth)` holds, else
 * `null` — exactly what a missing object gives, so callers cannot tell "forbidden" from "absent" where
 * existence itself is sensitive.
 *
 * @example `visibleTo(products.find(...), ctx.auth, (p, auth) => p.listed || hasScope(auth, 'catalog:admin'))`
 */
export function visibleTo<T>(
  object: T | null | undefined,
  auth: GraphqlContext['auth'],
  allowed: (object: T, auth: GraphqlContext['auth']) => boolean,
): T | null {
  if (object === null || object === undefined) return null;
  return allowed(object, auth) ? object : null;
}

/** Field names that usually hold private data (SPEC area B rule 5: no e-mail addresses or user ids). */
export const PRIVATE_LOOKING_FIELD = new RegExp(
  `^(${[
    'e_?mail(s|_?address(es)?)?',
    'password(_?hash)?|passwd|pass_?hash',
    'secret|.*_?secret|.*tokens?|api_?key',
    'ssn|phone(_?number)?',
    'user_?id|account_?id|owner_?id|sub|birth_?date',
  ].join('|')})$`,
  'i',
);

/**
 * Lists fields of the schema (`Type.field`) whose names look private, that {@link requiredScopes} finds unguarded
 * (so the check counts as protected exactly what is enforced, marks on implemented interfaces included) and that
 * carry no `@public`. Introspection types are ignored.
 */
export function findPrivateLookingFields(schema: GraphQLSchema): string[] {
  const found: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !(isObjectType(type) || isInterfaceType(type))) continue;
    for (const field of Object.values(type.getFields())) {
      if (!PRIVATE_LOOKING_FIELD.test(field.name) || getDirective(schema, field, 'public')?.length) continue;
      if (requiredScopes(schema, type, field.name).length > 0) continue;
      found.push(`${type.name}.${field.name}`);
    }
  }
  return found;
}

/** A `@requiresScopes` mark naming a scope the server does not know: where it stands and the scope. */
export interface UnknownScopeMark {
  /** `Type.field` for a field mark, `Type` for a mark on an object type or interface (it guards all its fields). */
  at: string;
  scope: string;
}

/**
 * Lists the `@requiresScopes` marks of the schema that name a scope not in `knownScopes`. The authorization server
 * grants only scopes it knows (unknown ones are dropped from the request), so no token ever carries such a scope and
 * every field the mark guards is `null` with `FORBIDDEN` for everyone: usually a typo, or a scope missing from the
 * config's `scopes`. Introspection types are ignored.
 * @param knownScopes every scope the server can grant (the OpenID Connect standard ones and config `scopes`).
 */
export function findUnknownScopeMarks(schema: GraphQLSchema, knownScopes: Iterable<string>): UnknownScopeMark[] {
  const known = new Set(knownScopes);
  const found: UnknownScopeMark[] = [];
  const check = (at: string, node: Parameters<typeof getDirective>[1]) => {
    for (const scope of marked(schema, node)) if (!known.has(scope)) found.push({ at, scope });
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !(isObjectType(type) || isInterfaceType(type))) continue;
    check(type.name, type);
    for (const field of Object.values(type.getFields())) check(`${type.name}.${field.name}`, field);
  }
  return found;
}
