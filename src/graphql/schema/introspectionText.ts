/**
 * Introspection (`__schema`, `__type`) answered as JSON text, without graphql-js's `execute`: the same
 * semantics (graphql-js's own introspection types and resolvers, its field collection with fragments,
 * `@skip`/`@include` and aliases, its argument coercion, its leaf serialization), written straight to
 * text; each selection is planned once, and a type reference's text (the `ofType` chains every field and
 * argument repeats) made once per selection. `execute` on a 5,000-table schema builds a result object of
 * millions of entries, then `JSON.stringify` walks it again; here the text is the result.
 *
 * `introspectionText(schema, document, variables)` gives, per root alias, exactly
 * `JSON.stringify(execute(...).data[alias])` (tests/unit/graphql/introspectionText.test.ts compares them over
 * the standard introspection queries and several schemas), or `undefined` when the document does something
 * unusual (a field error, a fragment on a type outside introspection, an unknown field), which the caller
 * then runs through graphql-js. `introspectionBytes` gives the same text as UTF-8 chunks, each encoded as
 * soon as it is written: a 100 MB answer is never a string, nor held as text and bytes at once.
 *
 * The `types` of `__schema` come one at a time (`IntrospectionSchema.types`: a lazy schema's fresh build
 * makes each type's fields as the walk reaches it), and the answer yields to other requests every
 * `SLICE_MS` of work.
 */
import {
  GraphQLIncludeDirective, GraphQLList, GraphQLNonNull, GraphQLSkipDirective, Kind, TypeMetaFieldDef, TypeNameMetaFieldDef, __Schema, __Type,
  getArgumentValues, getDirectiveValues, getVariableValues, isLeafType, isListType, isNonNullType, isObjectType,
  type GraphQLLeafType,
  type DocumentNode, type FieldNode, type FragmentDefinitionNode, type GraphQLField, type GraphQLNamedType, type GraphQLObjectType,
  type GraphQLOutputType, type GraphQLResolveInfo, type GraphQLSchema, type OperationDefinitionNode, type SelectionSetNode,
} from 'graphql';
import { LazySchema } from './lazySchema.js';
import { LazyRootType } from './lazyRootType.js';
import { TurnBudget } from '../../lib/index.js';
import type { IntrospectionSchema } from './schemaTypeOrder.js';
import { NotCompiled, WriterCompiler, type WriterSink } from './introspectionWriter.js';

/** What introspection of `schema` reads: a lazy schema's fresh build walked type by type, or the schema itself. */
export async function introspectionOf(schema: GraphQLSchema): Promise<IntrospectionSchema> {
  if (schema instanceof LazySchema) return schema.forIntrospection();
  return { schema, types: () => Object.values(schema.getTypeMap()) };
}

/** Work between two yields to the event loop while an answer is written. */
const SLICE_MS = 15;

/** A named type's text under one selection is kept when it is at most this many pieces (a type reference, not a whole type). */
const MEMO_PIECES = 64;

/** Pieces joined into one chunk once there are this many. */
const FLUSH_PIECES = 8192;

/** Something `execute` would answer differently (an error) or that this walker does not handle: run graphql-js. */
class Unusual extends Error {}

type Fields = Map<string, FieldNode[]>;

/** One field of a selection on an introspection type, worked out once per selection. */
interface PlannedField {
  /** `"<response key>":`, with the comma before it when it is not the first. */
  prefix: string;
  def: GraphQLField<unknown, unknown>;
  nodes: FieldNode[];
  args: Record<string, unknown>;
}

/** A selection (its field nodes) on one introspection object type, and the text of each named type under it. */
interface Plan {
  fields: PlannedField[];
  texts: Map<GraphQLNamedType, string>;
}

/** An introspection field's output type, unwrapped once (graphql-js's `isX` checks cost on every value). */
type Shape =
  | { kind: 'non_null'; of: GraphQLOutputType }
  | { kind: 'list'; of: GraphQLOutputType }
  | { kind: 'leaf'; type: GraphQLLeafType }
  | { kind: 'object'; type: GraphQLObjectType };

const shapes = new Map<GraphQLOutputType, Shape>();
function shapeOf(type: GraphQLOutputType): Shape {
  let shape = shapes.get(type);
  if (!shape) {
    if (isNonNullType(type)) shape = { kind: 'non_null', of: type.ofType };
    else if (isListType(type)) shape = { kind: 'list', of: type.ofType };
    else if (isLeafType(type)) shape = { kind: 'leaf', type };
    else if (isObjectType(type)) shape = { kind: 'object', type };
    else throw new Unusual('abstract type in introspection');
    // Only the introspection types' own field types come here: a handful of objects, kept for the process.
    shapes.set(type, shape);
  }
  return shape;
}

class Walker implements WriterSink {
  private readonly fragments: Record<string, FragmentDefinitionNode> = Object.create(null) as Record<string, FragmentDefinitionNode>;
  /** Per field-node list (a collected entry, so one object per selection) and runtime type: its plan. */
  private readonly plans = new WeakMap<readonly FieldNode[], Map<GraphQLObjectType, Plan>>();
  private deadline = 0;
  /** The pieces written since the last flush, and the flushed chunks (text, or UTF-8 with `bytes`). */
  out: string[] = [];
  private chunks: Array<string | Buffer> = [];
  private flushes = 0;

  constructor(
    private readonly target: IntrospectionSchema,
    document: DocumentNode,
    private readonly variables: Record<string, unknown>,
    private readonly bytes: boolean,
  ) {
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) this.fragments[d.name.value] = d;
    this.compiler = new WriterCompiler(this, (why) => { throw new Unusual(why); });
  }

  /** The writers of the introspection objects compiled per selection (introspectionWriter.ts). */
  private readonly compiler: WriterCompiler;

  get schema(): GraphQLSchema {
    return this.target.schema;
  }

  planFields(type: GraphQLObjectType, nodes: readonly FieldNode[]): readonly PlannedField[] {
    return this.plan(type, nodes).fields;
  }

  /** graphql-js's `collectSubfields` of `nodes` on `type`, planned: each field's definition and arguments. */
  private plan(type: GraphQLObjectType, nodes: readonly FieldNode[]): Plan {
    let byType = this.plans.get(nodes);
    if (!byType) this.plans.set(nodes, (byType = new Map()));
    let plan = byType.get(type);
    if (plan) return plan;
    const fields: Fields = new Map();
    const visited = new Set<string>();
    for (const n of nodes) if (n.selectionSet) this.collectInto(type, n.selectionSet, fields, visited);
    const planned: PlannedField[] = [];
    for (const [key, fieldNodes] of fields) {
      const def = this.fieldDef(type, fieldNodes[0].name.value);
      let args: Record<string, unknown> = {};
      if (def.args.length > 0) {
        try {
          args = getArgumentValues(def, fieldNodes[0], this.variables);
        } catch {
          throw new Unusual('argument error');
        }
      }
      planned.push({ prefix: `${planned.length === 0 ? '' : ','}${JSON.stringify(key)}:`, def, nodes: fieldNodes, args });
    }
    plan = { fields: planned, texts: new Map() };
    byType.set(type, plan);
    return plan;
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

  private resolve(parent: GraphQLObjectType, f: PlannedField, source: unknown): unknown {
    const { def } = f;
    if (def === TypeNameMetaFieldDef) return parent.name;
    if (parent === __Schema && def.name === 'types') return this.target.types();
    if (!def.resolve) throw new Unusual(`no resolver for ${def.name}`);
    const info = { schema: this.target.schema, parentType: parent, fieldName: def.name, fieldNodes: f.nodes } as unknown as GraphQLResolveInfo;
    return def.resolve(source, f.args, undefined, info);
  }

  /** Writes an object: `{"key":value,...}` over the planned fields (a named type's text once per selection). */
  private object(type: GraphQLObjectType, nodes: readonly FieldNode[], value: unknown): void {
    const compiled = this.compiler.compileObjectWriter(type, nodes);
    if (compiled) {
      compiled.write(value);
      if (this.out.length >= FLUSH_PIECES) this.flush();
      return;
    }
    const plan = this.plan(type, nodes);
    // A named type (not a list or non-null wrapper) under `__Type`: its text is the same wherever it is referred to.
    const named = type === __Type && !(value instanceof GraphQLList) && !(value instanceof GraphQLNonNull) ? value as GraphQLNamedType : undefined;
    if (named) {
      const have = plan.texts.get(named);
      if (have !== undefined) {
        this.out.push(have);
        return;
      }
    }
    const start = this.out.length;
    const flushes = this.flushes;
    this.out.push('{');
    for (const f of plan.fields) {
      this.out.push(f.prefix);
      this.value(f.def.type, f.nodes, this.resolve(type, f, value));
    }
    this.out.push('}');
    // Small texts (a type reference) are kept for the next use; a whole type is written once.
    if (named && this.flushes === flushes && this.out.length - start <= MEMO_PIECES) {
      const text = this.out.splice(start).join('');
      plan.texts.set(named, text);
      this.out.push(text);
    }
    if (this.out.length >= FLUSH_PIECES) this.flush();
  }

  private value(type: GraphQLOutputType, nodes: readonly FieldNode[], result: unknown): void {
    const shape = shapeOf(type);
    switch (shape.kind) {
      case 'non_null':
        if (result === null || result === undefined) throw new Unusual('null for a non-null field');
        this.value(shape.of, nodes, result);
        return;
      case 'list': {
        if (result === null || result === undefined) {
          this.out.push('null');
          return;
        }
        if (typeof result !== 'object' || !(Symbol.iterator in result)) throw new Unusual('not a list');
        this.out.push('[');
        let first = true;
        for (const item of result as Iterable<unknown>) {
          if (!first) this.out.push(',');
          first = false;
          this.value(shape.of, nodes, item);
        }
        this.out.push(']');
        return;
      }
      case 'leaf': {
        if (result === null || result === undefined) {
          this.out.push('null');
          return;
        }
        const serialized = shape.type.serialize(result);
        if (serialized === null || serialized === undefined) throw new Unusual('leaf not serializable');
        this.out.push(typeof serialized === 'boolean' ? (serialized ? 'true' : 'false') : JSON.stringify(serialized));
        return;
      }
      case 'object':
        if (result === null || result === undefined) this.out.push('null');
        else this.object(shape.type, nodes, result);
        return;
    }
  }

  /**
   * The pieces written so far joined into one flat string: millions of small strings (or a rope of them)
   * would hold several times the answer's size until the end.
   */
  private flush(): void {
    const text = this.out.join('');
    this.chunks.push(this.bytes ? Buffer.from(text, 'utf8') : text);
    this.out = [];
    this.flushes++;
  }

  /** The chunks written since the last call. */
  private take(): Array<string | Buffer> {
    this.flush();
    const chunks = this.chunks;
    this.chunks = [];
    return chunks;
  }

  /** A `__type` (or any other) root field's value. */
  rootValue(type: GraphQLOutputType, nodes: readonly FieldNode[], result: unknown): Array<string | Buffer> {
    this.value(type, nodes, result);
    return this.take();
  }

  /** Makes the fields of the schema's roots that are made one by one (`LazyRootType`), a slice at a time. */
  private async rootFieldsInSlices(): Promise<void> {
    const { schema } = this.target;
    for (const root of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
      if (!(root instanceof LazyRootType)) continue;
      await root.prepareFields(new TurnBudget(SLICE_MS));
      const fields = root.getFields();
      let i = 0;
      for (const name in fields) {
        void fields[name];
        if ((++i & 15) === 0 && performance.now() >= this.deadline) await this.pause();
      }
    }
  }

  /** Lets other work run, then starts the next slice. */
  private async pause(): Promise<void> {
    await new Promise((r) => setImmediate(r));
    this.deadline = performance.now() + SLICE_MS;
  }

  /**
   * One item of a `__schema` list (a type, a directive): as `value` writes it, except that its own lists
   * (a type's fields, input fields, enum values) are written with a yield every `SLICE_MS` too: the root
   * types of 5,000 tables have tens of thousands of fields each.
   */
  private async item(type: GraphQLOutputType, nodes: readonly FieldNode[], value: unknown): Promise<void> {
    const inner = isNonNullType(type) ? type.ofType : type;
    if (!isObjectType(inner) || value === null || value === undefined) {
      this.value(type, nodes, value);
      return;
    }
    const compiled = this.compiler.compileObjectWriter(inner, nodes);
    if (compiled) {
      this.out.push('{');
      for (const f of compiled.fields) {
        this.out.push(f.prefix);
        if (f.write) {
          f.write(value);
          continue;
        }
        const items = f.list!.items(value);
        if (items === null || items === undefined) {
          this.out.push('null');
          continue;
        }
        this.out.push('[');
        for (let i = 0; i < items.length; i++) {
          if (i > 0) this.out.push(',');
          f.list!.item(items[i]);
          if ((i & 15) === 15) {
            if (this.out.length >= FLUSH_PIECES) this.flush();
            if (performance.now() >= this.deadline) await this.pause();
          }
        }
        this.out.push(']');
      }
      this.out.push('}');
      if (this.out.length >= FLUSH_PIECES) this.flush();
      return;
    }
    const plan = this.plan(inner, nodes);
    this.out.push('{');
    for (const f of plan.fields) {
      this.out.push(f.prefix);
      const result = this.resolve(inner, f, value);
      const listType = isNonNullType(f.def.type) ? f.def.type.ofType : f.def.type;
      if (!isListType(listType) || !Array.isArray(result)) {
        this.value(f.def.type, f.nodes, result);
        continue;
      }
      this.out.push('[');
      for (let i = 0; i < result.length; i++) {
        if (i > 0) this.out.push(',');
        this.value(listType.ofType, f.nodes, result[i]);
        if ((i & 63) === 63 && performance.now() >= this.deadline) await this.pause();
      }
      this.out.push(']');
    }
    this.out.push('}');
    if (this.out.length >= FLUSH_PIECES) this.flush();
  }

  /** The `__schema` object, its lists written item by item with a yield every `SLICE_MS`. */
  async schemaObject(nodes: readonly FieldNode[]): Promise<Array<string | Buffer>> {
    const plan = this.plan(__Schema, nodes);
    this.out.push('{');
    this.deadline = performance.now() + SLICE_MS;
    for (const f of plan.fields) {
      const { schema } = this.target;
      if (f.def.name === 'mutationType' || f.def.name === 'types') {
        // A lazy build's mutation root, and (for `types`) its subscription root's fields, each made in a turn
        // of its own, where resolving the field would make them (so their types are made in the same order):
        // at 5,000 tables each is hundreds of ms.
        await this.pause();
        // A lazy build's mutation root made a slice per turn (its entries, their order and the types they make as at once).
        if (schema instanceof LazySchema) await schema.prepareMutation();
        else schema.getMutationType();
        if (f.def.name === 'types') {
          await this.pause();
          // Its entries listed in one turn, its field map made a slice per turn (its fields themselves below).
          const subscription = schema.getSubscriptionType();
          if (subscription instanceof LazyRootType) await subscription.prepareFields(new TurnBudget(SLICE_MS));
          else subscription?.getFields();
        }
        await this.pause();
      }
      const result = this.resolve(__Schema, f, schema);
      // The type order is fixed once `types` is asked for: the root fields can then be made in slices
      // (reading a root's fields makes them all in one turn; tens of thousands at 5,000 tables).
      if (f.def.name === 'types') await this.rootFieldsInSlices();
      this.out.push(f.prefix);
      let type = f.def.type;
      if (isNonNullType(type)) {
        if (result === null || result === undefined) throw new Unusual('null for a non-null field');
        type = type.ofType;
      }
      if (!isListType(type) || result === null || result === undefined) {
        this.value(type, f.nodes, result);
        continue;
      }
      this.out.push('[');
      let i = 0;
      for (const item of result as Iterable<unknown>) {
        if (i++ > 0) this.out.push(',');
        await this.item(type.ofType, f.nodes, item);
        if (performance.now() >= this.deadline) await this.pause();
      }
      this.out.push(']');
    }
    this.out.push('}');
    return this.take();
  }
}

/**
 * The text of each introspection root field of `document` (its one operation holds only `__schema` /
 * `__type` fields), by response key, as `JSON.stringify` of graphql-js's `execute` result would give it;
 * `undefined` when graphql-js should answer (an error, or something this walker does not do).
 */
export async function introspectionText(
  schema: GraphQLSchema, document: DocumentNode, rawVariables: Record<string, unknown>,
): Promise<Map<string, string> | undefined> {
  const chunks = await walk(schema, document, rawVariables, false);
  return chunks && new Map([...chunks].map(([key, parts]) => [key, parts.join('')]));
}

/**
 * `introspectionText`'s answer as UTF-8 chunks (each at most a few hundred kB, in order), by response key;
 * `undefined` when graphql-js should answer.
 */
export async function introspectionBytes(
  schema: GraphQLSchema, document: DocumentNode, rawVariables: Record<string, unknown>,
): Promise<Map<string, Buffer[]> | undefined> {
  return walk(schema, document, rawVariables, true) as Promise<Map<string, Buffer[]> | undefined>;
}

async function walk(
  schema: GraphQLSchema, document: DocumentNode, rawVariables: Record<string, unknown>, bytes: boolean,
): Promise<Map<string, Array<string | Buffer>> | undefined> {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (operations.length !== 1) return undefined;
  const op = operations[0];
  // `__schema` reads every type (a lazy schema's fresh build, walked); `__type` alone reads the schema
  // itself (a type made already is found without making the rest).
  const whole = op.selectionSet.selections.some((s) => s.kind === Kind.FIELD && s.name.value === '__schema');
  const target: IntrospectionSchema = whole ? await introspectionOf(schema) : { schema, types: () => Object.values(schema.getTypeMap()) };
  const query = target.schema.getQueryType();
  if (!query) return undefined;

  const coerced = getVariableValues(target.schema, op.variableDefinitions ?? [], rawVariables);
  if (coerced.errors) return undefined;
  const walker = new Walker(target, document, coerced.coerced, bytes);
  try {
    const roots = new Map<string, FieldNode[]>();
    walker.collectInto(query, op.selectionSet, roots, new Set());
    const out = new Map<string, Array<string | Buffer>>();
    const text = (t: string): Array<string | Buffer> => [bytes ? Buffer.from(t, 'utf8') : t];
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
        out.set(key, walker.rootValue(TypeMetaFieldDef.type, nodes, type));
      } else if (name === '__typename') out.set(key, text(JSON.stringify(query.name)));
      else return undefined;
    }
    return out;
  } catch (e) {
    if (e instanceof Unusual || e instanceof NotCompiled) return undefined;
    throw e;
  }
}

