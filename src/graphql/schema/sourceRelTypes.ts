/**
 * Relationships to a table of a source (Hasura v2's remote-source relationships) as fields of a
 * table's object type: an object one is the target's object type (nullable), an array one a list
 * of it with the select arguments, and `<name>_aggregate` when the role may aggregate the target.
 * A role sees the field when it sees every join column of this table and may select the target
 * (its permission is applied by the planner, over the target source's cache).
 */
import { GraphQLList, GraphQLNonNull, type GraphQLOutputType } from 'graphql';
import { qualifiedKey } from '../../core/index.js';
import type { SourceRelInfo, TableInfo } from '../../metadata/index.js';
import type { FieldEntry, SchemaContext } from './context.js';
import type { SelectView } from './roleView.js';
import { aggregateObject, outField, selectArgs, tableObject } from './tableTypes.js';

const nonNullList = (t: GraphQLOutputType) => new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(t)));

/** The relationships to a source's table of `table` the role may use, as fields. */
export function sourceRelFields(ctx: SchemaContext, table: TableInfo, view: SelectView): FieldEntry[] {
  const rels = ctx.sc.sourceRelationships?.get(qualifiedKey(table.name));
  if (!rels) return [];
  const visible = new Set(view.columns.map((c) => c.name));
  const out: FieldEntry[] = [];
  for (const rel of rels.values()) {
    if (!rel.mapping.every((m) => visible.has(m.local))) continue;
    const sc = ctx.sc.sourceCaches?.get(rel.source);
    const remote = sc?.tables.get(qualifiedKey(rel.target));
    if (!sc || !remote) continue;
    const target = ctx.forSource(sc);
    const remoteView = target.view(remote);
    if (!remoteView) continue;
    const meta = { kind: 'ext:source_rel', table, rel, remote } satisfies SourceRelFieldMeta;
    if (rel.type === 'object') {
      out.push([rel.name, outField(tableObject(target, remote), meta, { description: 'A remote relationship' })]);
      continue;
    }
    out.push([rel.name, outField(nonNullList(tableObject(target, remote)), meta, { description: 'A remote relationship', args: selectArgs(target, remote) })]);
    if (remoteView.allowAggregations) {
      out.push([`${rel.name}_aggregate`, outField(new GraphQLNonNull(aggregateObject(target, remote)), { ...meta, aggregate: true }, {
        description: 'A remote relationship, aggregated', args: selectArgs(target, remote),
      })]);
    }
  }
  return out;
}

/** The tag of such a field (`aggregate`: the `<name>_aggregate` field). */
export interface SourceRelFieldMeta {
  kind: 'ext:source_rel';
  table: TableInfo;
  rel: SourceRelInfo;
  remote: TableInfo;
  aggregate?: true;
  [key: string]: unknown;
}
