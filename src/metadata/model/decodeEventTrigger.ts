/**
 * Decoders for event triggers: the `create_event_trigger` arguments (Hasura v1.3's
 * `CreateEventTriggerQuery` parser: name pattern, at least one operation, exactly one of `webhook` /
 * `webhook_from_env`, no empty column list — each a parse-failed at `$`) and the stored/exported form
 * (`tables[i].event_triggers[j]`, used by `replace_metadata`). Header env variables named
 * `SVC_GRAPHQL_*` are refused (they hold the engine's own secrets).
 */
import { parseQualifiedName, pathKey } from '../../core/index.js';
import type { QualifiedTable } from '../../core/index.js';
import { assertEnvNameAllowed } from '../../webhooks/index.js';
import { decodeRequestTransform, decodeResponseTransform } from '../../transforms/index.js';
import type { EventTriggerColumns, EventTriggerMetadata, EventTriggerOpSpec, WebhookHeaderConf } from './metadata.js';
import { arrayOf, asBool, asInt, asObject, asString, asUrlConf, optional, parseError, required } from './json.js';
import type { JsonObject } from './json.js';

const NAME = /^[A-Za-z]+[A-Za-z0-9_-]*$/;
export const EVENT_OPS = ['insert', 'update', 'delete'] as const;
export type EventOp = (typeof EVENT_OPS)[number];

/** Hasura's defaults for `retry_conf`. */
export const DEFAULT_RETRY_CONF = { num_retries: 0, interval_sec: 10, timeout_sec: 60 } as const;

function decodeColumnsSpec(v: unknown, path: string): EventTriggerColumns {
  if (v === '*') return '*';
  if (Array.isArray(v)) return arrayOf(asString)(v, path);
  throw parseError('expected "*" or an array of column names', path);
}

function decodeOpSpec(v: unknown, path: string): EventTriggerOpSpec {
  const o = asObject(v, path);
  const spec: EventTriggerOpSpec = { columns: required(o, 'columns', path, decodeColumnsSpec) };
  const payload = optional(o, 'payload', path, decodeColumnsSpec);
  if (payload !== undefined) spec.payload = payload;
  return spec;
}

function nonNegative(v: unknown, path: string): number {
  const n = asInt(v, path);
  if (n < 0) throw parseError('expected a non-negative integer', path);
  return n;
}

function decodeRetryConf(v: unknown, path: string): EventTriggerMetadata['retry_conf'] {
  const o = asObject(v, path);
  const timeout = optional(o, 'timeout_sec', path, nonNegative) ?? DEFAULT_RETRY_CONF.timeout_sec;
  return {
    num_retries: optional(o, 'num_retries', path, nonNegative) ?? DEFAULT_RETRY_CONF.num_retries,
    interval_sec: optional(o, 'interval_sec', path, nonNegative) ?? DEFAULT_RETRY_CONF.interval_sec,
    timeout_sec: timeout === 0 ? DEFAULT_RETRY_CONF.timeout_sec : timeout,
  };
}

export function decodeWebhookHeader(v: unknown, path: string): WebhookHeaderConf {
  const o = asObject(v, path);
  const name = required(o, 'name', path, asString);
  const value = optional(o, 'value', path, asString);
  const fromEnv = optional(o, 'value_from_env', path, asString);
  if ((value === undefined) === (fromEnv === undefined)) throw parseError('expecting exactly one of "value" and "value_from_env"', path);
  if (fromEnv !== undefined) {
    assertEnvNameAllowed(fromEnv, pathKey(path, 'value_from_env'));
    return { name, value_from_env: fromEnv };
  }
  return { name, value: value! };
}

/** Shared checks of both forms, in Hasura's order (errors at `path`, i.e. `$` for the op). */
function checkTrigger(name: string, specs: Partial<Record<EventOp, EventTriggerOpSpec>>, enableManual: boolean, webhook: unknown, fromEnv: unknown, path: string): void {
  if (!NAME.test(name)) throw parseError('only alphanumeric and underscore and hyphens allowed for name', path);
  if (!EVENT_OPS.some((op) => specs[op] !== undefined) && !enableManual) {
    throw parseError('at least one among the insert/update/delete/manual specs must be provided', path);
  }
  if (webhook !== undefined && fromEnv !== undefined) throw parseError('only one of webhook or webhook_from_env should be given', path);
  if (webhook === undefined && fromEnv === undefined) throw parseError('must provide webhook or webhook_from_env', path);
  for (const op of EVENT_OPS) {
    const s = specs[op];
    if (s && ((Array.isArray(s.columns) && s.columns.length === 0) || (Array.isArray(s.payload) && s.payload.length === 0))) {
      throw parseError('found empty column specification', path);
    }
  }
  if (typeof fromEnv === 'string') assertEnvNameAllowed(fromEnv, pathKey(path, 'webhook_from_env'));
}

function decodeBody(o: JsonObject, path: string, defOf: JsonObject, defPath: string): EventTriggerMetadata {
  const name = required(o, 'name', path, asString);
  const specs: Partial<Record<EventOp, EventTriggerOpSpec>> = {};
  for (const op of EVENT_OPS) {
    const s = optional(defOf, op, defPath, decodeOpSpec);
    if (s) specs[op] = s;
  }
  const enableManual = optional(defOf, 'enable_manual', defPath, asBool) ?? false;
  const webhook = optional(o, 'webhook', path, asUrlConf);
  const fromEnv = optional(o, 'webhook_from_env', path, asString);
  checkTrigger(name, specs, enableManual, webhook, fromEnv, path);
  const out: EventTriggerMetadata = {
    name,
    definition: { enable_manual: enableManual, ...specs },
    retry_conf: optional(o, 'retry_conf', path, decodeRetryConf) ?? { ...DEFAULT_RETRY_CONF },
  };
  if (webhook !== undefined) out.webhook = webhook;
  if (fromEnv !== undefined) out.webhook_from_env = fromEnv;
  const headers = optional(o, 'headers', path, arrayOf(decodeWebhookHeader));
  if (headers && headers.length > 0) out.headers = headers;
  const comment = optional(o, 'comment', path, asString);
  if (comment !== undefined) out.comment = comment;
  const rt = optional(o, 'request_transform', path, decodeRequestTransform);
  if (rt) out.request_transform = rt;
  const st = optional(o, 'response_transform', path, decodeResponseTransform);
  if (st) out.response_transform = st;
  return out;
}

/** `create_event_trigger` args: the trigger, its table and `replace`. */
export function decodeCreateEventTrigger(v: unknown, path: string): { table: QualifiedTable; trigger: EventTriggerMetadata; replace: boolean } {
  const o = asObject(v, path);
  const table = required(o, 'table', path, parseQualifiedName);
  const trigger = decodeBody(o, path, o, path);
  return { table, trigger, replace: optional(o, 'replace', path, asBool) ?? false };
}

/** The stored / exported form (`{name, definition: {...}, retry_conf, webhook | webhook_from_env, headers}`). */
export function decodeEventTriggerMetadata(v: unknown, path: string): EventTriggerMetadata {
  const o = asObject(v, path);
  const defPath = pathKey(path, 'definition');
  const def = required(o, 'definition', path, asObject);
  return decodeBody(o, path, def, defPath);
}
