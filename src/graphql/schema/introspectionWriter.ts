/**
 * Writers of the introspection objects (`__Type`, `__Field`, `__InputValue`, `__EnumValue`) compiled once
 * per planned selection: each selected field is a function that reads the graphql-js definition directly
 * (what graphql-js's own resolver of that field reads, with the same semantics) and pushes its JSON text,
 * with no resolver call, resolve info, argument object, filtered copy of a list or leaf serialization per
 * value. Names and descriptions are quoted once per distinct string; a type reference (`type`, `ofType`: a
 * selection without lists) is written once per named type and wrapping and then repeated as one piece.
 *
 * `compileObjectWriter` gives `undefined` for a selection it does not know (another field, an argument
 * other than `includeDeprecated`): the walker then writes that object through graphql-js's resolvers.
 */
import {
  GraphQLEnumType, GraphQLInputObjectType, GraphQLInterfaceType, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLScalarType,
  GraphQLUnionType, TypeNameMetaFieldDef, __EnumValue, __Field, __InputValue, __Type, astFromValue, print,
  type FieldNode, type GraphQLEnumValue, type GraphQLField, type GraphQLInputField, type GraphQLArgument, type GraphQLNamedType,
  type GraphQLSchema, type GraphQLType,
} from 'graphql';

/** One planned field of a selection (the walker's plan): its `"key":` prefix, definition, nodes and arguments. */
export interface WriterField {
  prefix: string;
  def: GraphQLField<unknown, unknown>;
  nodes: FieldNode[];
  args: Record<string, unknown>;
}

/** Where compiled writers put their pieces, and how they find the plan of a nested selection. */
export interface WriterSink {
  out: string[];
  readonly schema: GraphQLSchema;
  planFields(type: GraphQLObjectType, nodes: readonly FieldNode[]): readonly WriterField[];
}

/** A field of a compiled object: its prefix, and either a writer of its value or (a list) its items and their writer. */
export interface CompiledField {
  prefix: string;
  write?: (value: unknown) => void;
  list?: { items: (value: unknown) => readonly unknown[] | null | undefined; item: (value: unknown) => void };
}

/** A compiled object writer: `write` gives `{...}`; `fields` lets a caller write the lists itself (yielding between items). */
export interface ObjectWriter {
  fields: readonly CompiledField[];
  write(value: unknown): void;
  /** A `__Type` selection of `kind`, `name`, `__typename` and `ofType` (so selected) only: its text is its named type's name in a template. */
  nameOnly: boolean;
}

/** A string written between quotes as it is (no character JSON escapes). */
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/** What a type reference's template holds where the named type's name goes (JSON text never has it raw). */
const SENTINEL = '\u0000';

/** Something this writer does not do: the walker's generic path writes it. */
export class NotCompiled extends Error {}

/** The thrown `Unusual` of the walker (a null for a non-null field): graphql-js answers the document. */
export type Fail = (why: string) => never;

const KINDS = {
  SCALAR: '"SCALAR"', OBJECT: '"OBJECT"', INTERFACE: '"INTERFACE"', UNION: '"UNION"', ENUM: '"ENUM"',
  INPUT_OBJECT: '"INPUT_OBJECT"', LIST: '"LIST"', NON_NULL: '"NON_NULL"',
} as const;

/** The kind of a named type as a small number (a template's key). */
function kindIndex(t: GraphQLType): number {
  if (t instanceof GraphQLScalarType) return 0;
  if (t instanceof GraphQLObjectType) return 1;
  if (t instanceof GraphQLInterfaceType) return 2;
  if (t instanceof GraphQLUnionType) return 3;
  if (t instanceof GraphQLEnumType) return 4;
  if (t instanceof GraphQLInputObjectType) return 5;
  throw new NotCompiled('unknown type');
}

function kindText(t: GraphQLType): string {
  if (t instanceof GraphQLScalarType) return KINDS.SCALAR;
  if (t instanceof GraphQLObjectType) return KINDS.OBJECT;
  if (t instanceof GraphQLInterfaceType) return KINDS.INTERFACE;
  if (t instanceof GraphQLUnionType) return KINDS.UNION;
  if (t instanceof GraphQLEnumType) return KINDS.ENUM;
  if (t instanceof GraphQLInputObjectType) return KINDS.INPUT_OBJECT;
  if (t instanceof GraphQLList) return KINDS.LIST;
  if (t instanceof GraphQLNonNull) return KINDS.NON_NULL;
  throw new NotCompiled('unknown type');
}

const isWrapper = (t: GraphQLType): t is GraphQLList<GraphQLType> | GraphQLNonNull<GraphQLType> =>
  t instanceof GraphQLNonNull || t instanceof GraphQLList;

/** A deprecation filter as graphql-js's resolvers apply it (`includeDeprecated` false: without the deprecated). */
function undeprecated<T extends { deprecationReason?: string | null }>(list: readonly T[]): readonly T[] {
  for (let i = 0; i < list.length; i++) {
    if (list[i].deprecationReason != null) return list.filter((x) => x.deprecationReason == null);
  }
  return list;
}

/** Compiles writers for one answer: quoted strings and compiled selections are shared by all its objects. */
export class WriterCompiler {
  private readonly compiled = new WeakMap<readonly WriterField[], ObjectWriter | null>();

  constructor(private readonly sink: WriterSink, private readonly fail: Fail) {}

  /** Set while a type reference's template is written: a named type's name is then `SENTINEL`. */
  private templating = false;

  /** Pushes a nullable String leaf's JSON: quotes around it when it needs no escapes (names, most descriptions). */
  private str(v: unknown): void {
    const out = this.sink.out;
    if (v === null || v === undefined) out.push('null');
    else if (typeof v !== 'string') throw new NotCompiled('a string leaf that is not a string');
    else if (PLAIN.test(v)) out.push('"', v, '"');
    else out.push(JSON.stringify(v));
  }

  /** Pushes a non-null String leaf. */
  private name(v: unknown): void {
    if (v === null || v === undefined) this.fail('null for a non-null field');
    this.str(v);
  }

  /** The writer of the selection `nodes` on `type`, or `undefined` when it selects what this does not compile. */
  compileObjectWriter(type: GraphQLObjectType, nodes: readonly FieldNode[]): ObjectWriter | undefined {
    const planned = this.sink.planFields(type, nodes);
    const have = this.compiled.get(planned);
    if (have !== undefined) return have ?? undefined;
    let writer: ObjectWriter | null;
    try {
      writer = this.compile(type, planned);
    } catch (e) {
      if (!(e instanceof NotCompiled)) throw e;
      writer = null;
    }
    this.compiled.set(planned, writer);
    return writer ?? undefined;
  }

  private compile(type: GraphQLObjectType, planned: readonly WriterField[]): ObjectWriter {
    const fields: CompiledField[] = [];
    for (const f of planned) fields.push(this.field(type, f));
    const sink = this.sink;
    const writeAll = (value: unknown): void => {
      sink.out.push('{');
      for (const f of fields) {
        sink.out.push(f.prefix);
        if (f.write) f.write(value);
        else {
          const items = f.list!.items(value);
          if (items === null || items === undefined) sink.out.push('null');
          else {
            sink.out.push('[');
            for (let i = 0; i < items.length; i++) {
              if (i > 0) sink.out.push(',');
              f.list!.item(items[i]);
            }
            sink.out.push(']');
          }
        }
      }
      sink.out.push('}');
    };
    const refLike = type === __Type && fields.every((f) => !f.list);
    const nameOnly = refLike && planned.every((f) => {
      if (f.def === TypeNameMetaFieldDef || f.def.name === 'kind' || f.def.name === 'name') return true;
      return f.def.name === 'ofType' && this.compileObjectWriter(__Type, f.nodes)?.nameOnly === true;
    });
    const write = nameOnly ? this.templated(writeAll) : refLike ? this.memoised(writeAll) : writeAll;
    return { fields, write, nameOnly };
  }

  /**
   * A type reference whose text is its named type's name in a template per kind and wrapping (the standard
   * `TypeRef`): the template is written once with `SENTINEL` for the name, then each reference is its
   * pieces with the name between them: nothing kept per type.
   */
  private templated(writeAll: (value: unknown) => void): (value: unknown) => void {
    const templates = new Map<number, string[]>();
    const sink = this.sink;
    return (value) => {
      const wrapping = wrappingOf(value);
      const t = unwrappedType;
      const key = wrapping * 8 + kindIndex(t);
      let parts = templates.get(key);
      if (parts === undefined) {
        const templating = this.templating;
        this.templating = true;
        try {
          parts = this.captured(writeAll, value).split(SENTINEL);
        } finally {
          this.templating = templating;
        }
        templates.set(key, parts);
      }
      const name = this.templating ? SENTINEL : (t as GraphQLNamedType).name;
      if (!this.templating && !PLAIN.test(name)) throw new NotCompiled('a type name JSON escapes');
      sink.out.push(parts[0]);
      for (let i = 1; i < parts.length; i++) sink.out.push(name, parts[i]);
    };
  }

  /**
   * A `__Type` writer without lists (a type reference) whose text is kept per named type and wrapping: the
   * same reference (`[author!]!`) is written once, then pushed as one piece.
   */
  private memoised(writeAll: (value: unknown) => void): (value: unknown) => void {
    const texts = new Map<GraphQLType, Map<number, string>>();
    const sink = this.sink;
    return (value) => {
      const wrapping = wrappingOf(value);
      const t = unwrappedType;
      let byWrapping = texts.get(t);
      if (!byWrapping) texts.set(t, (byWrapping = new Map()));
      let text = byWrapping.get(wrapping);
      if (text === undefined) {
        text = this.captured(writeAll, value);
        byWrapping.set(wrapping, text);
      }
      sink.out.push(text);
    };
  }

  /** What `writeAll(value)` writes, as one string, instead of into the answer. */
  private captured(writeAll: (value: unknown) => void, value: unknown): string {
    const sink = this.sink;
    const out = sink.out;
    sink.out = [];
    try {
      writeAll(value);
      return sink.out.join('');
    } finally {
      sink.out = out;
    }
  }

  /** A nested object (non-null or nullable) under the field `f`, its selection compiled now (or this one is not). */
  private nested(of: GraphQLObjectType, f: WriterField, nonNull: boolean): (value: unknown) => void {
    const writer = this.compileObjectWriter(of, f.nodes);
    if (!writer) throw new NotCompiled('nested selection');
    const sink = this.sink;
    return (value) => {
      if (value === null || value === undefined) {
        if (nonNull) this.fail('null for a non-null field');
        sink.out.push('null');
        return;
      }
      writer.write(value);
    };
  }

  /** A list of non-null objects of `of` under `f`: its items read by `items`. */
  private listOf(of: GraphQLObjectType, f: WriterField, items: (value: unknown) => readonly unknown[] | null | undefined): CompiledField {
    const item = this.nested(of, f, true);
    return { prefix: f.prefix, list: { items, item } };
  }

  private includeDeprecated(f: WriterField): boolean {
    for (const k in f.args) if (k !== 'includeDeprecated') throw new NotCompiled(`argument ${k}`);
    const v = f.args.includeDeprecated;
    // graphql-js's resolvers test it for truth.
    return Boolean(v);
  }

  private leaf(f: WriterField, text: (value: unknown) => string): CompiledField {
    const sink = this.sink;
    return { prefix: f.prefix, write: (value) => { sink.out.push(text(value)); } };
  }

  private pushing(f: WriterField, write: (value: unknown) => void): CompiledField {
    return { prefix: f.prefix, write };
  }

  private field(parent: GraphQLObjectType, f: WriterField): CompiledField {
    if (f.def === TypeNameMetaFieldDef) {
      const text = JSON.stringify(parent.name);
      return this.leaf(f, () => text);
    }
    if (f.def !== parent.getFields()[f.def.name]) throw new NotCompiled('a field of another type');
    const noArgs = (): void => { for (const k in f.args) throw new NotCompiled(`argument ${k}`); };
    const name = f.def.name;
    const deprecation = (): CompiledField | undefined => {
      if (name === 'isDeprecated') return this.leaf(f, (v) => ((v as { deprecationReason?: unknown }).deprecationReason != null ? 'true' : 'false'));
      if (name === 'deprecationReason') return this.pushing(f, (v) => this.str((v as { deprecationReason?: unknown }).deprecationReason));
      return undefined;
    };
    if (parent === __Type) {
      switch (name) {
        case 'kind': noArgs(); return this.leaf(f, (t) => kindText(t as GraphQLType));
        case 'name':
          noArgs();
          return this.pushing(f, (t) => {
            if (isWrapper(t as GraphQLType)) this.sink.out.push('null');
            else if (this.templating) this.sink.out.push('"', SENTINEL, '"');
            else this.str((t as GraphQLNamedType).name);
          });
        case 'description': noArgs(); return this.pushing(f, (t) => this.str(isWrapper(t as GraphQLType) ? undefined : (t as GraphQLNamedType).description));
        case 'specifiedByURL': noArgs(); return this.pushing(f, (t) => this.str(t instanceof GraphQLScalarType ? t.specifiedByURL : undefined));
        case 'isOneOf': noArgs(); return this.leaf(f, (t) => (t instanceof GraphQLInputObjectType ? boolText(t.isOneOf) : 'null'));
        case 'ofType': {
          noArgs();
          const write = this.nested(__Type, f, false);
          return { prefix: f.prefix, write: (t) => write(isWrapper(t as GraphQLType) ? (t as GraphQLNonNull<GraphQLType>).ofType : undefined) };
        }
        case 'fields': {
          const all = this.includeDeprecated(f);
          return this.listOf(__Field, f, (t) => {
            if (!(t instanceof GraphQLObjectType) && !(t instanceof GraphQLInterfaceType)) return undefined;
            const list = Object.values(t.getFields());
            return all ? list : undeprecated(list);
          });
        }
        case 'interfaces':
          noArgs();
          return this.listOf(__Type, f, (t) => (t instanceof GraphQLObjectType || t instanceof GraphQLInterfaceType ? t.getInterfaces() : undefined));
        case 'possibleTypes':
          noArgs();
          return this.listOf(__Type, f, (t) => (t instanceof GraphQLInterfaceType || t instanceof GraphQLUnionType ? this.sink.schema.getPossibleTypes(t) : undefined));
        case 'enumValues': {
          const all = this.includeDeprecated(f);
          return this.listOf(__EnumValue, f, (t) => (t instanceof GraphQLEnumType ? (all ? t.getValues() : undeprecated(t.getValues())) : undefined));
        }
        case 'inputFields': {
          const all = this.includeDeprecated(f);
          return this.listOf(__InputValue, f, (t) => {
            if (!(t instanceof GraphQLInputObjectType)) return undefined;
            const list = Object.values(t.getFields());
            return all ? list : undeprecated(list);
          });
        }
      }
    } else if (parent === __Field) {
      switch (name) {
        case 'name': noArgs(); return this.pushing(f, (v) => this.name((v as GraphQLField<unknown, unknown>).name));
        case 'description': noArgs(); return this.pushing(f, (v) => this.str((v as GraphQLField<unknown, unknown>).description));
        case 'type': noArgs(); return { prefix: f.prefix, write: this.typeOf(f) };
        case 'args': {
          const all = this.includeDeprecated(f);
          const listed = this.listOf(__InputValue, f, (v) => {
            const args = (v as GraphQLField<unknown, unknown>).args;
            return all ? args : undeprecated(args);
          });
          return listed;
        }
      }
      const d = deprecation();
      if (d) { noArgs(); return d; }
    } else if (parent === __InputValue) {
      switch (name) {
        case 'name': noArgs(); return this.pushing(f, (v) => this.name((v as GraphQLArgument).name));
        case 'description': noArgs(); return this.pushing(f, (v) => this.str((v as GraphQLArgument).description));
        case 'type': noArgs(); return { prefix: f.prefix, write: this.typeOf(f) };
        case 'defaultValue':
          noArgs();
          return this.leaf(f, (v) => {
            const { type, defaultValue } = v as GraphQLArgument | GraphQLInputField;
            if (defaultValue === undefined) return 'null';
            const ast = astFromValue(defaultValue, type);
            return ast ? JSON.stringify(print(ast)) : 'null';
          });
      }
      const d = deprecation();
      if (d) { noArgs(); return d; }
    } else if (parent === __EnumValue) {
      switch (name) {
        case 'name': noArgs(); return this.pushing(f, (v) => this.name((v as GraphQLEnumValue).name));
        case 'description': noArgs(); return this.pushing(f, (v) => this.str((v as GraphQLEnumValue).description));
      }
      const d = deprecation();
      if (d) { noArgs(); return d; }
    }
    throw new NotCompiled(`${parent.name}.${name}`);
  }

  /** A non-null `type` field (of `__Field`, `__InputValue`): its value is the definition's `type`. */
  private typeOf(f: WriterField): (value: unknown) => void {
    const write = this.nested(__Type, f, true);
    return (v) => write((v as { type: GraphQLType }).type);
  }
}

function boolText(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v !== 'boolean') throw new NotCompiled('a boolean leaf that is not a boolean');
  return v ? 'true' : 'false';
}

/** The named type under the reference `wrappingOf` last read (kept here: no object made per reference). */
let unwrappedType: GraphQLType;

/** A type reference's wrapping as one number (1, then ×3 + 1 per NON_NULL, + 2 per LIST); its named type in `unwrappedType`. */
function wrappingOf(value: unknown): number {
  let t = value as GraphQLType;
  let wrapping = 1;
  while (isWrapper(t)) {
    wrapping = wrapping * 3 + (t instanceof GraphQLNonNull ? 1 : 2);
    t = t.ofType;
  }
  unwrappedType = t;
  return wrapping;
}
