/**
 * The state shared while one role's schema is built: the schema cache, the role, and a
 * registry of named types so each GraphQL type is made once (tables reference each other
 * through relationships; graphql-js field thunks resolve the cycles). Scalars and enums
 * that every table shares (`Int`, `timestamptz`, `order_by`...) live here too.
 */
import {
  GraphQLBoolean, GraphQLEnumType, GraphQLFloat, GraphQLInt, GraphQLScalarType, GraphQLString,
  type GraphQLFieldConfig, type GraphQLInterfaceType, type GraphQLNamedType,
} from 'graphql';
import { ADMIN_ROLE, qualifiedKey } from '../../core/index.js';
import type { ColumnInfo, SchemaCache, TableInfo } from '../../metadata/index.js';
import { pgScalarName } from '../../core/index.js';
import { enumTypeName } from './names.js';
import { snakeToPascal, withPrefixSuffix } from './namingCase.js';
import { foreignTypeNames } from './foreignTypes.js';
import { selectView, type SelectView } from './roleView.js';

/** A field of an object type being built: `[name, config]`. */
export type FieldEntry = [string, GraphQLFieldConfig<unknown, unknown>];

/** Contributes root fields for one role; returns `[name, field config]` entries. */
export type RootFieldsBuilder = (ctx: SchemaContext) => FieldEntry[];

/** Contributes extra fields to table object types (remote relationships...), for the role's view. */
export type TableFieldsBuilder = (ctx: SchemaContext, table: TableInfo, view: SelectView) => FieldEntry[];

/**
 * What a role schema is made of, besides the tables' own types: the builders of its query and
 * mutation root fields and of extra table fields. graphql/schema's own are in `TABLE_SCHEMA_PARTS`;
 * the engine's whole list (actions too) is assembled in appState.ts (`ENGINE_PARTS`).
 */
export interface SchemaParts {
  readonly query: readonly RootFieldsBuilder[];
  readonly mutation: readonly RootFieldsBuilder[];
  /** Fields only `subscription_root` has (beside every query field): the streaming fields. */
  readonly subscription?: readonly RootFieldsBuilder[];
  readonly tableFields: readonly TableFieldsBuilder[];
  /**
   * The builders run once more for each Postgres source beside `default` (on a context over that
   * source's cache, sharing the named types): the tables' and functions' root fields. Absent: only `default`'s.
   */
  readonly sources?: { readonly query: readonly RootFieldsBuilder[]; readonly mutation: readonly RootFieldsBuilder[]; readonly subscription?: readonly RootFieldsBuilder[] };
  /** The interfaces a table's object type implements (the Relay schema's `Node`); absent → none. */
  readonly tableInterfaces?: (ctx: SchemaContext, table: TableInfo) => GraphQLInterfaceType[];
}

const BUILTINS: Record<string, GraphQLScalarType> = {
  Int: GraphQLInt,
  Float: GraphQLFloat,
  String: GraphQLString,
  Boolean: GraphQLBoolean,
};

export class SchemaContext {
  readonly isAdmin: boolean;

  /**
   * `backendOnly`: the schema of a trusted backend's request (the role's `backend_only` mutations offered).
   * `types`: the named types made so far, shared by the contexts of one schema's sources.
   * `sc` is the cache the types still to be made read: a later cache that keeps the (lazily completed)
   * schema takes its place (`rebind`), so a kept schema does not hold its first cache alive.
   */
  constructor(
    public sc: SchemaCache, readonly role: string, readonly parts: SchemaParts, readonly backendOnly = false,
    private readonly types = new Map<string, GraphQLNamedType>(),
    /** The names of the types made over a source under `graphql-default` (their fields and values are renamed by graphqlCase.ts). */
    readonly graphqlCaseTypes = new Set<string>(),
  ) {
    this.isAdmin = role === ADMIN_ROLE;
  }

  /** A context over another source's cache for the same schema (same role, parts and named types). */
  forSource(sc: SchemaCache): SchemaContext {
    return new SchemaContext(sc, this.role, this.parts, this.backendOnly, this.types, this.graphqlCaseTypes);
  }

  /** Whether the names made over this context's source follow `graphql-default` (its own convention, else the server's). */
  get graphqlCase(): boolean {
    return this.sc.namingConvention === 'graphql-default';
  }

  private foreign?: ReadonlySet<string>;

  /** The final name of a type generated as `name` (see `memo`); `keepCase`: a scalar's, whose case no convention changes. */
  private typeNameOf(name: string, keepCase: boolean): { key: string; renamed: boolean } {
    if (!this.graphqlCase) return { key: this.sourceTypeName(name), renamed: false };
    // Remote schemas' and actions' types (made over `default`) keep the names they were given.
    this.foreign ??= foreignTypeNames(this.sc);
    if (keepCase || this.foreign.has(name) || this.sc.customTypes?.pgScalars.has(name)) return { key: this.sourceTypeName(name), renamed: false };
    return { key: this.sourceTypeName(snakeToPascal(name)), renamed: true };
  }

  /**
   * Makes the types still to be made from `sc`: a cache whose structure and whose permissions of this role
   * are the ones this build started from (schemaShape.ts), so they come out the same.
   */
  rebind(sc: SchemaCache): void {
    this.sc = sc;
  }

  /** The named type `name` when it has been made (`LazySchema.getType`). */
  named(name: string): GraphQLNamedType | undefined {
    return this.types.get(name);
  }

  /**
   * The named type `name` (its `hasura-default` name), made by `make` the first time it is asked for.
   * Over a source under `graphql-default` it is named in PascalCase (`author_bool_exp` → `AuthorBoolExp`;
   * scalars, remote schemas' and actions' types keep their names) and its fields are renamed with the
   * schema (graphqlCase.ts). Over a source with `customization.type_names`, the type is named with that
   * prefix and suffix (its own type, not shared with another source's type of the same table name); a
   * type two sources of different conventions both use (`order_by`, `OrderBy`) is two types.
   */
  memo<T extends GraphQLNamedType>(name: string, make: () => T, keepCase = false): T {
    // The common case, a type named as generated (no naming convention, no type-name prefix or suffix), looked
    // up without working its final name out: a build asks for its shared types hundreds of thousands of times.
    const parts = this.sc.sourceTypeNames;
    if (!this.graphqlCase && (!parts || (parts.prefix === undefined && parts.suffix === undefined))) {
      const have = this.types.get(name);
      if (have) return have as T;
    }
    const { key, renamed } = this.typeNameOf(name, keepCase);
    const have = this.types.get(key);
    if (have) return have as T;
    const made = make();
    // graphql-js keeps the name as a plain property: the type made under its generated name is renamed.
    if (key !== name) (made as { name: string }).name = key;
    this.types.set(key, made);
    if (renamed) this.graphqlCaseTypes.add(key);
    return made;
  }

  /** The final name of a type generated as `name` that is made without `memo` (a Relay connection's edge type). */
  typeName(name: string): string {
    return this.typeNameOf(name, false).key;
  }

  /**
   * `name` with the source's `customization.type_names` prefix and suffix (as Hasura joins them under the
   * source's convention: withPrefixSuffix), as given when it has none.
   */
  sourceTypeName(name: string): string {
    return withPrefixSuffix(name, this.sc.sourceTypeNames, this.graphqlCase);
  }

  /** Every named type made so far (graphql-js also finds them by walking the roots). */
  allTypes(): GraphQLNamedType[] {
    return [...this.types.values()];
  }

  view(table: TableInfo): SelectView | null {
    return selectView(this.sc, this.role, table);
  }

  tableByName(q: { schema: string; name: string }): TableInfo | undefined {
    return this.sc.tables.get(qualifiedKey(q));
  }

  /**
   * The GraphQL scalar for a Postgres type: a built-in, or a custom scalar named after it. A
   * Postgres enum's scalar carries its labels (`extensions.svc.pgEnumLabels`) for input checks.
   */
  scalar(pgType: string): GraphQLScalarType {
    const name = pgScalarName(pgType);
    const builtin = BUILTINS[name];
    if (builtin) return builtin;
    return this.memo(name, () => {
      const labels = this.pgEnumLabels().get(pgType);
      return new GraphQLScalarType({ name, extensions: labels ? { svc: { pgEnumLabels: [...labels] } } : undefined });
    }, true);
  }

  private enumLabels?: Map<string, readonly string[]>;

  /** Postgres enum type → its labels, from the columns of the tracked tables (for any use of the type). */
  private pgEnumLabels(): Map<string, readonly string[]> {
    if (!this.enumLabels) {
      this.enumLabels = new Map();
      for (const t of this.sc.tables.values()) {
        for (const c of t.columns) if (c.enumLabels) this.enumLabels.set(c.pgType, c.enumLabels);
      }
    }
    return this.enumLabels;
  }

  /** The enum of an enum table (`<table>_enum`), when the column references one that has values. */
  enumOf(column: ColumnInfo): GraphQLEnumType | undefined {
    if (!column.enumTable) return undefined;
    const et = this.tableByName(column.enumTable);
    if (!et || !et.enumValues || et.enumValues.length === 0) return undefined;
    return this.memo(enumTypeName(et.gqlName), () => new GraphQLEnumType({
      name: enumTypeName(et.gqlName),
      description: et.description ?? undefined,
      values: Object.fromEntries(
        [...et.enumValues!].sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
          .map((v) => [v.value, { value: v.value, description: v.comment ?? undefined }]),
      ),
    }));
  }

  /** A column's GraphQL type without nullability: its enum type or its scalar. */
  columnType(column: ColumnInfo): GraphQLScalarType | GraphQLEnumType {
    return this.enumOf(column) ?? this.scalar(column.pgType);
  }

  /** `order_by`: the six ordering options. */
  orderByEnum(): GraphQLEnumType {
    return this.memo('order_by', () => new GraphQLEnumType({
      name: 'order_by',
      description: 'column ordering options',
      values: {
        asc: { value: 'asc', description: 'in the ascending order, nulls last' },
        asc_nulls_first: { value: 'asc_nulls_first', description: 'in the ascending order, nulls first' },
        asc_nulls_last: { value: 'asc_nulls_last', description: 'in the ascending order, nulls last' },
        desc: { value: 'desc', description: 'in the descending order, nulls first' },
        desc_nulls_first: { value: 'desc_nulls_first', description: 'in the descending order, nulls first' },
        desc_nulls_last: { value: 'desc_nulls_last', description: 'in the descending order, nulls last' },
      },
    }));
  }
}
