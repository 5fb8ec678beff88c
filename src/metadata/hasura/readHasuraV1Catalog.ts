/**
 * Hasura v1.x keeps its metadata in rows of `hdb_catalog` tables (`hdb_table`, `hdb_relationship`,
 * `hdb_permission`, …). This reads them (read-only) into the document Hasura v1.3's
 * `export_metadata` answers (version 2), user-defined rows only (`is_system_defined` left out).
 * Cron triggers are not read: `hdb_catalog.hdb_cron_triggers` has the layout the engine uses as
 * its own source of truth, so the engine serves the rows where they are.
 */
import type { DbClient } from '../../execution/index.js';

type J = Record<string, any>;

const SYSTEM = 'coalesce(is_system_defined, false) = false';

/** The v1 tables read, `SELECT`s over them; a missing table (older catalog) reads as empty. */
const QUERIES: Record<string, string> = {
  hdb_table: `SELECT table_schema, table_name, configuration, is_enum FROM hdb_catalog.hdb_table WHERE ${SYSTEM} ORDER BY 1, 2`,
  hdb_relationship: `SELECT table_schema, table_name, rel_name, rel_type, rel_def, comment FROM hdb_catalog.hdb_relationship WHERE ${SYSTEM} ORDER BY 1, 2, 3`,
  hdb_permission: `SELECT table_schema, table_name, role_name, perm_type, perm_def, comment FROM hdb_catalog.hdb_permission WHERE ${SYSTEM} ORDER BY 1, 2, 3, 4`,
  hdb_computed_field: 'SELECT table_schema, table_name, computed_field_name, definition, comment FROM hdb_catalog.hdb_computed_field ORDER BY 1, 2, 3',
  hdb_remote_relationship: 'SELECT table_schema, table_name, remote_relationship_name, definition FROM hdb_catalog.hdb_remote_relationship ORDER BY 1, 2, 3',
  event_triggers: 'SELECT name, schema_name, table_name, configuration, comment FROM hdb_catalog.event_triggers ORDER BY 1',
  hdb_function: `SELECT function_schema, function_name, configuration FROM hdb_catalog.hdb_function WHERE ${SYSTEM} ORDER BY 1, 2`,
  remote_schemas: 'SELECT name, definition, comment FROM hdb_catalog.remote_schemas ORDER BY id',
  hdb_query_collection: `SELECT collection_name, collection_defn, comment FROM hdb_catalog.hdb_query_collection WHERE ${SYSTEM} ORDER BY 1`,
  hdb_allowlist: 'SELECT collection_name FROM hdb_catalog.hdb_allowlist ORDER BY 1',
  hdb_custom_types: 'SELECT custom_types FROM hdb_catalog.hdb_custom_types',
  hdb_action: `SELECT action_name, action_defn, comment FROM hdb_catalog.hdb_action WHERE ${SYSTEM} ORDER BY 1`,
  hdb_action_permission: 'SELECT action_name, role_name, comment FROM hdb_catalog.hdb_action_permission ORDER BY 1, 2',
};

async function rows(c: DbClient, table: string): Promise<J[]> {
  const present = await c.query('SELECT to_regclass($1) IS NOT NULL AS present', [`hdb_catalog.${table}`]);
  if (present.rows[0].present !== true) return [];
  return (await c.query(QUERIES[table]!)).rows as J[];
}

const withComment = (o: J, comment: unknown): J => (comment == null ? o : { ...o, comment });

/** Hasura v1.x metadata as its export (version 2), read from the v1 catalog tables. */
export async function readHasuraV1Catalog(c: DbClient): Promise<J> {
  const tables = new Map<string, J>();
  const tableOf = (schema: string, name: string): J => {
    const key = JSON.stringify([schema, name]);
    let t = tables.get(key);
    if (!t) tables.set(key, (t = { table: { schema, name } }));
    return t;
  };
  const push = (t: J, key: string, v: J): void => {
    (t[key] ??= []).push(v);
  };
  for (const r of await rows(c, 'hdb_table')) {
    const t = tableOf(r.table_schema, r.table_name);
    if (r.is_enum === true) t.is_enum = true;
    const cfg = r.configuration as J | null;
    if (cfg && (Object.keys(cfg.custom_root_fields ?? {}).length > 0 || Object.keys(cfg.custom_column_names ?? {}).length > 0)) t.configuration = cfg;
  }
  for (const r of await rows(c, 'hdb_relationship')) {
    push(tableOf(r.table_schema, r.table_name), `${r.rel_type}_relationships`, withComment({ name: r.rel_name, using: r.rel_def }, r.comment));
  }
  for (const r of await rows(c, 'hdb_permission')) {
    push(tableOf(r.table_schema, r.table_name), `${r.perm_type}_permissions`, withComment({ role: r.role_name, permission: r.perm_def }, r.comment));
  }
  for (const r of await rows(c, 'hdb_computed_field')) {
    push(tableOf(r.table_schema, r.table_name), 'computed_fields', withComment({ name: r.computed_field_name, definition: r.definition }, r.comment));
  }
  for (const r of await rows(c, 'hdb_remote_relationship')) {
    push(tableOf(r.table_schema, r.table_name), 'remote_relationships', { name: r.remote_relationship_name, definition: r.definition });
  }
  for (const r of await rows(c, 'event_triggers')) {
    push(tableOf(r.schema_name, r.table_name), 'event_triggers', withComment({ name: r.name, ...(r.configuration as J) }, r.comment));
  }
  const md: J = { version: 2, tables: [...tables.values()] };
  const functions = (await rows(c, 'hdb_function')).map((r) => {
    const f: J = { function: { schema: r.function_schema, name: r.function_name } };
    if (r.configuration && Object.keys(r.configuration).length > 0) f.configuration = r.configuration;
    return f;
  });
  if (functions.length > 0) md.functions = functions;
  const remote = (await rows(c, 'remote_schemas')).map((r) => withComment({ name: r.name, definition: r.definition }, r.comment));
  if (remote.length > 0) md.remote_schemas = remote;
  const collections = (await rows(c, 'hdb_query_collection')).map((r) => withComment({ name: r.collection_name, definition: r.collection_defn }, r.comment));
  if (collections.length > 0) md.query_collections = collections;
  const allowlist = (await rows(c, 'hdb_allowlist')).map((r) => ({ collection: r.collection_name }));
  if (allowlist.length > 0) md.allowlist = allowlist;
  const types = (await rows(c, 'hdb_custom_types'))[0]?.custom_types as J | undefined;
  if (types && Object.values(types).some((v) => Array.isArray(v) && v.length > 0)) md.custom_types = types;
  const perms = await rows(c, 'hdb_action_permission');
  const actions = (await rows(c, 'hdb_action')).map((r) => {
    const a = withComment({ name: r.action_name, definition: r.action_defn }, r.comment);
    const p = perms.filter((x) => x.action_name === r.action_name).map((x) => withComment({ role: x.role_name }, x.comment));
    return p.length > 0 ? { ...a, permissions: p } : a;
  });
  if (actions.length > 0) md.actions = actions;
  return md;
}
