/**
 * Capture: one Postgres trigger (and plpgsql function in `hdb_catalog`) per event trigger and
 * operation, writing the event row in the transaction that changed the user's row, so a rolled-back
 * change makes no event and a committed one always has its event, whoever wrote it.
 *
 *   hdb_catalog."notify_svc_t1_UPDATE"():
 *     IF ROW(OLD."c1"::text) IS NOT DISTINCT FROM ROW(NEW."c1"::text) THEN RETURN NULL; END IF;
 *     INSERT INTO hdb_catalog.event_log (schema_name, table_name, trigger_name, payload)
 *     VALUES (TG_TABLE_SCHEMA, TG_TABLE_NAME, 't1', json_build_object('op', TG_OP,
 *       'data', json_build_object('old', row_to_json(OLD), 'new', row_to_json(NEW)),
 *       'session_variables', NULLIF(current_setting('svc.user', true), '')::json));
 *
 * Columns appear only inside the function body, not in the trigger's `UPDATE OF`/`WHEN` (Postgres
 * would then refuse `DROP COLUMN` itself); the metadata's dependency edges guard them instead, as in
 * Hasura. No NOTIFY here (DECISIONS 18): the engine wakes the workers after its own commit.
 *
 * `syncEventTriggers` makes the database match a schema cache inside the metadata transaction:
 * functions whose text changed are replaced, triggers moved/created, stale ones dropped, the
 * `hdb_catalog.event_triggers` rows rewritten where they changed (eventTriggerRows.ts), events of
 * removed triggers archived.
 */
import { createHash } from 'node:crypto';
import type { DbClient } from '../execution/index.js';
import { encodeEventTrigger, EVENT_OPS, type EventOp, type EventTriggerInfo, type EventTriggerOpSpec, type SchemaCache } from '../metadata/index.js';
import { compile, sql, type SqlFragment } from '../sql/index.js';
import { runFragment } from '../delivery/index.js';
import { createEventTables, createSourceEventTables, dropEventTables, dropSourceEventTables } from './eventTables.js';
import { sharesHasuraCatalog, writeTriggerRows } from './eventTriggerRows.js';

const PREFIX = 'notify_svc_';
const TAG = '$svc$';

/** `notify_svc_<trigger>_<OP>`, shortened with a hash to fit Postgres' 63-byte names. */
export function captureFunctionName(trigger: string, op: EventOp): string {
  const suffix = `_${op.toUpperCase()}`;
  const full = PREFIX + trigger + suffix;
  if (Buffer.byteLength(full) <= 63) return full;
  const hash = createHash('sha1').update(trigger).digest('hex').slice(0, 8);
  return `${PREFIX}${trigger.slice(0, 63 - PREFIX.length - suffix.length - 9)}_${hash}${suffix}`;
}

function rowJson(rec: 'OLD' | 'NEW', cols: '*' | string[]): SqlFragment {
  if (cols === '*') return sql`row_to_json(${sql.unsafeRaw(rec)})`;
  return sql`json_build_object(${sql.join(cols.map((c) => sql`${sql.literal(c)}, ${sql.unsafeRaw(rec)}.${sql.ident(c)}`))})`;
}

function unchanged(cols: '*' | string[]): SqlFragment {
  if (cols === '*') return sql`OLD::text IS NOT DISTINCT FROM NEW::text`;
  const row = (rec: string) => sql`ROW(${sql.join(cols.map((c) => sql`${sql.unsafeRaw(rec)}.${sql.ident(c)}::text`))})`;
  return sql`${row('OLD')} IS NOT DISTINCT FROM ${row('NEW')}`;
}

/** The plpgsql body of the capture function (compared with `pg_proc.prosrc` to detect changes). */
export function captureFunctionBody(trigger: string, op: EventOp, spec: EventTriggerOpSpec): string {
  const payload = spec.payload ?? '*';
  const oldJson = op === 'insert' ? sql`NULL::json` : rowJson('OLD', payload);
  const newJson = op === 'delete' ? sql`NULL::json` : rowJson('NEW', payload);
  const guard = op === 'update' ? sql`
  IF ${unchanged(spec.columns)} THEN RETURN NULL; END IF;` : sql.empty;
  const body = sql`
BEGIN${guard}
  INSERT INTO hdb_catalog.event_log (schema_name, table_name, trigger_name, payload)
  VALUES (TG_TABLE_SCHEMA, TG_TABLE_NAME, ${sql.literal(trigger)}, json_build_object('op', TG_OP,
    'data', json_build_object('old', ${oldJson}, 'new', ${newJson}),
    'session_variables', NULLIF(current_setting('svc.user', true), '')::json));
  RETURN NULL;
END;
`;
  const text = compile(body).text;
  if (text.includes(TAG)) throw new Error(`event trigger ${trigger}: a column name contains ${TAG}`);
  return text;
}

export interface SyncOptions {
  /**
   * The database is another source's (not the engine's own): its `hdb_catalog` holds only what Hasura v2
   * keeps in a source (the event log and invocation logs). `previous`: the source's trigger names
   * before this change (their pending events are archived when they go).
   */
  source?: { name: string; previous: readonly string[] };
}

interface Wanted {
  fname: string;
  body: string;
  op: EventOp;
  info: EventTriggerInfo;
}

function wantedCaptures(cache: SchemaCache): Map<string, Wanted> {
  const out = new Map<string, Wanted>();
  for (const info of cache.eventTriggers?.values() ?? []) {
    for (const op of EVENT_OPS) {
      const spec = info.definition.definition[op];
      if (!spec) continue;
      const fname = captureFunctionName(info.name, op);
      out.set(fname, { fname, body: captureFunctionBody(info.name, op, spec), op, info });
    }
  }
  return out;
}

interface Existing {
  fname: string;
  src: string;
  triggers: Array<{ schema: string; table: string; tgname: string }>;
}

/** The capture functions in `hdb_catalog` with the tables their triggers sit on, and whether the event tables exist: one query. */
async function existingState(client: DbClient, onSource: boolean): Promise<{ captures: Map<string, Existing>; tables: boolean }> {
  const r = await client.query(
    // A Hasura v2 catalog has event_log but no event_triggers table: the missing ones are created (on `default`).
    `SELECT to_regclass('hdb_catalog.event_log') IS NOT NULL AND ${onSource ? 'true' : "to_regclass('hdb_catalog.event_triggers') IS NOT NULL"} AS tables,
       (SELECT coalesce(json_agg(f), '[]') FROM (
          SELECT p.proname AS fname, p.prosrc AS src,
            coalesce(json_agg(json_build_object('schema', n.nspname, 'table', c.relname, 'tgname', t.tgname)) FILTER (WHERE t.oid IS NOT NULL), '[]') AS triggers
          FROM pg_catalog.pg_proc p
          JOIN pg_catalog.pg_namespace pn ON pn.oid = p.pronamespace AND pn.nspname = 'hdb_catalog'
          LEFT JOIN pg_catalog.pg_trigger t ON t.tgfoid = p.oid
          LEFT JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid
          LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
          WHERE p.proname LIKE 'notify\\_svc\\_%'
          GROUP BY p.proname, p.prosrc) f) AS captures`,
  );
  const list = r.rows[0].captures as Existing[];
  return { tables: r.rows[0].tables === true, captures: new Map(list.map((e) => [e.fname, e])) };
}

/**
 * Brings capture triggers, the event tables and `hdb_catalog.event_triggers` in line with `cache`
 * (inside the caller's transaction). Cheap when nothing changed: one catalog query.
 */
export async function syncEventTriggers(client: DbClient, cache: SchemaCache, options: SyncOptions = {}): Promise<void> {
  const onSource = options.source !== undefined;
  const wanted = wantedCaptures(cache);
  const { captures: existing, tables } = await existingState(client, onSource);
  if (wanted.size === 0 && existing.size === 0 && !tables) return;

  const triggers = [...(cache.eventTriggers?.values() ?? [])];
  if (triggers.length > 0 && !tables) await (onSource ? createSourceEventTables(client) : createEventTables(client));

  for (const e of existing.values()) {
    if (!wanted.has(e.fname)) await runFragment(client, sql`DROP FUNCTION IF EXISTS ${sql.ident('hdb_catalog', e.fname)}() CASCADE`);
  }
  for (const w of wanted.values()) {
    const e = existing.get(w.fname);
    const fn = sql.ident('hdb_catalog', w.fname);
    if (!e || e.src !== w.body) {
      await runFragment(client, sql`CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS ${sql.unsafeRaw(TAG + w.body + TAG)}`);
    }
    const table = w.info.table;
    const placed = e?.triggers ?? [];
    const right = placed.length === 1 && placed[0].schema === table.schema && placed[0].table === table.name && placed[0].tgname === w.fname;
    if (right) continue;
    for (const t of placed) await runFragment(client, sql`DROP TRIGGER IF EXISTS ${sql.ident(t.tgname)} ON ${sql.ident(t.schema, t.table)}`);
    const event = sql.unsafeRaw(w.op.toUpperCase());
    await runFragment(client, sql`CREATE TRIGGER ${sql.ident(w.fname)} AFTER ${event} ON ${sql.table(table)} FOR EACH ROW EXECUTE FUNCTION ${fn}()`);
  }

  if (triggers.length === 0) {
    // The last trigger is gone (delete_event_trigger, clear_metadata, untrack, drop): so are the tables.
    // On a catalog adopted from Hasura the event tables are Hasura's too: they stay.
    if (tables && !(await sharesHasuraCatalog(client))) await (onSource ? dropSourceEventTables(client) : dropEventTables(client));
    return;
  }
  if (options.source) {
    // Another source's database keeps no trigger table (as Hasura v2's): the events of the triggers
    // this change removed are archived by name.
    const names = new Set(triggers.map((t) => t.name));
    const removed = options.source.previous.filter((n) => !names.has(n));
    if (removed.length > 0 && tables) {
      await runFragment(client, sql`UPDATE hdb_catalog.event_log SET archived = true
        WHERE NOT archived AND NOT delivered AND NOT error AND trigger_name = ANY(${sql.value(removed, 'text[]')})`);
    }
    return;
  }
  const rows = triggers.map((t) => ({ name: t.name, schema_name: t.table.schema, table_name: t.table.name, configuration: encodeEventTrigger(t.definition) }));
  const names = rows.map((r) => r.name);
  await runFragment(
    client,
    sql`UPDATE hdb_catalog.event_log SET archived = true
        WHERE NOT archived AND NOT delivered AND NOT error
          AND trigger_name IN (SELECT name FROM hdb_catalog.event_triggers WHERE NOT (name = ANY(${sql.value(names, 'text[]')})))`,
  );
  await writeTriggerRows(client, rows);
}
