/**
 * A change the Data pages make: SQL (with its down, from sqlGen.ts) and/or metadata operations, sent
 * as Hasura's console sends them: one `run_sql`, or a `bulk` of the `run_sql` and the metadata
 * operations that go with it (tracking the new table), or the metadata operations alone. A change with
 * SQL carries `x-svc-migration-name` and, when reversible, `x-svc-migration-down` (base64): the engine
 * ignores them, the migrations-mode proxy writes them into the project.
 */
import { post } from '../api';
import { migrationHeaders, type SqlChange } from '../sqlGen';

export interface MetadataOp {
  type: string;
  args: unknown;
}

export interface Change {
  /** The migration's name (snake case): `create_table_public_author`. */
  migration: string;
  sql?: SqlChange;
  /** run_sql's `cascade`: drop the metadata that depends on what the SQL drops. */
  cascade?: boolean;
  metadata?: MetadataOp[];
}

/** The /v1/query body and headers of a change. */
export function requestOf(c: Change): { body: MetadataOp; headers: Record<string, string> } {
  const ops: MetadataOp[] = [];
  if (c.sql) ops.push({ type: 'run_sql', args: { sql: c.sql.up, cascade: c.cascade ?? false } });
  ops.push(...(c.metadata ?? []));
  if (ops.length === 0) throw new Error('nothing to send');
  return { body: ops.length === 1 ? ops[0] : { type: 'bulk', args: ops }, headers: c.sql ? migrationHeaders(c.migration, c.sql.down) : {} };
}

export async function applyChange(c: Change): Promise<unknown> {
  const { body, headers } = requestOf(c);
  return post('/v1/query', body, headers);
}
