/**
 * Permission metadata → `RolePermissions` entries: `"*"` expanded to the table's columns, columns
 * and computed fields checked, boolean expressions parsed to IR (session variables kept as
 * references), presets split into literals and session variables.
 */
import { isApiError, isSessionVariable, sessionVariableName } from '../../core/index.js';
import type { BoolExp } from '../../ir/index.js';
import type { DeletePermission, InsertPermission, SelectPermission, UpdatePermission } from '../model/metadata.js';
import type { AnyPermission, PermType } from '../model/decodePermission.js';
import { parseBoolExp } from '../boolExp.js';
import type { DeletePermInfo, InsertPermInfo, SelectPermInfo, TableInfo, UpdatePermInfo } from './types.js';
import type { DepRef } from './objects.js';
import { BuildError, quoted, type BuildState } from './buildState.js';

type Preset = InsertPermInfo['set'];
export type AnyPermInfo = SelectPermInfo | InsertPermInfo | UpdatePermInfo | DeletePermInfo;

class PermissionBuilder {
  readonly deps: DepRef[] = [];

  constructor(
    private readonly state: Pick<BuildState, 'tables'>,
    private readonly table: TableInfo,
  ) {}

  columns(spec: string[] | '*' | undefined): Set<string> {
    if (spec === undefined || spec === '*') return new Set(this.table.columns.map((c) => c.name));
    for (const c of spec) {
      if (!this.table.columnsByName.has(c)) {
        if (this.table.relationships.has(c)) throw new BuildError(`expecting a postgres column; but, ${quoted(c)} is a relationship`);
        throw new BuildError(`column ${quoted(c)} does not exist`);
      }
      this.deps.push({ on: { kind: 'column', table: this.table.name, column: c } });
    }
    return new Set(spec);
  }

  boolExp(json: unknown): BoolExp {
    try {
      const parsed = parseBoolExp(json, this.table, { tables: this.state.tables, mode: 'permission' });
      for (const d of parsed.dependencies) this.deps.push({ on: d, onType: d.kind === 'column' });
      return parsed.exp;
    } catch (e) {
      if (isApiError(e)) throw new BuildError(e.message);
      throw e;
    }
  }

  presets(set: Record<string, unknown> | undefined): Preset {
    const out: Preset = {};
    for (const [column, value] of Object.entries(set ?? {})) {
      if (!this.table.columnsByName.has(column)) throw new BuildError(`column ${quoted(column)} does not exist`);
      this.deps.push({ on: { kind: 'column', table: this.table.name, column } });
      out[column] = typeof value === 'string' && isSessionVariable(value) ? { kind: 'session', name: sessionVariableName(value) } : { kind: 'value', value };
    }
    return out;
  }

  computedFields(names: string[] | undefined): Set<string> {
    for (const n of names ?? []) {
      if (!this.table.computedFields.has(n)) throw new BuildError(`computed field ${quoted(n)} does not exist`);
      this.deps.push({ on: { kind: 'computed_field', table: this.table.name, name: n } });
    }
    return new Set(names ?? []);
  }
}

/** Builds one permission of `table` for `role`; throws BuildError with the bare reason. */
export function resolvePermission(
  state: Pick<BuildState, 'tables'>,
  table: TableInfo,
  role: string,
  type: PermType,
  perm: AnyPermission,
): { info: AnyPermInfo; dependencies: DepRef[] } {
  if (role === 'admin') throw new BuildError('cannot define permission for admin role');
  const b = new PermissionBuilder(state, table);
  let info: AnyPermInfo;
  switch (type) {
    case 'select': {
      const p = perm as SelectPermission;
      info = {
        columns: b.columns(p.columns),
        computedFields: b.computedFields(p.computed_fields),
        filter: b.boolExp(p.filter),
        limit: p.limit ?? null,
        allowAggregations: p.allow_aggregations ?? false,
      } satisfies SelectPermInfo;
      break;
    }
    case 'insert': {
      const p = perm as InsertPermission;
      info = { columns: b.columns(p.columns), check: b.boolExp(p.check), set: b.presets(p.set), backendOnly: p.backend_only ?? false, ...(p.allow_upsert ? { allowUpsert: true } : {}) } satisfies InsertPermInfo;
      break;
    }
    case 'update': {
      const p = perm as UpdatePermission;
      info = {
        columns: b.columns(p.columns),
        filter: b.boolExp(p.filter),
        check: p.check ? b.boolExp(p.check) : null,
        set: b.presets(p.set),
        ...(p.backend_only ? { backendOnly: true } : {}),
      } satisfies UpdatePermInfo;
      break;
    }
    case 'delete': {
      const p = perm as DeletePermission;
      info = { filter: b.boolExp(p.filter), ...(p.backend_only ? { backendOnly: true } : {}) } satisfies DeletePermInfo;
      break;
    }
  }
  return { info, dependencies: b.deps };
}
