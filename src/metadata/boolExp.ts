/**
 * Hasura's JSON boolean expression (permission `filter`/`check`, v1 DML `where`) → IR `BoolExp`,
 * resolved against a table of the schema cache (relationships are followed into their remote
 * tables). Also reports what the expression depends on (columns, relationships, tables), which the
 * schema cache keeps for `run_sql`'s dependency checks.
 *
 *   parseBoolExp({"author": {"id": {"_eq": "X-Svc-User-Id"}}}, articleInfo, {tables, mode: 'permission'}, '$')
 *     → {kind:'exists_rel', rel, where: {kind:'compare', op:'_eq', value: {source:{kind:'session', name:'x-svc-user-id'}, pgType:'int4'}}}
 *
 * `_exists: {_table, _where}` becomes an `exists_rel` whose join has no column pairs.
 * In `permission` mode a string naming a session variable (`x-svc-*`, any case) becomes a session
 * reference; in `dml` mode every value is a literal.
 */
import { ApiError, isSessionVariable, parseQualifiedName, sessionVariableName, pathKey, qualifiedKey } from '../core/index.js';
import type { QualifiedTable } from '../core/index.js';
import type { BoolExp, ColumnComparisonOp, ColumnRef, ComparisonOp, IrValue } from '../ir/index.js';
import type { ColumnInfo, ComputedFieldInfo, TableInfo } from './schemaCache/types.js';
import { isObject, jsonTypeName } from './model/json.js';

export type BoolExpMode = 'permission' | 'dml';

/** What a comparison needs of its left side: a column, or a scalar computed field. */
type Compared = Pick<ColumnInfo, 'name' | 'pgType' | 'pgTypeSchema'>;

/** Something the expression needs to exist: a column (compared with a typed value), a relationship, a table. */
export type BoolExpDependency =
  | { kind: 'column'; table: QualifiedTable; column: string }
  | { kind: 'relationship'; table: QualifiedTable; name: string }
  | { kind: 'computed_field'; table: QualifiedTable; name: string }
  | { kind: 'table'; table: QualifiedTable };

export interface BoolExpContext {
  /** Consistent tables of the cache being built (or the live one), keyed by `schema.name`. */
  tables: ReadonlyMap<string, TableInfo>;
  mode: BoolExpMode;
}

export interface ParsedBoolExp {
  exp: BoolExp;
  dependencies: BoolExpDependency[];
}

const OPS: Record<string, ComparisonOp> = {
  _eq: '_eq', $eq: '_eq',
  _ne: '_neq', $ne: '_neq', _neq: '_neq', $neq: '_neq',
  _gt: '_gt', $gt: '_gt', _lt: '_lt', $lt: '_lt', _gte: '_gte', $gte: '_gte', _lte: '_lte', $lte: '_lte',
  _in: '_in', $in: '_in', _nin: '_nin', $nin: '_nin',
  _like: '_like', $like: '_like', _nlike: '_nlike', $nlike: '_nlike',
  _ilike: '_ilike', $ilike: '_ilike', _nilike: '_nilike', $nilike: '_nilike',
  _similar: '_similar', $similar: '_similar', _nsimilar: '_nsimilar', $nsimilar: '_nsimilar',
  _contains: '_contains', $contains: '_contains', _contained_in: '_contained_in', $contained_in: '_contained_in',
  _has_key: '_has_key', $has_key: '_has_key', _has_keys_any: '_has_keys_any', $has_keys_any: '_has_keys_any',
  _has_keys_all: '_has_keys_all', $has_keys_all: '_has_keys_all',
};

const COLUMN_OPS: Record<string, ColumnComparisonOp> = {
  _ceq: '_ceq', $ceq: '_ceq', _cne: '_cne', $cne: '_cne', _cneq: '_cne', $cneq: '_cne',
  _cgt: '_cgt', $cgt: '_cgt', _clt: '_clt', $clt: '_clt', _cge: '_cge', $cge: '_cge', _cgte: '_cge', $cgte: '_cge',
  _cle: '_cle', $cle: '_cle', _clte: '_cle', $clte: '_cle',
};

const STRING_TYPES = ['varchar', 'text', 'citext', 'bpchar', 'name'];
const STRING_OPS = new Set<ComparisonOp>(['_like', '_nlike', '_ilike', '_nilike', '_similar', '_nsimilar']);
const JSONB_OPS = new Set<ComparisonOp>(['_contains', '_contained_in', '_has_key', '_has_keys_any', '_has_keys_all']);

const unexpected = (message: string, path: string) => new ApiError('unexpected-payload', message, { path });

/** The type a value compared with `col` is cast to (schema-qualified outside pg_catalog/public). */
export function castTypeOf(col: Pick<ColumnInfo, 'pgType' | 'pgTypeSchema'>, arrayOf = false): string {
  const name = arrayOf ? `_${col.pgType.replace(/^_/, '')}` : col.pgType;
  const base = arrayOf && col.pgType.startsWith('_') ? col.pgType : name;
  return col.pgTypeSchema === 'pg_catalog' || col.pgTypeSchema === 'public' || !col.pgTypeSchema ? base : `${col.pgTypeSchema}.${base}`;
}

/** Parses `json` against `table`; throws ApiError (path-annotated) when it does not fit. */
export function parseBoolExp(json: unknown, table: TableInfo, ctx: BoolExpContext, path = '$'): ParsedBoolExp {
  const deps: BoolExpDependency[] = [];
  const exp = new Parser(ctx, deps).object(json, table, table, path);
  return { exp, dependencies: deps };
}

class Parser {
  constructor(
    private readonly ctx: BoolExpContext,
    private readonly deps: BoolExpDependency[],
  ) {}

  object(json: unknown, table: TableInfo, root: TableInfo, path: string): BoolExp {
    if (!isObject(json)) throw new ApiError('parse-failed', `expected Object, encountered ${jsonTypeName(json)}`, { path });
    const items: BoolExp[] = [];
    for (const [key, value] of Object.entries(json)) {
      const p = pathKey(path, key);
      if (key === '_and' || key === '$and') items.push({ kind: 'and', items: this.list(value, table, root, p) });
      else if (key === '_or' || key === '$or') items.push({ kind: 'or', items: this.list(value, table, root, p) });
      else if (key === '_not' || key === '$not') items.push({ kind: 'not', item: this.object(value, table, root, p) });
      else if (key === '_exists' || key === '$exists') items.push(this.exists(value, root, p));
      else items.push(this.field(key, value, table, root, p));
    }
    if (items.length === 0) return { kind: 'true' };
    return items.length === 1 ? items[0] : { kind: 'and', items };
  }

  private list(json: unknown, table: TableInfo, root: TableInfo, path: string): BoolExp[] {
    if (!Array.isArray(json)) throw new ApiError('parse-failed', `expected Array, encountered ${jsonTypeName(json)}`, { path });
    return json.map((x, i) => this.object(x, table, root, pathKey(path, i)));
  }

  private exists(json: unknown, root: TableInfo, path: string): BoolExp {
    if (!isObject(json)) throw new ApiError('parse-failed', `expected Object, encountered ${jsonTypeName(json)}`, { path });
    if (!('_table' in json)) throw new ApiError('parse-failed', 'key "_table" not found', { path });
    if (!('_where' in json)) throw new ApiError('parse-failed', 'key "_where" not found', { path });
    const name = parseQualifiedName(json._table, pathKey(path, '_table'));
    const target = this.ctx.tables.get(qualifiedKey(name));
    if (!target) throw new ApiError('not-exists', `table ${JSON.stringify(display(name))} does not exist`, { path: pathKey(path, '_table') });
    this.deps.push({ kind: 'table', table: name });
    // `_exists` is a relationship with no join condition: EXISTS (SELECT 1 FROM t WHERE _where).
    // Inside it the root for `["$", col]` comparisons stays the outer root.
    const where = this.object(json._where, target, root, pathKey(path, '_where'));
    return { kind: 'exists_rel', rel: { remoteTable: name, mapping: [] }, where };
  }

  private field(name: string, value: unknown, table: TableInfo, root: TableInfo, path: string): BoolExp {
    const column = table.columnsByName.get(name);
    if (column) return this.columnExp(column, value, table, root, path);
    const rel = table.relationships.get(name);
    if (rel) {
      const remote = this.ctx.tables.get(qualifiedKey(rel.join.remoteTable));
      if (!remote) throw new ApiError('not-exists', `table ${JSON.stringify(display(rel.join.remoteTable))} does not exist`, { path });
      this.deps.push({ kind: 'relationship', table: table.name, name });
      return { kind: 'exists_rel', rel: rel.join, where: this.object(value, remote, root, path) };
    }
    const cf = table.computedFields.get(name);
    if (cf) return this.computedFieldExp(cf, value, table, root, path);
    throw new ApiError('not-exists', `${JSON.stringify(name)} does not exist`, { path });
  }

  /**
   * A computed field in a permission filter, as Hasura v2 allows it: one without input arguments
   * (the row, and the session when it takes one). A scalar one is compared like a column; a SETOF-table
   * one takes that table's boolean expression (true when some returned row matches). v1 DML `where`
   * keeps Hasura v1.3's refusal.
   */
  private computedFieldExp(cf: ComputedFieldInfo, value: unknown, table: TableInfo, root: TableInfo, path: string): BoolExp {
    if (this.ctx.mode === 'dml') throw unexpected('Computed columns can not be part of the where clause', path);
    if (cf.inputArgs.length > 0) throw unexpected('Computed columns with input arguments can not be part of the where clause', path);
    this.deps.push({ kind: 'computed_field', table: table.name, name: cf.name });
    const call = { function: cf.function, tableArg: cf.tableArgIndex, ...(cf.sessionArgIndex !== undefined ? { sessionArg: cf.sessionArgIndex } : {}) };
    if (cf.returns.kind === 'table') {
      const target = this.ctx.tables.get(qualifiedKey(cf.returns.table));
      if (!target) throw new ApiError('not-exists', `table ${JSON.stringify(display(cf.returns.table))} does not exist`, { path });
      return { kind: 'exists_fn', call, where: this.object(value, target, root, path) };
    }
    const col = { name: cf.name, pgType: cf.returns.pgType, pgTypeSchema: '' };
    return this.comparisons(col, { column: cf.name, pgType: col.pgType, computed: call }, value, table, root, path);
  }

  private columnExp(col: ColumnInfo, value: unknown, table: TableInfo, root: TableInfo, path: string): BoolExp {
    if (col.pgType === 'json') throw unexpected('JSON column can not be part of where clause', path);
    this.deps.push({ kind: 'column', table: table.name, column: col.name });
    return this.comparisons(col, { column: col.name, pgType: col.pgType }, value, table, root, path);
  }

  private comparisons(col: Compared, ref: ColumnRef, value: unknown, table: TableInfo, root: TableInfo, path: string): BoolExp {
    if (!isObject(value)) return { kind: 'compare', column: ref, op: '_eq', value: this.value(value, castTypeOf(col)) };
    const items: BoolExp[] = [];
    for (const [opName, operand] of Object.entries(value)) {
      const p = pathKey(path, opName);
      items.push(this.operation(opName, operand, col, ref, table, root, p));
    }
    if (items.length === 0) return { kind: 'true' };
    return items.length === 1 ? items[0] : { kind: 'and', items };
  }

  private operation(opName: string, operand: unknown, col: Compared, ref: ColumnRef, table: TableInfo, root: TableInfo, path: string): BoolExp {
    if (opName === '_is_null' || opName === '$is_null') {
      if (typeof operand === 'boolean') return { kind: 'is_null', column: ref, isNull: operand };
      const v = this.value(operand, 'bool');
      if (v.source.kind === 'session') return { kind: 'is_null', column: ref, isNull: v };
      throw new ApiError('parse-failed', `expected Bool, encountered ${jsonTypeName(operand)}`, { path });
    }
    // own keys only: `constructor`, `toString`... are not operators
    const colOp = Object.hasOwn(COLUMN_OPS, opName) ? COLUMN_OPS[opName] : undefined;
    if (colOp) return this.columnComparison(colOp, operand, col, ref, table, root, path);
    const op = Object.hasOwn(OPS, opName) ? OPS[opName] : undefined;
    if (!op) throw unexpected(`unknown operator: ${opName}`, path);
    if (STRING_OPS.has(op)) guardType(col, STRING_TYPES, path);
    if (JSONB_OPS.has(op)) guardType(col, ['jsonb'], path);
    switch (op) {
      case '_in':
      case '_nin':
        return { kind: 'compare', column: ref, op, value: this.listValue(operand, castTypeOf(col, true), path) };
      case '_has_key':
        return { kind: 'compare', column: ref, op, value: this.value(operand, 'text') };
      case '_has_keys_any':
      case '_has_keys_all':
        return { kind: 'compare', column: ref, op, value: this.listValue(operand, '_text', path) };
      default:
        return { kind: 'compare', column: ref, op, value: this.value(operand, castTypeOf(col)) };
    }
  }

  private columnComparison(op: ColumnComparisonOp, operand: unknown, col: Compared, ref: ColumnRef, table: TableInfo, root: TableInfo, path: string): BoolExp {
    let target = table;
    let name: unknown = operand;
    let otherIsRoot = false;
    if (Array.isArray(operand)) {
      if (operand.length === 2 && operand[0] === '$' && typeof operand[1] === 'string') {
        target = root;
        name = operand[1];
        otherIsRoot = true;
      } else if (operand.length === 1 && typeof operand[0] === 'string') {
        name = operand[0];
      } else throw unexpected('expecting a string for column operator', path);
    }
    if (typeof name !== 'string') throw unexpected('expecting a string for column operator', path);
    const other = target.columnsByName.get(name);
    if (!other) throw new ApiError('not-exists', `${JSON.stringify(name)} does not exist`, { path });
    if (other.pgType !== col.pgType && !(isNumeric(other.pgType) && isNumeric(col.pgType)) && !(isString(other.pgType) && isString(col.pgType))) {
      throw unexpected(`incompatible column types: ${JSON.stringify(col.name)} has type ${JSON.stringify(col.pgType)}, but ${JSON.stringify(other.name)} has type ${JSON.stringify(other.pgType)}`, path);
    }
    this.deps.push({ kind: 'column', table: target.name, column: other.name });
    const out: BoolExp = { kind: 'compare_column', column: ref, op, other: { column: other.name, pgType: other.pgType } };
    if (otherIsRoot) out.otherIsRoot = true;
    return out;
  }

  private value(v: unknown, pgType: string): IrValue {
    if (this.ctx.mode === 'permission' && typeof v === 'string' && isSessionVariable(v)) {
      return { source: { kind: 'session', name: sessionVariableName(v) }, pgType };
    }
    return { source: { kind: 'value', value: v }, pgType };
  }

  private listValue(v: unknown, pgType: string, path: string): IrValue {
    if (Array.isArray(v)) return { source: { kind: 'value', value: v }, pgType };
    if (this.ctx.mode === 'permission' && typeof v === 'string' && isSessionVariable(v)) {
      return { source: { kind: 'session', name: sessionVariableName(v) }, pgType };
    }
    throw new ApiError('parse-failed', `expected Array, encountered ${jsonTypeName(v)}`, { path });
  }
}

function guardType(col: Compared, valid: string[], path: string): void {
  if (!valid.includes(col.pgType)) {
    throw unexpected(`${JSON.stringify(col.name)} is of type ${JSON.stringify(col.pgType)}; this operator works only on columns of type ${valid.map((t) => JSON.stringify(t)).join('/')}`, path);
  }
}

const NUMERIC = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'money', 'oid']);
const isNumeric = (t: string) => NUMERIC.has(t);
const isString = (t: string) => STRING_TYPES.includes(t);
const display = (q: QualifiedTable) => (q.schema === 'public' ? q.name : `${q.schema}.${q.name}`);
