/**
 * Inherited roles (Hasura v2): after every role's own permissions are built, each inherited role
 * gets, table by table and for each permission kind it does not define itself, the combination of
 * its role set's permissions. Roles are resolved parents first, so a role set may name other
 * inherited roles (cycles are refused before any build: model/decodeInheritedRoles.ts).
 *
 * - select: rows where ANY member's filter holds; a column (or scalar computed field) granted by
 *   every member that can select the table is plain, one granted by only some of them is shown
 *   only where one of those members' filters (or its own condition) holds and is null elsewhere:
 *   `columnConditions`; limit = the largest of the members' limits; aggregations if any allows them.
 * - insert / update / delete: inherited only when the members that define one define the same
 *   one; different ones are a conflict, reported as an inconsistent object (define the inherited
 *   role's own permission to settle it).
 * - actions and function permissions: allowed when any member is allowed.
 * A role set naming a role that no permission, action permission or inherited role mentions makes
 * the inherited role inconsistent (Hasura: "the following parent role(s) are not found").
 */
import type { BoolExp } from '../../ir/index.js';
import type { InheritedRole, Metadata } from '../model/metadata.js';
import type { ActionInfo } from './actionTypes.js';
import type { FunctionInfo, RolePermissions, SelectPermInfo, TableInfo } from './types.js';
import type { MetadataObjectId } from './objects.js';
import { quoted } from './buildState.js';

type Record_ = (id: MetadataObjectId, type: string, definition: unknown, reason: string) => void;

const MUTATIONS = ['insert', 'update', 'delete'] as const;

/** OR of conditions; `true` when any is. */
function anyOf(items: BoolExp[]): BoolExp {
  if (items.some((i) => i.kind === 'true')) return { kind: 'true' };
  return items.length === 1 ? items[0] : { kind: 'or', items };
}

/** The inherited select permission of a role set's select permissions (at least one). */
export function combineSelect(perms: readonly SelectPermInfo[]): SelectPermInfo {
  const conditioned = (names: (p: SelectPermInfo) => ReadonlySet<string>, conds: (p: SelectPermInfo) => ReadonlyMap<string, BoolExp> | undefined) => {
    const all = new Set<string>();
    for (const p of perms) for (const n of names(p)) all.add(n);
    const conditions = new Map<string, BoolExp>();
    for (const n of all) {
      const granting = perms.filter((p) => names(p).has(n));
      const plain = granting.length === perms.length && granting.every((p) => !conds(p)?.has(n));
      if (!plain) conditions.set(n, anyOf(granting.map((p) => conds(p)?.get(n) ?? p.filter)));
    }
    return { all, conditions };
  };
  const cols = conditioned((p) => p.columns, (p) => p.columnConditions);
  const cfs = conditioned((p) => p.computedFields, (p) => p.computedFieldConditions);
  const limits = perms.map((p) => p.limit).filter((l): l is number => l !== null);
  const out: SelectPermInfo = {
    columns: cols.all,
    computedFields: cfs.all,
    filter: anyOf(perms.map((p) => p.filter)),
    limit: limits.length > 0 ? Math.max(...limits) : null,
    allowAggregations: perms.some((p) => p.allowAggregations),
  };
  if (cols.conditions.size > 0) out.columnConditions = cols.conditions;
  if (cfs.conditions.size > 0) out.computedFieldConditions = cfs.conditions;
  return out;
}

/** JSON with sets as sorted arrays: equal permissions give equal text. */
const stableText = (v: unknown): string =>
  JSON.stringify(v, (_k, x) => (x instanceof Set ? [...x].sort() : x instanceof Map ? [...x.entries()].sort() : x));

/**
 * Every role some part of the metadata names (permissions of tables, functions, logical models and
 * actions, inherited roles), in every source of the document: inherited roles are global.
 */
export function knownRoles(md: Metadata): Set<string> {
  const roles = new Set<string>();
  const parts: Array<Pick<Metadata, 'tables' | 'functions'>> = [md, ...(md.sources ?? [])];
  for (const part of parts) {
    for (const t of part.tables) {
      for (const k of ['select', 'insert', 'update', 'delete'] as const) for (const p of t[`${k}_permissions`] ?? []) roles.add(p.role);
    }
    for (const f of part.functions ?? []) for (const p of f.permissions ?? []) roles.add(p.role);
  }
  for (const a of md.actions ?? []) for (const p of ((a as { permissions?: Array<{ role: string }> }).permissions ?? [])) roles.add(p.role);
  for (const rs of md.remote_schemas ?? []) for (const p of ((rs as { permissions?: Array<{ role: string }> }).permissions ?? [])) roles.add(p.role);
  for (const r of md.inherited_roles ?? []) roles.add(r.role_name);
  for (const m of md.logical_models ?? []) for (const p of m.select_permissions ?? []) roles.add(p.role);
  return roles;
}

/** Inherited roles in an order where each comes after the inherited roles of its role set. */
function parentsFirst(list: readonly InheritedRole[]): InheritedRole[] {
  const byName = new Map(list.map((r) => [r.role_name, r]));
  const out: InheritedRole[] = [];
  const seen = new Set<string>();
  const visit = (r: InheritedRole): void => {
    if (seen.has(r.role_name)) return;
    seen.add(r.role_name);
    for (const p of r.role_set) {
      const parent = byName.get(p);
      if (parent) visit(parent);
    }
    out.push(r);
  };
  list.forEach(visit);
  return out;
}

/**
 * Adds the inherited roles' permissions to `tables` and `actions` (in place); returns the
 * consistent inherited roles with their role sets.
 */
export function resolveInheritedRoles(
  md: Metadata, tables: Iterable<TableInfo>, actions: ReadonlyMap<string, ActionInfo> | undefined, record: Record_,
  functions: ReadonlyMap<string, FunctionInfo> = new Map(), documentRoles?: ReadonlySet<string>,
): Map<string, readonly string[]> {
  const resolved = new Map<string, readonly string[]>();
  const list = md.inherited_roles ?? [];
  if (list.length === 0) return resolved;
  // A source's part: the roles of the whole document; its build reports missing parents (once).
  const known = documentRoles ?? knownRoles(md);
  const tableList = [...tables];
  for (const r of parentsFirst(list)) {
    const id: MetadataObjectId = { kind: 'inherited_role', name: r.role_name };
    const definition = { role_name: r.role_name, role_set: r.role_set };
    const missing = r.role_set.filter((p) => !known.has(p));
    if (missing.length > 0) {
      if (documentRoles) continue;
      record(id, 'inherited_role', definition, `the following parent role(s) are not found: ${missing.join(', ')} which are required to construct the inherited role: ${quoted(r.role_name)}`);
      continue;
    }
    resolved.set(r.role_name, r.role_set);
    for (const t of tableList) inheritTable(t, r, (entity) => record(id, 'inherited_role', definition,
      `Could not inherit permission for the role ${quoted(r.role_name)} for the entity: ${quoted(entity)}`));
    for (const a of actions?.values() ?? []) {
      if (!a.roles.has(r.role_name) && r.role_set.some((p) => a.roles.has(p))) a.roles.add(r.role_name);
    }
    for (const f of functions.values()) {
      if (!f.permissions.has(r.role_name) && r.role_set.some((p) => f.permissions.has(p))) f.permissions.add(r.role_name);
    }
  }
  return resolved;
}

function inheritTable(t: TableInfo, r: InheritedRole, conflict: (entity: string) => void): void {
  const own: RolePermissions = t.permissions.get(r.role_name) ?? {};
  const members = r.role_set.map((p) => t.permissions.get(p)).filter((p): p is RolePermissions => p !== undefined);
  if (members.length === 0) return;
  const next: RolePermissions = { ...own };
  if (!own.select) {
    const sel = members.flatMap((m) => (m.select ? [m.select] : []));
    // Members sharing one resolved permission (equal permissions are resolved once) count once: the OR of a
    // filter with itself is the filter, and a BoolExp node must not appear twice in one tree.
    if (sel.length > 0) next.select = combineSelect([...new Set(sel)]);
  }
  for (const kind of MUTATIONS) {
    if (own[kind]) continue;
    const defined = members.flatMap((m) => (m[kind] ? [m[kind]!] : []));
    if (defined.length === 0) continue;
    const text = stableText(defined[0]);
    if (defined.every((d) => stableText(d) === text)) (next as Record<string, unknown>)[kind] = defined[0];
    else conflict(`${kind} permission, table: ${t.name.schema === 'public' ? t.name.name : `${t.name.schema}.${t.name.name}`}`);
  }
  if (Object.keys(next).length > 0) t.permissions.set(r.role_name, next);
}
