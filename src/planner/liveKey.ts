/**
 * The row key of a live query, when it has one: what lets a change to the root table rerun only
 * the subscribers whose rows it touched (subscriptions/narrowing.ts).
 *
 * A select, by-pk or aggregate root field over a table (not a function) whose whole row filter
 * (`where` ∧ the role's permission filter) is a conjunction holding `column = value` on a plain
 * column has a key: a root-table row can be in a subscriber's result set only when its `column`
 * equals that subscriber's value. So a changed row whose old and new images both hold another
 * value cannot change that subscriber's result (its filtered row set, and so its ordering, limit,
 * offset and aggregates, stay the same) — PROVIDED the statement reads the root table only as its
 * root: a relationship, filter or order_by that reads the root table again (a self-relationship),
 * or any function (computed fields), makes other rows matter, and the field has no key.
 *
 * Only column types whose equality the engine can decide exactly on text are keys: integers,
 * text/varchar and uuid.
 */
import type { QualifiedTable } from '../core/index.js';
import type { BoolExp, IrValue } from '../ir/index.js';
import type { Param } from '../sql/index.js';
import type { RootFieldPlan } from './planOperation.js';

/** How a key value compares (see subscriptions/narrowing.ts): integers, text or uuid. */
export type LiveKeyKind = 'int' | 'text' | 'uuid';

export interface LiveKey {
  table: QualifiedTable;
  column: string;
  kind: LiveKeyKind;
  /** Index of the compared value among the compiled statement's parameters. */
  param: number;
}

const KINDS: Record<string, LiveKeyKind> = { int2: 'int', int4: 'int', int8: 'int', text: 'text', varchar: 'text', uuid: 'uuid' };

/** The key of a subscription root field compiled to `params`, or undefined. */
export function liveKeyOf(plan: RootFieldPlan, params: readonly Param[]): LiveKey | undefined {
  if (plan.kind !== 'select' && plan.kind !== 'select_by_pk' && plan.kind !== 'aggregate') return undefined;
  const ir = plan.ir;
  if (ir.source || readsElsewhere(ir, ir.table, true)) return undefined;
  for (const c of conjuncts(ir.where)) {
    if (c.kind !== 'compare' || c.op !== '_eq' || c.column.computed || c.column.visibleIf) continue;
    const kind = KINDS[c.column.pgType];
    if (!kind || KINDS[c.value.pgType] !== kind) continue;
    const param = paramIndex(params, c.value);
    if (param >= 0) return { table: ir.table, column: c.column.column, kind, param };
  }
  return undefined;
}

function conjuncts(e: BoolExp): BoolExp[] {
  return e.kind === 'and' ? e.items.flatMap(conjuncts) : [e];
}

function paramIndex(params: readonly Param[], v: IrValue): number {
  const key = JSON.stringify([v.source, v.pgType]);
  return params.findIndex((p) => p.source === v.source || (v.source.kind !== 'value' && JSON.stringify([p.source, p.pgType ?? '']) === key));
}

/** True when `node` (below the root) reads `table` again, or calls a function. */
function readsElsewhere(node: unknown, table: QualifiedTable, root = false): boolean {
  if (Array.isArray(node)) return node.some((n) => readsElsewhere(n, table));
  if (node === null || typeof node !== 'object') return false;
  for (const [k, v] of Object.entries(node)) {
    if (v === undefined) continue;
    if (k === 'function' || k === 'computed' || k === 'call') return true;
    if ((k === 'table' && !root) || k === 'remoteTable') {
      const t = v as QualifiedTable;
      if (t.schema === table.schema && t.name === table.name) return true;
      continue;
    }
    if (readsElsewhere(v, table)) return true;
  }
  return false;
}
