/**
 * Build step 5: event triggers of consistent tables. Every column a trigger names (listened or
 * sent) must exist: else the trigger is inconsistent and left out (no capture). Its webhook and
 * header values are resolved from the environment (`{{VAR}}` templates, `webhook_from_env`,
 * `value_from_env`); a missing variable makes it inconsistent too, but its capture keeps running so
 * no change is lost while an operator fixes the environment. Dependencies: the table and each named
 * column (so dropping such a column is refused or cascades).
 */
import type { EventTriggerMetadata, TableMetadata } from '../model/metadata.js';
import { resolveHeaders, resolveWebhook } from '../../webhooks/index.js';
import type { EventTriggerInfo, TableInfo } from './types.js';
import type { DepRef } from './objects.js';
import { BuildError, quoted, tableJson } from './buildState.js';

export function eventTriggerDefinition(tm: TableMetadata, e: EventTriggerMetadata) {
  return { table: tableJson(tm.table), configuration: e };
}

/** Columns a trigger names (listen lists and payload lists), without "*". */
export function eventTriggerColumns(e: EventTriggerMetadata): string[] {
  const out = new Set<string>();
  for (const op of ['insert', 'update', 'delete'] as const) {
    const s = e.definition[op];
    if (!s) continue;
    if (Array.isArray(s.columns)) s.columns.forEach((c) => out.add(c));
    if (Array.isArray(s.payload)) s.payload.forEach((c) => out.add(c));
  }
  return [...out];
}

/** The trigger against its table; throws BuildError for a missing column. */
export function resolveEventTrigger(info: TableInfo, tm: TableMetadata, e: EventTriggerMetadata, env: NodeJS.ProcessEnv): { info: EventTriggerInfo; dependencies: DepRef[]; envError?: string } {
  const cols = eventTriggerColumns(e);
  for (const c of cols) {
    if (!info.columnsByName.has(c)) throw new BuildError(`in table ${quoted(`${tm.table.schema}.${tm.table.name}`)}: in event trigger ${quoted(e.name)}: no such column exists: ${quoted(c)}`);
  }
  const dependencies: DepRef[] = [{ on: { kind: 'table', table: tm.table } }, ...cols.map((column) => ({ on: { kind: 'column' as const, table: tm.table, column } }))];
  const hook = resolveWebhook(e, env);
  const headers = resolveHeaders(e.headers ?? [], env);
  const envError = 'error' in hook ? hook.error : headers.missing.length > 0 ? `environment variable '${headers.missing[0]}' not set` : undefined;
  const delivery = envError !== undefined ? { error: envError } : { url: (hook as { url: string }).url, headers: headers.headers };
  return { info: { name: e.name, table: tm.table, definition: e, delivery }, dependencies, envError };
}
