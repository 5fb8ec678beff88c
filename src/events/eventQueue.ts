/**
 * `hdb_catalog.event_log` as a delivery queue (see delivery/queueTable.ts). A claim takes only
 * events of triggers this instance can deliver (known to its schema cache, webhook resolved), so an
 * instance that has not yet seen a new trigger leaves its events to the others. The webhook body is
 * Hasura's EventPayload (DECISIONS 1), assembled around the stored payload text without re-parsing:
 *
 *   {"id", "table": {schema, name}, "trigger": {name}, "event": {op, data: {old, new}, session_variables},
 *    "delivery_info": {current_retry, max_retries}, "created_at"}
 */
import type { DeliveryPlan, Job, QueueAdapter, QueueTable } from '../delivery/index.js';
import type { SchemaCache } from '../metadata/index.js';
import { sql } from '../sql/index.js';
import { ApiError } from '../core/index.js';
import { applyRequestTransform, applyResponseTransform, requestBindings, type RequestTransform, type ResponseTransform } from '../transforms/index.js';

export const EVENT_LOG_QUEUE: QueueTable = {
  table: { schema: 'hdb_catalog', name: 'event_log' },
  idType: 'text',
  logTable: { schema: 'hdb_catalog', name: 'event_invocation_logs' },
  pending: sql`NOT t.delivered AND NOT t.error AND NOT t.archived`,
  setOutcome: (ok, dead) => sql`delivered = ${ok}, error = ${dead}`,
  returning: sql`t.schema_name, t.table_name, t.trigger_name, t.payload::text AS payload,
    to_char(t.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_at_text`,
  orderBy: sql`t.created_at`,
};

/**
 * The same queue in Hasura-compatible mode: the payload's `session_variables` get an `x-hasura-*`
 * twin beside each `x-svc-*` key (computed in Postgres, so the stored payload's numbers keep every digit).
 */
export const EVENT_LOG_QUEUE_HASURA: QueueTable = {
  ...EVENT_LOG_QUEUE,
  returning: sql`t.schema_name, t.table_name, t.trigger_name,
    (CASE WHEN jsonb_typeof(t.payload->'session_variables') = 'object'
      THEN jsonb_set(t.payload, '{session_variables}',
        (SELECT coalesce(jsonb_object_agg('x-hasura-' || substr(s.key, 7), s.value), '{}'::jsonb)
           FROM jsonb_each(t.payload->'session_variables') AS s WHERE s.key LIKE 'x-svc-%') || (t.payload->'session_variables'))
      ELSE t.payload END)::text AS payload,
    to_char(t.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_at_text`,
};

/** The webhook body of one event (see the module comment). */
export function eventBody(job: Job, maxRetries: number): string {
  const r = job.row;
  return (
    `{"id":${JSON.stringify(job.id)},"table":{"schema":${JSON.stringify(r.schema_name)},"name":${JSON.stringify(r.table_name)}},` +
    `"trigger":{"name":${JSON.stringify(r.trigger_name)}},"event":${String(r.payload)},` +
    `"delivery_info":{"current_retry":${job.tries},"max_retries":${maxRetries}},"created_at":${JSON.stringify(r.created_at_text)}}`
  );
}

/**
 * A delivery with the trigger's request transform applied: `$body` is the event payload, `$base_url` the webhook,
 * `$session_variables` the event's. The invocation log records the transformed request. A transform that fails
 * to evaluate marks the event as error (its message in the log) without calling the webhook.
 */
export function transformedPlan(plan: DeliveryPlan, rt: RequestTransform): DeliveryPlan | { dead: string } {
  const payload = JSON.parse(plan.body) as { event?: { session_variables?: Record<string, unknown> | null } };
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const h of plan.headers) headers[h.name.toLowerCase()] = h.value;
  let out;
  try {
    out = applyRequestTransform(rt, { method: 'POST', url: plan.url, headers, body: payload, bodyKind: 'json' }, {
      sessionVariables: payload.event?.session_variables ?? null,
    });
  } catch (e) {
    if (e instanceof ApiError) return { dead: `${e.message}: ${JSON.stringify(e.internal)}` };
    throw e;
  }
  const body = out.bodyKind === 'json' ? JSON.stringify(out.body ?? null) : out.bodyKind === 'raw' ? String(out.body) : '';
  const fromEnv = new Set(plan.headers.filter((h) => h.fromEnv).map((h) => h.name.toLowerCase()));
  return {
    ...plan,
    url: out.url,
    method: out.method,
    headers: Object.entries(out.headers).map(([name, value]) => ({ name, value, fromEnv: fromEnv.has(name) })),
    body,
    logBody: out.bodyKind === 'json' ? body : JSON.stringify(out.bodyKind === 'raw' ? body : null),
  };
}

/**
 * The trigger's response transform as a plan's `transformResponse`: a 2xx answer's body is reshaped
 * before the invocation log keeps it, as Hasura does. `$body` is the answer (null when it is not JSON),
 * `$request` the bindings of the request the engine built before any request transform, `$response.status`
 * its status, `$session_variables` the event's. A failing template fails the attempt (see attemptOutcome.ts).
 */
export function responseTransformer(plan: DeliveryPlan, st: ResponseTransform): NonNullable<DeliveryPlan['transformResponse']> {
  return (status, text) => {
    const payload = JSON.parse(plan.body) as { event?: { session_variables?: Record<string, unknown> | null } };
    const ctx = { sessionVariables: payload.event?.session_variables ?? null };
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    for (const h of plan.headers) headers[h.name.toLowerCase()] = h.value;
    let answer: unknown = null;
    try {
      answer = JSON.parse(text);
    } catch {
      // not JSON: the template sees null
    }
    try {
      const request = requestBindings({ method: 'POST', url: plan.url, headers, body: payload, bodyKind: 'json' }, ctx);
      return { body: JSON.stringify(applyResponseTransform(st, answer, request, status, ctx) ?? null) };
    } catch (e) {
      if (e instanceof ApiError) return { error: `${e.message}: ${JSON.stringify(e.internal)}` };
      throw e;
    }
  };
}

/** `current`: the cache whose triggers this queue delivers (another source's: undefined while that source is not built). */
export function eventQueue(current: () => SchemaCache | undefined, userAgent: string, hasuraSession = false): QueueAdapter {
  /** Deliverable trigger names of the cache last seen (recomputed when the cache is swapped). */
  let seen: SchemaCache | undefined;
  let names: string[] = [];
  const refresh = () => {
    const cache = current();
    if (cache === seen) return;
    seen = cache;
    names = [];
    for (const t of cache?.eventTriggers?.values() ?? []) {
      if ('error' in t.delivery) continue;
      names.push(t.name);
    }
  };
  return {
    name: 'event',
    table: hasuraSession ? EVENT_LOG_QUEUE_HASURA : EVENT_LOG_QUEUE,
    claimFilter() {
      refresh();
      return names.length === 0 ? null : sql`t.trigger_name = ANY(${sql.value(names, 'text[]')})`;
    },
    plan(job): DeliveryPlan | { dead: string } | undefined {
      const t = current()?.eventTriggers?.get(String(job.row.trigger_name));
      if (!t || 'error' in t.delivery) return undefined;
      const rc = t.definition.retry_conf;
      const plan: DeliveryPlan = {
        url: t.delivery.url,
        headers: t.delivery.headers,
        body: eventBody(job, rc.num_retries),
        timeoutMs: rc.timeout_sec * 1000,
        numRetries: rc.num_retries,
        intervalSec: rc.interval_sec,
        log: { trigger: t.name },
      };
      const st = t.definition.response_transform;
      if (st) plan.transformResponse = responseTransformer(plan, st);
      const rt = t.definition.request_transform;
      return rt ? transformedPlan(plan, rt) : plan;
    },
  };
}
