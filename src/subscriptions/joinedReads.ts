/**
 * What a live query that joins databases reads, from its plan alone: the root field's statement on
 * its source, and the statement of every relationship to a source's table at every level (each
 * `SourceJoinField` carries its statement over the join keys, and its target rows' IR holds the next
 * level's). Each statement is asked of Postgres like any live query's (liveDependencies.ts: the keys
 * parameter becomes a typed NULL), so the joined live query is rerun when a table any of them reads
 * changed, in whichever database. A relationship to a remote schema reads something no counter
 * covers: `remote` is true then (the live query keeps the refetch interval).
 */
import type { AggregateField, SelectField } from '../ir/index.js';
import { isSourceJoin, type RemoteJoinPlan, type RowShapeField } from '../planner/index.js';
import { compile } from '../sql/index.js';

/** A statement of a joined live query, and the source it runs on (`default` included). */
export interface JoinedStatement {
  source: string;
  text: string;
}

export interface JoinedReads {
  statements: JoinedStatement[];
  /** A relationship to a remote schema is part of the answer. */
  remote: boolean;
}

/** The statements `plan` (an `ext:remote_join` root field's, on `source`) runs, each once. */
export function joinedReads(plan: RemoteJoinPlan, source: string | undefined): JoinedReads {
  const out: JoinedReads = { statements: [{ source: source ?? 'default', text: plan.text }], remote: false };
  const seen = new Set<string>();
  const rows = (fields: readonly (SelectField | RowShapeField)[]): void => {
    for (const f of fields) {
      switch (f.kind) {
        case 'remote_rel_keys': {
          if (!isSourceJoin(f.join)) {
            out.remote = true;
            break;
          }
          const join = f.join;
          const text = compile(join.statement).text;
          const key = `${join.rel.source}\u0000${text}`;
          if (!seen.has(key)) {
            seen.add(key);
            out.statements.push({ source: join.rel.source, text });
          }
          if (join.node.kind === 'aggregate') aggregate(join.node.ir.fields);
          else rows(join.node.ir.fields);
          break;
        }
        case 'object_rel':
        case 'array_rel':
        case 'computed_table':
          rows(f.select.fields);
          break;
        case 'array_agg_rel':
          aggregate(f.aggregate.fields);
          break;
        case 'nested':
          rows(f.fields);
          break;
        default:
          break;
      }
    }
  };
  const aggregate = (fields: readonly AggregateField[]): void => {
    for (const f of fields) if (f.kind === 'nodes') rows(f.fields);
  };
  if (plan.shape.kind === 'aggregate') aggregate(plan.shape.ir.fields);
  else if (plan.shape.kind === 'rows') rows(plan.shape.fields);
  else rows(plan.shape.ir.fields);
  return out;
}
