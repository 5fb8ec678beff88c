/**
 * Introspection (`__schema`, `__type`) answered as JSON text, without graphql-js's `execute`: the same
 * semantics (graphql-js's own introspection types and resolvers, its field collection with fragments,
 * `@skip`/`@include` and aliases, its argument coercion, its leaf serialization), written straight to
 * text, with each named type's text made once per selection (the `ofType` chains and the types every
 * field refers to are the same few texts). `execute` on a 5,000-table schema builds a result object of
 * millions of entries, then `JSON.stringify` walks it again; here the text is the result.
 *
 * `introspectionText` gives, per root alias, exactly `JSON.stringify(execute(...).data[alias])`
 * (tests/unit/graphql/introspectionText.test.ts compares them over the standard introspection queries and
 * several schemas), or `undefined` when the document does something unusual (a field error, a fragment on
 * a type outside introspection, an unknown field), which the caller then runs through graphql-js.
 *
 * The `types` of `__schema` come one at a time (`IntrospectionSchema.types`: a lazy schema makes each
 * type's fields as the walk reaches it), and the answer yields to other requests every `SLICE_MS` of work.
 */
import {
  GraphQLIncludeDirective, GraphQLSkipDirective, Kind, TypeMetaFieldDef, TypeNameMetaFieldDef, __Schema,
  getArgumentValues, getDirectiveValues, getVariableValues, isLeafType, isListType, isNamedType, isNonNullType, isObjectType,
  type DocumentNode, type FieldNode, type FragmentDefinitionNode, type GraphQLField, type GraphQLNamedType, type GraphQLObjectType,
  type GraphQLOutputType, type GraphQLResolveInfo, type GraphQLSchema, type OperationDefinitionNode, type SelectionSetNode,
} from 'graphql';
import { LazySchema } from './lazySchema.js';
import type { IntrospectionSchema } from './typeOrder.js';

/** What introspection of `schema` reads: a lazy schema's fresh build walked type by type, or the schema itself. */
export function introspectionOf(schema: GraphQLSchema): IntrospectionSchema {
  if (schema instanceof LazySchema) return schema.forIntrospection();
  return { schema, types: () => Object.values(schema.getTypeMap()) };
}

/** Work between two yields to the event loop while an answer is written. */
const SLICE_MS = 15;

/** Something `execute` would answer differently (an error) or that this walker does not handle: run graphql-js. */
class Unusual extends Error {}

type Fields = Map<string, FieldNode[]>;

class Walker {
  private readonly fragments: Record<string, FragmentDefinitionNode> = Object.create(null) as Record<string, FragmentDefinitionNode>;
  private readonly nodeIds = new WeakMap<FieldNode, number>();
  private nextId = 0;
  private readonly collected = new Map<string, Fields>();
  /** Named type → selection key → its text. */
  private readonly texts = new Map<GraphQLNamedType, Map<string, string>>();
  private deadline = 0;

  constructor(
    private readonly target: IntrospectionSchema,
    document: DocumentNode,
    private readonly variables: Record<string, unknown>,
  ) {
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) this.fragments[d.name.value] = d;
  }

  private keyOf(nodes: readonly FieldNode[]): string {
    let key = '';
    for (const n of nodes) {
      let id = this.nodeIds.get(n);
      if (id === undefined) this.nodeIds.set(n, (id = this.nextId++));
      key += `${id},`;
    }
    return key;
  }

  /** graphql-js's `collectSubfields`: the sub-selections of `nodes` on `type`, by response key. */
  collect(type: GraphQLObjectType, nodes: readonly FieldNode[], nodesKey: string): Fields {
    const key = `${type.name}\u0000${nodesKey}`;
    let fields = this.collected.get(key);
    if (!fields) {
      fields = new Map();
      const visited = new Set<string>();
      for (const n of nodes) if (n.selectionSet) this.collectInto(type, n.selectionSet, fields, visited);
      this.collected.set(key, fields);
    }
    return fields;
  }

  collectInto(type: GraphQLObjectType, set: SelectionSetNode, fields: Fields, visited: Set<string>): void {
    for (const s of set.selections) {
      switch (s.kind) {
        case Kind.FIELD: {
          if (!this.included(s)) continue;
          const key = s.alias?.value ?? s.name.value;
          const list = fields.get(key);
          if (list) list.push(s);
          else fields.set(key, [s]);
          break;
        }
        case Kind.INLINE_FRAGMENT:
          if (!this.included(s) || !this.matches(s.typeCondition?.name.value, type)) continue;
          this.collectInto(type, s.selectionSet, fields, visited);
          break;
        case Kind.FRAGMENT_SPREAD: {
          const name = s.name.value;
          if (visited.has(name) || !this.included(s)) continue;
          visited.add(name);
          const fragment = this.fragments[name];
          if (!fragment || !this.matches(fragment.typeCondition.name.value, type)) continue;
          this.collectInto(type, fragment.selectionSet, fields, visited);
          break;
        }
      }
    }
  }

  private included(node: Parameters<typeof getDirectiveValues>[1]): boolean {
    if (!node.directives || node.directives.length === 0) return true;
    if (getDirectiveValues(GraphQLSkipDirective, node, this.variables)?.if === true) return false;
    return getDirectiveValues(GraphQLIncludeDirective, node, this.variables)?.if !== false;
  }

  /** A type condition on an introspection type (all object types): it matches its own name only. */
  private matches(condition: string | undefined, type: GraphQLObjectType): boolean {
    if (condition === undefined || condition === type.name) return true;
    if (condition.startsWith('__')) return false;
    throw new Unusual('a fragment on a type outside introspection');
  }

  private fieldDef(parent: GraphQLObjectType, name: string): GraphQLField<unknown, unknown> {
    if (name === '__typename') return TypeNameMetaFieldDef;
    const def = parent.getFields()[name];
    if (!def) throw new Unusual(`no field ${name} on ${parent.name}`);
    return def;
  }

  private resolve(parent: GraphQLObjectType, def: GraphQLField<unknown, unknown>, nodes: readonly FieldNode[], source: unknown): unknown {
    if (parent === __Schema && def.name === 'types') return this.target.types();
    if (!def.resolve) throw new Unusual(`no resolver for ${def.name}`);
    let args: Record<string, unknown>;
    try {
      args = def.args.length === 0 ? {} : getArgumentValues(def, nodes[0], this.variables);
    } catch {
      throw new Unusual('argument error');
    }
    const info = { schema: this.target.schema, parentType: parent, fieldName: def.name, fieldNodes: nodes } as unknown as GraphQLResolveInfo;
    return def.resolve(source, args, undefined, info);
  }

  /** An object's text: `{"key":value,...}` over the collected fields. */
  object(type: GraphQLObjectType, nodes: readonly FieldNode[], value: unknown): string {
    const nodesKey = this.keyOf(nodes);
    const named = isNamedType(value) ? value : undefined;
    let memo: Map<string, string> | undefined;
    if (named) {
      memo = this.texts.get(named);
      const have = memo?.get(nodesKey);
      if (have !== undefined) return have;
    }
    let out = '{';
    let first = true;
    for (const [key, fieldNodes] of this.collect(type, nodes, nodesKey)) {
      const def = this.fieldDef(type, fieldNodes[0].name.value);
      const result = def === TypeNameMetaFieldDef ? type.name : this.resolve(type, def, fieldNodes, value);
      out += `${first ? '' : ','}${JSON.stringify(key)}:${this.value(def.type, fieldNodes, result)}`;
      first = false;
    }
    out += '}';
    if (named) {
      if (!memo) this.texts.set(named, (memo = new Map()));
      memo.set(nodesKey, out);
    }
    return out;
  }

  value(type: GraphQLOutputType, nodes: readonly FieldNode[], result: unknown): string {
    if (isNonNullType(type)) {
      if (result === null || result === undefined) throw new Unusual('null for a non-null field');
      return this.value(type.ofType, nodes, result);
    }
    if (result === null || result === undefined) return 'null';
    if (isListType(type)) {
      if (typeof result !== 'object' || !(Symbol.iterator in result)) throw new Unusual('not a list');
      let out = '[';
      let first = true;
      for (const item of result as Iterable<unknown>) {
        out += (first ? '' : ',') + this.value(type.ofType, nodes, item);
        first = false;
      }
      return `${out}]`;
    }
    if (isLeafType(type)) {
      const serialized = type.serialize(result);
      if (serialized === null || serialized === undefined) throw new Unusual('leaf not serializable');
      return JSON.stringify(serialized);
    }
    if (isObjectType(type)) return this.object(type, nodes, result);
    throw new Unusual('abstract type in introspection');
  }

  /** The `__schema` object, its lists written item by item with a yield every `SLICE_MS`. */
  async schemaObject(nodes: readonly FieldNode[]): Promise<string> {
    const pieces: string[] = ['{'];
    let first = true;
    this.deadline = performance.now() + SLICE_MS;
    for (const [key, fieldNodes] of this.collect(__Schema, nodes, this.keyOf(nodes))) {
      const def = this.fieldDef(__Schema, fieldNodes[0].name.value);
      const result = def === TypeNameMetaFieldDef ? '__Schema' : this.resolve(__Schema, def, fieldNodes, this.target.schema);
      pieces.push(`${first ? '' : ','}${JSON.stringify(key)}:`);
      first = false;
      let type = def.type;
      if (isNonNullType(type)) {
        if (result === null || result === undefined) throw new Unusual('null for a non-null field');
        type = type.ofType;
      }
      if (!isListType(type) || result === null || result === undefined) {
        pieces.push(this.value(type, fieldNodes, result));
        continue;
      }
      pieces.push('[');
      let i = 0;
      for (const item of result as Iterable<unknown>) {
        pieces.push((i++ === 0 ? '' : ',') + this.value(type.ofType, fieldNodes, item));
        if (performance.now() >= this.deadline) {
          await new Promise((r) => setImmediate(r));
          this.deadline = performance.now() + SLICE_MS;
        }
      }
      pieces.push(']');
    }
    pieces.push('}');
    return pieces.join('');
  }
}

/**
 * The text of each introspection root field of `document` (its one operation holds only `__schema` /
 * `__type` fields), by response key, as `JSON.stringify` of graphql-js's `execute` result would give it;
 * `undefined` when graphql-js should answer (an error, or something this walker does not do).
 */
export async function introspectionText(
  target: IntrospectionSchema, document: DocumentNode, rawVariables: Record<string, unknown>,
): Promise<Map<string, string> | undefined> {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (operations.length !== 1) return undefined;
  const op = operations[0];
  const query = target.schema.getQueryType();
  if (!query) return undefined;
  const coerced = getVariableValues(target.schema, op.variableDefinitions ?? [], rawVariables);
  if (coerced.errors) return undefined;
  const walker = new Walker(target, document, coerced.coerced);
  try {
    const roots = new Map<string, FieldNode[]>();
    walker.collectInto(query, op.selectionSet, roots, new Set());
    const out = new Map<string, string>();
    for (const [key, nodes] of roots) {
      const name = nodes[0].name.value;
      if (name === '__schema') out.set(key, await walker.schemaObject(nodes));
      else if (name === '__type') {
        let args: Record<string, unknown>;
        try {
          args = getArgumentValues(TypeMetaFieldDef, nodes[0], coerced.coerced);
        } catch {
          return undefined;
        }
        const type = typeof args.name === 'string' ? target.schema.getType(args.name) : undefined;
        out.set(key, type ? walker.value(TypeMetaFieldDef.type, nodes, type) : 'null');
      } else if (name === '__typename') out.set(key, JSON.stringify(query.name));
      else return undefined;
    }
    return out;
  } catch (e) {
    if (e instanceof Unusual) return undefined;
    throw e;
  }
}

