/**
 * The multiplexed live-query statement (Hasura's `mkMultiplexedQuery`): ONE statement answers a
 * whole batch of cohorts. Each cohort is a row of `unnest($1::uuid[], $2::json[])`: its id and a
 * JSON array holding, as text, the value of every parameter of the root field's statement (GraphQL
 * variables, session variables and literals alike). The root field's statement is joined laterally
 * with each `$n` rewritten to read the cohort's n-th value and cast to the type it had:
 *
 *   subscription ($id: Int!) { track_by_pk(id: $id) { name } }
 *   → SELECT "_subs"."result_id", '{"track_by_pk":' || coalesce("_fld"."root"::text, 'null') || '}' AS "result"
 *     FROM unnest($1::"_uuid", $2::"_json") AS "_subs"("result_id", "result_vars")
 *     LEFT OUTER JOIN LATERAL (SELECT … WHERE _t0."id" = ("_subs"."result_vars"->>0)::"int4" …)
 *       AS "_fld"("root") ON true
 *   $1 = {<cohort uuid>, …}   $2 = {"[\"5\"]", …}
 *
 * One row comes back per cohort: `result` is the `data` object's JSON text (written like the HTTP
 * response's, so a live result and a query result are the same bytes).
 */
import type { Session } from '../core/index.js';
import type { LiveKey } from '../planner/index.js';
import { responseKeys } from '../graphql/index.js';
import { compile, mapParamRefs, resolveParams, sql, type Param } from '../sql/index.js';
import { pgText, quoteElement } from './pgText.js';

/** A subscription's root field as the planner compiled it. */
export interface LiveRootField {
  alias: string;
  text: string;
  params: Param[];
  /** The row key that narrows reruns (planner/liveKey.ts), when the field has one. */
  liveKey?: LiveKey;
  /** The Postgres source it reads (absent: `default`). */
  source?: string;
}

const statements = new WeakMap<LiveRootField, string>();

/**
 * The multiplexed statement of `field` (memoised per compiled field). `extra`: the field's
 * statement's columns after `root` (a streaming field's `cursor` and `n`, planner/stream.ts),
 * returned too.
 */
export function multiplexedStatement(field: LiveRootField, extra: readonly string[] = []): string {
  let text = statements.get(field);
  if (text === undefined) {
    const inner = mapParamRefs(field.text, (i) => `("_subs"."result_vars"->>${i})`);
    const ids = sql.param({ kind: 'value', value: null }, '_uuid');
    const vars = sql.param({ kind: 'value', value: null }, '_json');
    const cursorColumn = sql.join(extra.map((c) => sql`, ${sql.ident('_fld', c)}`), '');
    const fldColumns = sql.join(['root', ...extra].map((c) => sql.ident(c)), ', ');
    // `{"<alias>":…}`, or `{"<namespace>":{"<alias>":…}}` for a field chosen under a source's namespace.
    const keys = responseKeys([field.alias]);
    text = compile(sql`SELECT ${sql.ident('_subs', 'result_id')}, ${sql.literal(keys.before[0]!)} || coalesce(${sql.ident('_fld', 'root')}::text, 'null') || ${sql.literal(keys.after)} AS ${sql.ident('result')}${cursorColumn}
FROM unnest(${ids}, ${vars}) AS ${sql.ident('_subs')}(${sql.ident('result_id')}, ${sql.ident('result_vars')})
LEFT OUTER JOIN LATERAL (${sql.unsafeRaw(inner)}) AS ${sql.ident('_fld')}(${fldColumns}) ON true`).text;
    statements.set(field, text);
  }
  return text;
}

/**
 * The cohort variables of one subscriber: the JSON array of its parameter texts. Subscribers with
 * equal arrays get equal results, so this is also the cohort key. Throws (like an HTTP request
 * would) when a session variable the permissions need is missing.
 */
export function cohortVariables(field: LiveRootField, variables: Record<string, unknown>, session: Session): string {
  return JSON.stringify(resolveParams(field.params, variables, session).map(pgText));
}

/** The two bound values of the statement for a batch: `[uuid[] literal, json[] literal]`. */
export function batchValues(cohorts: ReadonlyArray<{ id: string; varsElement: string }>): [string, string] {
  let ids = '';
  let vars = '';
  for (let i = 0; i < cohorts.length; i++) {
    const sep = i === 0 ? '' : ',';
    ids += sep + cohorts[i]!.id;
    vars += sep + cohorts[i]!.varsElement;
  }
  return [`{${ids}}`, `{${vars}}`];
}

/** A cohort's variables as an element of the `json[]` literal. */
export const varsElement = (varsJson: string): string => quoteElement(varsJson);
