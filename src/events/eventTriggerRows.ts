/**
 * `hdb_catalog.event_triggers` rows (one per trigger, its configuration as exported) written so that
 * a row already saying the same thing is left untouched: on a catalog adopted from Hasura v1.3 the
 * rows Hasura wrote (its own JSON form: no `name`, `headers: []`) stay byte for byte as they were
 * until that trigger really changes. Also: whether Hasura's v1 tables share this `hdb_catalog`, in
 * which case the event tables are Hasura's too and are never dropped.
 */
import type { DbClient } from '../execution/index.js';
import { runFragment } from '../delivery/index.js';
import { sql } from '../sql/index.js';

export interface TriggerRow {
  name: string;
  schema_name: string;
  table_name: string;
  configuration: unknown;
}

/** The configuration's meaning: no `name`, no null or empty-list members, keys sorted. */
function canonical(v: unknown, top = true): string {
  if (Array.isArray(v)) return `[${v.map((x) => canonical(x, false)).join(',')}]`;
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  const entries = Object.entries(v as Record<string, unknown>)
    .filter(([k, x]) => x !== null && x !== undefined && !(top && k === 'name') && !(Array.isArray(x) && x.length === 0))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonical(x, false)}`).join(',')}}`;
}

/** Makes the table hold exactly `rows`, rewriting only the rows whose meaning differs. */
export async function writeTriggerRows(client: DbClient, rows: TriggerRow[]): Promise<void> {
  const current = (await client.query('SELECT name, schema_name, table_name, configuration FROM hdb_catalog.event_triggers')).rows as unknown as TriggerRow[];
  const byName = new Map(current.map((r) => [r.name, r]));
  const names = rows.map((r) => r.name);
  const changed = rows.filter((r) => {
    const c = byName.get(r.name);
    return !c || c.schema_name !== r.schema_name || c.table_name !== r.table_name || canonical(c.configuration) !== canonical(r.configuration);
  });
  const stale = [...names.filter((n) => changed.some((r) => r.name === n)), ...current.map((r) => r.name).filter((n) => !names.includes(n))];
  if (stale.length > 0) await runFragment(client, sql`DELETE FROM hdb_catalog.event_triggers WHERE name = ANY(${sql.value(stale, 'text[]')})`);
  if (changed.length === 0) return;
  await runFragment(
    client,
    sql`INSERT INTO hdb_catalog.event_triggers (name, type, schema_name, table_name, configuration)
        SELECT r.name, 'table', r.schema_name, r.table_name, r.configuration
        FROM json_to_recordset(${sql.value(JSON.stringify(changed), 'json')}) AS r(name text, schema_name text, table_name text, configuration json)`,
  );
}

/** True when Hasura's tables live beside the engine's (an adopted catalog: v1's `hdb_table`, a v2 source's `hdb_source_catalog_version`). */
export async function sharesHasuraCatalog(client: DbClient): Promise<boolean> {
  const r = await client.query("SELECT to_regclass('hdb_catalog.hdb_table') IS NOT NULL OR to_regclass('hdb_catalog.hdb_source_catalog_version') IS NOT NULL AS shared");
  return r.rows[0].shared === true;
}
