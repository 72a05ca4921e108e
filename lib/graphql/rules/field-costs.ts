import { isInterfaceType, isObjectType, type GraphQLSchema } from 'graphql';

/** The effective costs of each schema and `fieldCosts` object, computed once (both are fixed for a server). */
const computed = new WeakMap<GraphQLSchema, WeakMap<object, ReadonlyMap<string, number>>>();

/**
 * The `fieldCosts` of the options as they apply to every way a field can be selected. A field selected on an
 * interface runs the resolver of one of its implementations, and a field of an object can be selected on the
 * object or on any interface it implements, so a cost given for one coordinate holds for the others:
 * - `Pdf.render: 100` (an object field) also prices `Report.render` for every interface `Report` of `Pdf` that has
 *   the field: `{ reports { render } }` or `... on Report { render }` may run `Pdf.render`;
 * - `Report.render: 100` (an interface field) also prices `render` on every object implementing `Report`, and on
 *   those objects' other interfaces with the field (`{ pdfs { render } }`, `... on Pdf { render }`, `... on
 *   Paged { render }`), as a `@requiresScopes` mark on an interface field guards every implementation.
 * Where several entries meet on one coordinate the highest applies. Entries naming no type of the schema are
 * kept as they are.
 *
 * Without this, the cost limit read only the coordinate the query happened to select the field through: with
 * `{ "Pdf.render": 100 }`, `{ reports(first: 100) { render } }` cost 200 instead of 10,100 and ran 100 renders.
 */
export function effectiveFieldCosts(
  schema: GraphQLSchema,
  fieldCosts: Readonly<Record<string, number>>,
): ReadonlyMap<string, number> {
  let bySchema = computed.get(schema);
  if (!bySchema) {
    bySchema = new WeakMap();
    computed.set(schema, bySchema);
  }
  const known = bySchema.get(fieldCosts);
  if (known) return known;
  const costs = new Map<string, number>();
  const raise = (coordinate: string, cost: number) => {
    if (!((costs.get(coordinate) ?? -1) >= cost)) costs.set(coordinate, cost);
  };
  for (const [coordinate, cost] of Object.entries(fieldCosts)) {
    raise(coordinate, cost);
    const dot = coordinate.indexOf('.');
    const type = schema.getType(coordinate.slice(0, dot));
    const field = coordinate.slice(dot + 1);
    const objects = isObjectType(type) ? [type] : isInterfaceType(type) ? schema.getPossibleTypes(type) : [];
    for (const object of objects) {
      if (!object.getFields()[field]) continue;
      raise(`${object.name}.${field}`, cost);
      for (const iface of object.getInterfaces()) if (iface.getFields()[field]) raise(`${iface.name}.${field}`, cost);
    }
  }
  bySchema.set(fieldCosts, costs);
  return costs;
}
