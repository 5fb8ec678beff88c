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
  __Schema, getNamedType, isInputObjectType, isIntrospectionType, isInterfaceType, isObjectType, isUnionType,
  type GraphQLDirective, type GraphQLNamedType, type GraphQLObjectType, type GraphQLSchema, type GraphQLType,
} from 'graphql';

/** The schema introspection reads, and its named types in `getTypeMap()` order (made as they are reached). */
export interface IntrospectionSchema {
  schema: GraphQLSchema;
  types(): Iterable<GraphQLNamedType>;
}

/** What the order is computed from: `new GraphQLSchema`'s config. */
export interface TypeOrderConfig {
  types: readonly GraphQLNamedType[];
  query: GraphQLObjectType | null | undefined;
  mutation: GraphQLObjectType | null | undefined;
  subscription: GraphQLObjectType | null | undefined;
  directives: readonly GraphQLDirective[];
}

/** The types a named type refers to, in graphql-js's order (interfaces, then each field's type and its arguments' types). */
function referenced(t: GraphQLNamedType): GraphQLType[] {
  if (isUnionType(t)) return [...t.getTypes()];
  if (isObjectType(t) || isInterfaceType(t)) {
    const out: GraphQLType[] = [...t.getInterfaces()];
    for (const f of Object.values(t.getFields())) {
      out.push(f.type);
      for (const a of f.args) out.push(a.type);
    }
    return out;
  }
  if (isInputObjectType(t)) return Object.values(t.getFields()).map((f) => f.type);
  return [];
}

/** The schema's named types in `getTypeMap()` order, each made when reached (an explicit stack: chains of thousands of tables are deep). */
export function* schemaTypeOrder(config: TypeOrderConfig): Generator<GraphQLNamedType> {
  const seen = new Set<GraphQLNamedType>(config.types);
  const stack: Array<{ refs: GraphQLType[]; i: number }> = [];
  // Depth first from `start` (already marked seen): `start`, then what it reaches that is not seen yet.
  function* walk(start: GraphQLNamedType): Generator<GraphQLNamedType> {
    yield start;
    stack.push({ refs: referenced(start), i: 0 });
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (top.i >= top.refs.length) { stack.pop(); continue; }
      const named = getNamedType(top.refs[top.i++]);
      if (seen.has(named)) continue;
      seen.add(named);
      yield named;
      stack.push({ refs: referenced(named), i: 0 });
    }
  }
  for (const t of config.types) yield* walk(t);
  const roots: GraphQLType[] = [];
  if (config.query) roots.push(config.query);
  if (config.mutation) roots.push(config.mutation);
  if (config.subscription) roots.push(config.subscription);
  for (const d of config.directives) for (const a of d.args) roots.push(a.type);
  roots.push(__Schema);
  for (const r of roots) {
    const named = getNamedType(r);
    if (seen.has(named)) continue;
    seen.add(named);
    yield* walk(named);
  }
}

/** graphql-js's private field map of a type: a thunk until `getFields()` first runs it. */
interface FieldsState {
  _fields?: unknown;
}

/**
 * `types` with each type's fields made only while it is the current one: a type whose field map is still
 * graphql-js's thunk when it comes is given that thunk back once the next type is asked for (after the
 * walk read the type's references), so its fields, their arguments and type wrappers die young instead of
 * all being held, and promoted by the collector, until the whole answer is written. A later `getFields()`
 * runs the same thunk again and makes equal fields (the named types they refer to are the build's own).
 * For a build that is dropped after the walk (a lazy schema's fresh build for introspection); graphql-js's
 * introspection types, shared by every schema, are left alone.
 */
export function* releasingFields(types: Iterable<GraphQLNamedType>): Generator<GraphQLNamedType> {
  let previous: { type: FieldsState; thunk: unknown } | undefined;
  for (const t of types) {
    if (previous) previous.type._fields = previous.thunk;
    const state = t as FieldsState;
    // graphql-js's own introspection types are shared by every schema: theirs stay as they are.
    previous = typeof state._fields === 'function' && !isIntrospectionType(t) ? { type: state, thunk: state._fields } : undefined;
    yield t;
  }
  if (previous) previous.type._fields = previous.thunk;
}
