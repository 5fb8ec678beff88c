/**
 * A relationship to a source's table in a selection (Hasura v2's remote-source relationships): at
 * the field's place the row's join columns (`remote_rel_keys`, hidden from the answer), and the
 * join the executor runs after the statement: the target's rows planned over the target source's
 * cache with the role's permission there (filter, columns, limit; the client's where / order_by /
 * limit / offset / distinct_on, or aggregates), compiled as one statement over a set of keys.
 */
import type { NField } from '../graphql/index.js';
import type { SelectField } from '../ir/index.js';
import type { SourceRelInfo, TableInfo } from '../metadata/index.js';
import { compileSourceJoin, type SourceJoinNode, type SqlFragment } from '../sql/index.js';
import { columnValueType, type PlanContext } from './context.js';

/** What a relationship to a source's table carries for the executor (`remote_rel_keys.join`). */
export interface SourceJoinField {
  kind: 'source';
  rel: SourceRelInfo;
  /** The target rows of one key (the nested joins inside it are found from its IR). */
  node: SourceJoinNode;
  /** The GraphQL variable the executor puts the keys in (unique in the operation: the field's path). */
  keysVariable: string;
  /** The statement over the keys (combined with the other joins to the same source at the same level). */
  statement: SqlFragment;
  path: string;
}

export const isSourceJoin = (join: unknown): join is SourceJoinField => (join as { kind?: unknown } | null)?.kind === 'source';

/** The `remote_rel_keys` field of relationship `rel` of `table` whose target rows are `node` (planned on `target`). */
export function sourceRelKeys(ctx: PlanContext, target: PlanContext, table: TableInfo, remote: TableInfo, rel: SourceRelInfo, node: SourceJoinNode, f: NField): SelectField {
  const columns = rel.mapping.map((m) => {
    const key = { key: m.local, column: m.local, pgType: table.columnsByName.get(m.local)?.pgType ?? 'text' };
    // A join column the role does not see in this row is null: it joins no target row.
    const visibleIf = ctx.columnCondition(table, m.local);
    return visibleIf ? { ...key, visibleIf } : key;
  });
  ctx.remoteJoins += 1;
  return { alias: f.alias, kind: 'remote_rel_keys', columns, join: sourceJoin(target, remote, rel, node, f.path) };
}

/** The join of `rel` to `remote` (planned on `target`) whose target rows are `node`, at `path` of the operation. */
export function sourceJoin(target: PlanContext, remote: TableInfo, rel: SourceRelInfo, node: SourceJoinNode, path: string): SourceJoinField {
  const keys = rel.mapping.map((m) => {
    const c = remote.columnsByName.get(m.remote)!;
    return { remote: m.remote, pgType: columnValueType(c) };
  });
  const keysVariable = `\u0000keys${path}`;
  const statement = compileSourceJoin(node, keys, { kind: 'variable', name: keysVariable }, target.columnsCondition(remote, rel.mapping.map((m) => m.remote)));
  return { kind: 'source', rel, node, keysVariable, statement, path };
}
