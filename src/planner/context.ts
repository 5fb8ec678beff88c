/**
 * State of one planning run: the schema cache and role, the numeric-stringify option, and what
 * the plan records about variables: which variables were baked into it as constants (their
 * values become part of the plan-cache key) and which must be re-checked on every execution.
 */
import type { ColumnInfo, SchemaCache, TableInfo } from '../metadata/index.js';
import { selectView, vf, type AnnValue, type SelectView } from '../graphql/index.js';
import { andAll, type BoolExp, type ColumnRef, type IrValue, type MaskedRow, type RelationshipJoin, type ValueSource } from '../ir/index.js';

/** A check that runs before each execution of a cached plan (on a variable's value). */
export interface RuntimeCheck {
  kind: 'limit' | 'offset';
  variable: string;
  path: Array<string | number>;
  /** Error path (`$.selectionSet.article.args.limit`). */
  errorPath: string;
}

export class PlanContext {
  /** Variables whose values the plan depends on as constants. */
  readonly staticVars = new Set<string>();
  readonly checks: RuntimeCheck[] = [];
  /** Remote relationships planned so far (a root field with any is run by the remote-join executor). */
  remoteJoins = 0;

  /** `backendOnly`: planning for a trusted backend's request (the role's `backend_only` mutations allowed). */
  constructor(readonly cache: SchemaCache, readonly role: string, readonly stringifyNumeric: boolean, readonly backendOnly = false) {}

  /**
   * The context of a root field of another source: the same planning run (variables baked, checks,
   * remote relationships counted here) over that source's cache.
   */
  forSource(cache: SchemaCache): PlanContext {
    const child = new PlanContext(cache, this.role, this.stringifyNumeric, this.backendOnly);
    const parent = this as PlanContext;
    Object.defineProperty(child, 'staticVars', { value: parent.staticVars });
    Object.defineProperty(child, 'checks', { value: parent.checks });
    Object.defineProperty(child, 'remoteJoins', { get: () => parent.remoteJoins, set: (n: number) => { parent.remoteJoins = n; } });
    return child;
  }

  /** The context over source `name`'s cache (a relationship's target), in this planning run. */
  onSource(name: string, path: string): PlanContext {
    const sc = this.cache.sourceCaches?.get(name);
    if (!sc) throw vf(`source ${JSON.stringify(name)} is not available`, path);
    return sc === this.cache ? this : this.forSource(sc);
  }

  /** The role's select view of `table` (the schema only offers fields of tables that have one). */
  view(table: TableInfo, path: string): SelectView {
    const v = selectView(this.cache, this.role, table);
    if (!v) throw vf(`no select permission on table "${table.gqlName}"`, path);
    return v;
  }

  /**
   * Inherited roles: the rows where the role sees `column` of `table` (other rows read null);
   * undefined when it sees it wherever it sees the row (every other role).
   */
  columnCondition(table: TableInfo, column: string): BoolExp | undefined {
    return table.permissions.get(this.role)?.select?.columnConditions?.get(column);
  }

  /** A column of `table` as the role sees it in a comparison (null where an inherited role does not see it). */
  columnRef(table: TableInfo, column: ColumnInfo): ColumnRef {
    const visibleIf = this.columnCondition(table, column.name);
    return visibleIf ? { column: column.name, pgType: column.pgType, visibleIf } : { column: column.name, pgType: column.pgType };
  }

  /**
   * Inherited roles: `join` (from a row of `local` to rows of `remote`) with the conditions under
   * which the role sees its join columns on either side, so that a hidden join column reads as
   * null and joins nothing; `join` itself when the role sees them on every row it sees.
   */
  join(local: TableInfo, remote: TableInfo, join: RelationshipJoin): RelationshipJoin {
    const l = this.columnsCondition(local, join.mapping.map((m) => m.local));
    const r = this.columnsCondition(remote, join.mapping.map((m) => m.remote));
    if (!l && !r) return join;
    const visibleIf: NonNullable<RelationshipJoin['visibleIf']> = {};
    if (l) visibleIf.local = l;
    if (r) visibleIf.remote = r;
    return { ...join, visibleIf };
  }

  /** Inherited roles: the rows where the role sees every one of `columns` of `table`; undefined when it sees them wherever it sees the row. */
  columnsCondition(table: TableInfo, columns: readonly string[]): BoolExp | undefined {
    const conds = columns.flatMap((c) => {
      const cond = this.columnCondition(table, c);
      return cond ? [cond] : [];
    });
    return conds.length > 0 ? andAll(conds) : undefined;
  }

  /**
   * Inherited roles: the row of `table` a computed field's function receives, with every column
   * the role sees only in some rows null in the others; undefined when the role has no such column.
   */
  maskedRow(table: TableInfo): MaskedRow | undefined {
    const conditions = table.permissions.get(this.role)?.select?.columnConditions;
    if (!conditions || conditions.size === 0) return undefined;
    const columns = [...table.columns].sort((a, b) => a.position - b.position).map((c) => {
      const visibleIf = conditions.get(c.name);
      return visibleIf ? { column: c.name, visibleIf } : { column: c.name };
    });
    return { table: table.name, columns };
  }

  /** Records that the value of `v` (if it came from a variable) is baked into the plan. */
  bake(v: AnnValue | undefined): void {
    if (v?.variable) this.staticVars.add(v.variable.name);
    if (v?.kind === 'list') v.items.forEach((i) => this.bake(i));
    if (v?.kind === 'object') v.fields.forEach(([, f]) => this.bake(f));
  }
}

/** An IR value for a validated scalar/enum: a variable reference when it came from one, else a literal. */
export function irValue(v: AnnValue, pgType: string): IrValue {
  return { source: valueSource(v), pgType };
}

export function valueSource(v: AnnValue): ValueSource {
  // An enum value named apart from its value (`SUNDAY` for 'sunday' under graphql-default) is
  // taken by value: the variable holds the name. Enum values are part of the plan key.
  if (v.variable && !renamedEnum(v)) return { kind: 'variable', name: v.variable.name, path: v.variable.path };
  return { kind: 'value', value: plainValue(v) };
}

const renamedEnum = (v: AnnValue): boolean => v.kind === 'enum' && v.name !== v.value;

/** The JS value of a validated input (enums by internal value). */
export function plainValue(v: AnnValue): unknown {
  switch (v.kind) {
    case 'null': return null;
    case 'scalar': return v.value;
    case 'enum': return v.value;
    case 'list': return v.items.map(plainValue);
    case 'object': return Object.fromEntries(v.fields.map(([k, f]) => [k, plainValue(f)]));
  }
}

/**
 * The type a parameter compared with `column` is cast to: the udt name, schema-qualified when
 * the type lives outside pg_catalog (domains such as `information_schema.sql_identifier`,
 * extension types, enums), so the cast resolves whatever the search_path.
 */
export function columnValueType(column: ColumnInfo): string {
  return column.pgTypeSchema && column.pgTypeSchema !== 'pg_catalog' ? `${column.pgTypeSchema}.${column.pgType}` : column.pgType;
}

/** An array parameter for `_in`/`_nin`-like operators: one parameter for the whole list. */
export function listValue(ctx: PlanContext, v: AnnValue & { kind: 'list' }, pgType: string): IrValue {
  const arrayType = pgType.startsWith('_') || pgType.includes('.') ? `${pgType}[]` : `_${pgType}`;
  const wholeVariable = v.variable && v.items.every((i) => i.variable?.name === v.variable!.name && i.variable.path.length === v.variable!.path.length + 1 && !renamedEnum(i));
  if (wholeVariable) return { source: { kind: 'variable', name: v.variable!.name, path: v.variable!.path }, pgType: arrayType };
  ctx.bake(v);
  return { source: { kind: 'value', value: v.items.map(plainValue) }, pgType: arrayType };
}
