/**
 * Executes an action root field. Synchronous: call the handler, check the answer, then shape it
 * to the selection — in Node when the selection has no relationship, else with the plan's one SQL
 * statement (the handler's output as a jsonb parameter). Asynchronous: insert the log row and
 * answer its id at once (the worker calls the handler later).
 */
import type { Session } from '../core/index.js';
import type { DbClient } from '../execution/index.js';
import { resolveParams } from '../sql/index.js';
import type { ActionFieldPlan } from './actionPlan.js';
import type { OutputSelection } from './outputSelection.js';
import { RESPONSE_VARIABLE } from './outputSql.js';
import { actionInput } from './actionInput.js';
import { callHandler, forwardedHeaders, handlerBody, sessionVariables } from './callHandler.js';
import { insertActionLog } from './actionLog.js';

export interface ActionRunContext {
  db: DbClient;
  session: Session;
  variables: Record<string, unknown>;
  /** The client's request headers (for `forward_client_headers`). */
  clientHeaders?: Record<string, string>;
  prepare?: boolean;
  /** Collects `Set-Cookie` values of handlers for the HTTP response. */
  setCookie?: string[];
  /** Called after an async action's log row is committed (wakes the worker). */
  onAsyncCreated?: () => void;
}

function shape(sel: OutputSelection, o: unknown): unknown {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return null;
  const obj = o as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const f of sel.fields) {
    if (f.kind === 'typename') out[f.alias] = f.name;
    else if (f.kind === 'field') out[f.alias] = obj[f.name] ?? null;
    else if (f.kind === 'object') out[f.alias] = shapeNested(f.selection, obj[f.name], f.list);
    else out[f.alias] = null;
  }
  return out;
}

/** A nested object field (Hasura v2): the object, or the list of them, shaped to its selection. */
function shapeNested(sel: OutputSelection, v: unknown, list: boolean): unknown {
  if (!list) return shape(sel, v);
  return Array.isArray(v) ? v.map((x) => shape(sel, x)) : null;
}

/** The field's JSON text. */
export async function runActionField(plan: ActionFieldPlan, rc: ActionRunContext): Promise<string> {
  const input = actionInput(plan.args, rc.variables);
  if (plan.action.meta.definition.kind === 'asynchronous') {
    const id = await insertActionLog(rc.db, plan.action.name, input, sessionVariables(rc.session), forwardedHeaders(plan.action, rc.clientHeaders ?? {}, rc.session));
    rc.onAsyncCreated?.();
    return JSON.stringify(id);
  }
  const body = handlerBody(plan.action, input, rc.session);
  const answer = await callHandler(plan.action, body, rc.session, rc.clientHeaders);
  rc.setCookie?.push(...answer.setCookie);
  const out = answer.output;
  if (!plan.output || out === null) return JSON.stringify(out ?? null);
  if (plan.sql) {
    const vars = { ...rc.variables, [RESPONSE_VARIABLE]: Array.isArray(out) ? out : [out] };
    return (await rc.db.queryJsonText(plan.sql.text, resolveParams(plan.sql.params, vars, rc.session), { prepare: rc.prepare })) ?? 'null';
  }
  return JSON.stringify(Array.isArray(out) ? out.map((o) => shape(plan.output!, o)) : shape(plan.output, out));
}
