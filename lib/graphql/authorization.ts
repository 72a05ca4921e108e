import { getDirective, MapperKind, mapSchema } from '@graphql-tools/utils';
import { defaultFieldResolver, GraphQLError, isInterfaceType, isObjectType, type GraphQLSchema } from 'graphql';
import type { GraphqlContext } from './auth-context.js';
import { GraphqlErrorCode } from './errors.js';

/**
 * SDL of the authorization directives, added to every host schema:
 * - `@requiresScopes(scopes: [String!]!)` on a field or type: the resolver runs only for tokens carrying every
 *   listed scope; others get a `FORBIDDEN` error for that field (and `null`).
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

/**
 * Enforces `@requiresScopes` before the resolver runs: wraps the resolver of each field that carries the
 * directive (or whose type does) in a check of `context.auth.scopes`.
 */
export function applyScopeDirectives(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field, _name, typeName) => {
      const onField = getDirective(schema, field, 'requiresScopes')?.[0] as { scopes: string[] } | undefined;
      const type = schema.getType(typeName);
      const onType = type ? getDirective(schema, type, 'requiresScopes')?.[0] as { scopes: string[] } | undefined : undefined;
      const required = [...(onType?.scopes ?? []), ...(onField?.scopes ?? [])];
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
export function visibleTo<T>(object: T | null | undefined, auth: GraphqlContext['auth'], allowed: (object: T, auth: GraphqlContext['auth']) => boolean): T | null {
  if (object === null || object === undefined) return null;
  return allowed(object, auth) ? object : null;
}

/** Field names that usually hold private data (SPEC area B rule 5: no e-mail addresses or user ids). */
export const PRIVATE_LOOKING_FIELD = /^(e_?mail(s|_?address(es)?)?|password(_?hash)?|passwd|pass_?hash|secret|.*_?secret|.*tokens?|api_?key|ssn|phone(_?number)?|user_?id|account_?id|owner_?id|sub|birth_?date)$/i;

/**
 * Lists fields of the schema (`Type.field`) whose names look private and that carry neither
 * `@requiresScopes` (on the field or its type) nor `@public`. Introspection types are ignored.
 */
export function findPrivateLookingFields(schema: GraphQLSchema): string[] {
  const found: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !(isObjectType(type) || isInterfaceType(type))) continue;
    const typeGuarded = getDirective(schema, type, 'requiresScopes')?.length;
    for (const field of Object.values(type.getFields())) {
      if (!PRIVATE_LOOKING_FIELD.test(field.name)) continue;
      if (typeGuarded || getDirective(schema, field, 'requiresScopes')?.length || getDirective(schema, field, 'public')?.length) continue;
      found.push(`${type.name}.${field.name}`);
    }
  }
  return found;
}
