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
  __Schema, getNamedType, introspectionTypes, isInputObjectType, isInterfaceType, isObjectType, isUnionType, specifiedScalarTypes,
  type GraphQLDirective, type GraphQLNamedType, type GraphQLObjectType, type GraphQLSchema, type GraphQLType,
} from 'graphql';
import type { TypeTexts } from './typeTexts.js';

/** The schema introspection reads, and its named types in `getTypeMap()` order (made as they are reached). */
export interface IntrospectionSchema {
  schema: GraphQLSchema;
  types(): Iterable<GraphQLNamedType>;
  /** When its types' texts are shared with other schemas (typeTexts.ts): the same order by name, each type made only when asked. */
  shared?: SharedTypes;
}

/** One type of a walk by name: its key (undefined: not shared), and the type itself, made when asked. */
export interface TypeSlot {
  name: string;
  key: string | undefined;
  type(): GraphQLNamedType;
}

export interface SharedTypes {
  texts: TypeTexts;
  /** The types in `getTypeMap()` order. */
  order(): Iterable<TypeSlot>;
}

/** Where a walk by name finds types: the build's registry, the keys, and a last resort (completing the schema). */
export interface TypeSource {
  named(name: string): GraphQLNamedType | undefined;
  key(name: string): string | undefined;
  fallback(name: string): GraphQLNamedType | undefined;
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

/**
 * `schemaTypeOrder` by name, without making the types whose references are known already: a type with a
 * key whose entry in `texts` lists the types it refers to (written by an earlier walk of an equal type) is
 * passed by its name; any other is made (`TypeSlot.type()`), and its references recorded under its key. A
 * type that is needed but not made yet (its text is not kept, or it has no key) is made through the types
 * that first referred to it in this walk: each one's fields made in turn, from the nearest made one down.
 */
export function* sharedTypeOrder(config: TypeOrderConfig, source: TypeSource, texts: TypeTexts): Generator<TypeSlot> {
  const known = new Map<string, GraphQLNamedType>();
  for (const t of specifiedScalarTypes) known.set(t.name, t);
  for (const t of introspectionTypes) known.set(t.name, t);
  for (const t of config.types) known.set(t.name, t);
  const parent = new Map<string, string>();
  const keys = new Map<string, string | undefined>();
  const keyOf = (name: string): string | undefined => {
    if (keys.has(name)) return keys.get(name);
    const key = source.key(name);
    keys.set(name, key);
    return key;
  };
  const find = (name: string): GraphQLNamedType | undefined => known.get(name) ?? source.named(name);
  /** The named types `t` refers to (its fields made), each remembered. */
  const expand = (t: GraphQLNamedType): string[] => referenced(t).map((r) => {
    const n = getNamedType(r);
    known.set(n.name, n);
    return n.name;
  });
  const make = (name: string): GraphQLNamedType => {
    let t = find(name);
    if (t) return t;
    const chain = [name];
    let up = parent.get(name);
    while (up !== undefined && !find(up)) {
      chain.push(up);
      up = parent.get(up);
    }
    if (up !== undefined) {
      let at = find(up)!;
      for (let i = chain.length - 1; i >= 0; i--) {
        expand(at);
        const next = find(chain[i]);
        if (!next) break;
        at = next;
      }
    }
    t = find(name) ?? source.fallback(name);
    if (!t) throw new Error(`type ${name} is referred to and not found`);
    known.set(name, t);
    return t;
  };
  const refsOf = (name: string): readonly string[] => {
    const key = keyOf(name);
    const entry = key === undefined ? undefined : texts.entry(key);
    if (entry?.refs) return entry.refs;
    const refs = expand(make(name));
    if (entry) entry.refs = refs;
    return refs;
  };
  const slot = (name: string): TypeSlot => ({ name, key: keyOf(name), type: () => make(name) });
  const seen = new Set<string>(config.types.map((t) => t.name));
  const stack: Array<{ from: string; refs: readonly string[]; i: number }> = [];
  function* walk(start: string): Generator<TypeSlot> {
    yield slot(start);
    stack.push({ from: start, refs: refsOf(start), i: 0 });
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (top.i >= top.refs.length) { stack.pop(); continue; }
      const name = top.refs[top.i++];
      if (seen.has(name)) continue;
      seen.add(name);
      parent.set(name, top.from);
      yield slot(name);
      stack.push({ from: name, refs: refsOf(name), i: 0 });
    }
  }
  for (const t of config.types) yield* walk(t.name);
  const roots: GraphQLType[] = [];
  if (config.query) roots.push(config.query);
  if (config.mutation) roots.push(config.mutation);
  if (config.subscription) roots.push(config.subscription);
  for (const d of config.directives) for (const a of d.args) roots.push(a.type);
  roots.push(__Schema);
  for (const r of roots) {
    const named = getNamedType(r);
    known.set(named.name, named);
    if (seen.has(named.name)) continue;
    seen.add(named.name);
    yield* walk(named.name);
  }
}
