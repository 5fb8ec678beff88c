/**
 * Cron triggers in `hdb_catalog.hdb_cron_triggers` and their materialised occurrences in
 * `hdb_cron_events`. Every write runs on the caller's connection (the `/v1/query` transaction, so a
 * failed request leaves both as they were). Occurrences are generated ahead, `CRON_EVENTS_AHEAD`
 * (100, as Hasura) per trigger, computed in UTC with cron-parser and inserted in one statement with
 * `ON CONFLICT (trigger_name, scheduled_time) WHERE status = 'scheduled' DO NOTHING` (the engine's UNIQUE key, or
 * the partial one of a catalog adopted from Hasura v2): two engines topping up at once cannot
 * create an occurrence twice.
 */
import { CronExpressionParser } from 'cron-parser';
import type { DbClient } from '../execution/index.js';
import { runFragment } from '../delivery/index.js';
import { sql } from '../sql/index.js';
import type { WebhookHeaderConf } from '../metadata/index.js';
import { DEFAULT_SCHEDULED_RETRY_CONF, type CronTriggerDef, type ScheduledRetryConf } from './decodeScheduled.js';
import { ensureScheduledTables } from './scheduledTables.js';

export const CRON_EVENTS_AHEAD = 100;

function rowToDef(r: Record<string, unknown>): CronTriggerDef {
  const webhook = r.webhook_conf as string | { webhook?: string; from_env?: string };
  return {
    name: String(r.name),
    webhook: typeof webhook === 'string' ? webhook : typeof webhook?.from_env === 'string' ? { from_env: webhook.from_env } : String(webhook?.webhook ?? ''),
    schedule: String(r.cron_schedule),
    payload: r.payload ?? null,
    headers: (r.header_conf as WebhookHeaderConf[] | null) ?? [],
    retry_conf: { ...DEFAULT_SCHEDULED_RETRY_CONF, ...((r.retry_conf as Partial<ScheduledRetryConf> | null) ?? {}) },
    include_in_metadata: r.include_in_metadata === true,
    comment: (r.comment as string | null) ?? null,
  };
}

export async function listCronTriggers(client: DbClient, onlyInMetadata = false): Promise<CronTriggerDef[]> {
  await ensureScheduledTables(client);
  const r = await runFragment(
    client,
    sql`SELECT name, webhook_conf, cron_schedule, payload, retry_conf, header_conf, include_in_metadata, comment
        FROM hdb_catalog.hdb_cron_triggers ${onlyInMetadata ? sql`WHERE include_in_metadata ` : sql.empty}ORDER BY name`,
  );
  return r.rows.map(rowToDef);
}

export async function cronTriggerExists(client: DbClient, name: string): Promise<boolean> {
  await ensureScheduledTables(client);
  const r = await runFragment(client, sql`SELECT 1 FROM hdb_catalog.hdb_cron_triggers WHERE name = ${sql.value(name, 'text')}`);
  return r.rows.length > 0;
}

/**
 * Creates or replaces a trigger. A replaced trigger loses its pending, unclaimed occurrences (they
 * followed the old schedule) and gets a fresh set; delivered history stays.
 */
export async function upsertCronTrigger(client: DbClient, t: CronTriggerDef): Promise<void> {
  await ensureScheduledTables(client);
  await runFragment(
    client,
    sql`INSERT INTO hdb_catalog.hdb_cron_triggers (name, webhook_conf, cron_schedule, payload, retry_conf, header_conf, include_in_metadata, comment)
        VALUES (${sql.value(t.name, 'text')}, ${sql.value(JSON.stringify(t.webhook), 'json')}, ${sql.value(t.schedule, 'text')},
                ${sql.value(t.payload === null ? null : JSON.stringify(t.payload), 'json')}, ${sql.value(JSON.stringify(t.retry_conf), 'json')},
                ${sql.value(JSON.stringify(t.headers), 'json')}, ${sql.value(t.include_in_metadata, 'bool')}, ${sql.value(t.comment, 'text')})
        ON CONFLICT (name) DO UPDATE SET webhook_conf = EXCLUDED.webhook_conf, cron_schedule = EXCLUDED.cron_schedule,
          payload = EXCLUDED.payload, retry_conf = EXCLUDED.retry_conf, header_conf = EXCLUDED.header_conf,
          include_in_metadata = EXCLUDED.include_in_metadata, comment = EXCLUDED.comment`,
  );
  await runFragment(
    client,
    sql`DELETE FROM hdb_catalog.hdb_cron_events
        WHERE trigger_name = ${sql.value(t.name, 'text')} AND status = 'scheduled' AND tries = 0 AND locked_at IS NULL AND scheduled_time > now()`,
  );
  await generateCronEvents(client, [t.name]);
}

/** Deletes triggers (their occurrences and invocation logs go with them, FK cascade); returns how many. */
export async function deleteCronTriggers(client: DbClient, names: readonly string[]): Promise<number> {
  await ensureScheduledTables(client);
  const r = await runFragment(client, sql`DELETE FROM hdb_catalog.hdb_cron_triggers WHERE name = ANY(${sql.value(names, 'text[]')})`);
  return r.rowCount ?? 0;
}

/** `clear_metadata` / `replace_metadata`: drops every trigger that belongs to the metadata. */
export async function deleteCronTriggersInMetadata(client: DbClient): Promise<void> {
  await ensureScheduledTables(client);
  await runFragment(client, sql`DELETE FROM hdb_catalog.hdb_cron_triggers WHERE include_in_metadata`);
}

/** The next `count` occurrences of `schedule` strictly after `after` (UTC). */
export function nextOccurrences(schedule: string, after: Date, count: number): Date[] {
  const it = CronExpressionParser.parse(schedule, { tz: 'UTC', currentDate: after });
  const out: Date[] = [];
  for (let i = 0; i < count; i++) out.push(it.next().toDate());
  return out;
}

/**
 * Tops up the pending occurrences of the given triggers (all when `names` is omitted) to
 * `CRON_EVENTS_AHEAD`, continuing after the latest stored occurrence (or now). Returns how many
 * rows were inserted. One read and one insert statement, whatever the number of triggers.
 */
export async function generateCronEvents(client: DbClient, names?: readonly string[]): Promise<number> {
  const filter = names ? sql`WHERE ct.name = ANY(${sql.value(names, 'text[]')})` : sql.empty;
  const r = await runFragment(
    client,
    sql`SELECT ct.name, ct.cron_schedule,
          (SELECT count(*) FROM hdb_catalog.hdb_cron_events e WHERE e.trigger_name = ct.name AND e.status IN ('scheduled','locked') AND e.scheduled_time > now())::int AS pending,
          greatest(now(), (SELECT max(e.scheduled_time) FROM hdb_catalog.hdb_cron_events e WHERE e.trigger_name = ct.name)) AS after
        FROM hdb_catalog.hdb_cron_triggers ct ${filter}`,
  );
  const tn: string[] = [];
  const times: string[] = [];
  for (const row of r.rows) {
    const missing = CRON_EVENTS_AHEAD - Number(row.pending);
    if (missing <= 0) continue;
    let occ: Date[];
    try {
      occ = nextOccurrences(String(row.cron_schedule), new Date(row.after as string | Date), missing);
    } catch {
      continue; // a schedule that stopped parsing (never stored by the ops): nothing to generate
    }
    for (const d of occ) {
      tn.push(String(row.name));
      times.push(d.toISOString());
    }
  }
  if (tn.length === 0) return 0;
  const ins = await runFragment(
    client,
    sql`INSERT INTO hdb_catalog.hdb_cron_events (trigger_name, scheduled_time)
        SELECT * FROM unnest(${sql.value(tn, 'text[]')}, ${sql.value(times, 'timestamptz[]')})
        ON CONFLICT (trigger_name, scheduled_time) WHERE status = 'scheduled' DO NOTHING`,
  );
  return ins.rowCount ?? 0;
}
