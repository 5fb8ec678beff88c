/**
 * The named types of a schema in the order graphql-js's `new GraphQLSchema` collects them (the order of
 * `getTypeMap()`, so of `__schema { types }`), one at a time: each type's fields are made (its field thunk
 * run) only when the walk reaches it, so a caller can answer type by type and yield to other requests
 * between types instead of completing the whole schema in one turn.
 *
 * graphql-js's order: the config's `types` first, each followed by the types it reaches depth first that
 * are not config types (those come in their own turn); then what the query, mutation and subscription
 * roots reach, the directives' argument types, and the introspection types (`__Schema` and what it reaches).
 */
import {
  __Schema, getNamedType, isInputObjectType, isInterfaceType, isObjectType, isUnionType,
  type GraphQLDirective, type GraphQLNamedType, type GraphQLObjectType, type GraphQLSchema, type GraphQLType,
} from 'graphql';

/** The schema introspection reads, and its named types in `getTypeMap()` order (made as they are reached). */
export interface IntrospectionSchema {
  schema: GraphQLSchema;
  types(): Iterable<GraphQLNamedType>;
}

/**
 * What the order is computed from: `new GraphQLSchema`'s config. A build of transient types (context.ts)
 * gives its config types by name (`types.names`, each made by `types.make` when its turn comes) and `own`,
 * which gives the instance to walk of a type reached through a field (a new one, so that the type whose
 * field reached it does not keep it, and its fields, alive).
 */
export interface TypeOrderConfig {
  types: readonly GraphQLNamedType[] | { names: readonly string[]; make(name: string): GraphQLNamedType };
  query: GraphQLObjectType | null | undefined;
  mutation: GraphQLObjectType | null | undefined;
  subscription: GraphQLObjectType | null | undefined;
  directives: readonly GraphQLDirective[];
  own?: (reached: GraphQLNamedType) => GraphQLNamedType;
}

/** The types a named type refers to, in graphql-js's order (interfaces, then each field's type and its arguments' types). */
function referenced(t: GraphQLNamedType): Array<GraphQLType | undefined> {
  if (isUnionType(t)) return [...t.getTypes()];
  if (isObjectType(t) || isInterfaceType(t)) {
    const out: Array<GraphQLType | undefined> = [...t.getInterfaces()];
    for (const f of Object.values(t.getFields())) {
      out.push(f.type);
      for (const a of f.args) out.push(a.type);
    }
    return out;
  }
  if (isInputObjectType(t)) return Object.values(t.getFields()).map((f) => f.type);
  return [];
}

/**
 * The schema's named types in `getTypeMap()` order, each made when reached (an explicit stack: chains of
 * thousands of tables are deep). Types are told apart by name (unique in a schema); a frame lets go of each
 * reference once taken, so a written type is kept only while something not yet written refers to it.
 */
export function* schemaTypeOrder(config: TypeOrderConfig): Generator<GraphQLNamedType> {
  const listed = 'names' in config.types ? config.types : undefined;
  const names = listed ? listed.names : (config.types as readonly GraphQLNamedType[]).map((t) => t.name);
  const seen = new Set<string>(names);
  const own = config.own ?? ((t: GraphQLNamedType) => t);
  const stack: Array<{ refs: Array<GraphQLType | undefined>; i: number }> = [];
  // Depth first from `start` (already marked seen): `start`, then what it reaches that is not seen yet.
  function* walk(start: GraphQLNamedType): Generator<GraphQLNamedType> {
    yield start;
    stack.push({ refs: referenced(start), i: 0 });
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (top.i >= top.refs.length) { stack.pop(); continue; }
      const ref = top.refs[top.i]!;
      top.refs[top.i++] = undefined;
      const named = getNamedType(ref);
      if (seen.has(named.name)) continue;
      seen.add(named.name);
      const walked = own(named);
      yield walked;
      stack.push({ refs: referenced(walked), i: 0 });
    }
  }
  for (let i = 0; i < names.length; i++) yield* walk(listed ? listed.make(names[i]) : (config.types as readonly GraphQLNamedType[])[i]);
  const roots: GraphQLType[] = [];
  if (config.query) roots.push(config.query);
  if (config.mutation) roots.push(config.mutation);
  if (config.subscription) roots.push(config.subscription);
  for (const d of config.directives) for (const a of d.args) roots.push(a.type);
  roots.push(__Schema);
  for (const r of roots) {
    const named = getNamedType(r);
    if (seen.has(named.name)) continue;
    seen.add(named.name);
    yield* walk(named);
  }
}
