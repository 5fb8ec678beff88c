/**
 * A change the Data pages make: SQL (with its down, from sqlGen.ts) and/or metadata operations, sent
 * as Hasura's console sends them: one `run_sql`, or a `bulk` of the `run_sql` and the metadata
 * operations that go with it (tracking the new table), or the metadata operations alone. A change with
 * SQL carries `x-svc-migration-name` and, when reversible, `x-svc-migration-down` (base64): the engine
 * ignores them, the migrations-mode proxy writes them into the project.
 */
import { post } from '../api';
import { migrationHeaders, type SqlChange } from '../sqlGen';
import { DEFAULT_SOURCE, onSource } from '../sources';

export interface MetadataOp {
  type: string;
  args: unknown;
  source?: string;
}

export interface Change {
  /** The migration's name (snake case): `create_table_public_author`. */
  migration: string;
  sql?: SqlChange;
  /** run_sql's `cascade`: drop the metadata that depends on what the SQL drops. */
  cascade?: boolean;
  metadata?: MetadataOp[];
}

/** The metadata operations of a change on `source`, as they are sent (and previewed). */
export const metadataOn = (c: Change, source: string): MetadataOp[] => (c.metadata ?? []).map((op) => onSource(op, source));

/** The /v1/query body and headers of a change on `source` (its run_sql runs there, its operations are about its objects). */
export function requestOf(c: Change, source: string = DEFAULT_SOURCE): { body: MetadataOp; headers: Record<string, string> } {
  const ops: MetadataOp[] = [];
  if (c.sql) ops.push({ type: 'run_sql', args: { sql: c.sql.up, cascade: c.cascade ?? false, source } });
  ops.push(...metadataOn(c, source));
  if (ops.length === 0) throw new Error('nothing to send');
  return { body: ops.length === 1 ? ops[0] : { type: 'bulk', args: ops }, headers: c.sql ? migrationHeaders(c.migration, c.sql.down) : {} };
}

export async function applyChange(c: Change, source: string = DEFAULT_SOURCE): Promise<unknown> {
  const { body, headers } = requestOf(c, source);
  return post('/v1/query', body, headers);
}
