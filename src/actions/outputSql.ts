/**
 * The SQL that turns an action's output (the handler's JSON) into the response JSON, joined to
 * tracked tables through the output object's relationships, in one statement (Hasura builds the
 * same `jsonb_to_record` select). Each output object becomes a row of
 * `jsonb_to_record(elem) AS _a(...)`: fields used by a relationship's `field_mapping` get the type
 * of the remote column (so the join compares typed values), the other fields stay `jsonb` (the
 * value is passed through as the handler sent it). Relationship selects carry the role's row
 * filters and limits (planned by planSelect).
 */
import type { AnnValue } from '../graphql/index.js';
import type { ActionInfo } from '../metadata/index.js';
import type { RelationshipJoin, SelectField } from '../ir/index.js';
import { compileRowJson, sql, type SqlFragment } from '../sql/index.js';
import type { OutputField, OutputSelection } from './outputSelection.js';

/** The variable the sync statement reads the handler's output from (an array of objects). */
export const RESPONSE_VARIABLE = '\u0000action_response';

/** An output relationship as the select IR's object / array relationship (the SQL and the remote joins follow it). */
export function relSelectField(f: Extract<OutputField, { kind: 'rel' }>): SelectField {
  // To another source's table: the output's join fields at its place, the join run after the statement.
  if (f.join) return { alias: f.alias, kind: 'remote_rel_keys', columns: f.rel.mapping.map((m) => ({ key: m.field, column: m.field, pgType: m.pgType })), join: f.join };
  const join: RelationshipJoin = { remoteTable: f.rel.remoteTable, mapping: f.rel.mapping.map((m) => ({ local: m.field, remote: m.column })) };
  if (f.remoteVisibleIf) join.visibleIf = { remote: f.remoteVisibleIf };
  return f.rel.type === 'object' ? { alias: f.alias, kind: 'object_rel', join, select: f.select } : { alias: f.alias, kind: 'array_rel', join, select: f.select };
}

/**
 * `(SELECT <json> FROM jsonb_array_elements(src) ...)`: the output as JSON (list, or first object / null).
 * A nested object field (Hasura v2) is built the same way from its own value, one level deeper.
 */
export function outputJson(src: SqlFragment, sel: OutputSelection, isList: boolean, depth = 0): SqlFragment {
  const types = new Map<string, string>();
  for (const f of sel.fields) {
    if (f.kind === 'field' || f.kind === 'object') types.set(f.name, types.get(f.name) ?? 'jsonb');
    if (f.kind === 'rel') for (const m of f.rel.mapping) types.set(m.field, m.pgType);
  }
  if (types.size === 0) types.set('__svc_none', 'jsonb');
  const e = sql.ident(`_e${depth}`);
  const rec = sql.ident(`_r${depth}`);
  const row = sql.ident(`_a${depth}`);
  const nested: SqlFragment[] = [];
  const fields: SelectField[] = sel.fields.map((f, i): SelectField => {
    if (f.kind === 'typename') return { alias: f.alias, kind: 'typename', name: f.name };
    if (f.kind === 'field') return { alias: f.alias, kind: 'column', column: f.name, pgType: types.get(f.name)! };
    if (f.kind === 'object') {
      const column = `__svc_o${i}`;
      nested.push(sql`${nestedJson(sql`${rec}.${sql.ident(f.name)}`, f.selection, f.list, depth + 1)} AS ${sql.ident(column)}`);
      return { alias: f.alias, kind: 'column', column, pgType: 'json' };
    }
    return relSelectField(f);
  });
  const cols = sql.join([...types].map(([n, t]) => sql`${sql.ident(n)} ${sql.type(t)}`));
  const json = compileRowJson(fields, row);
  const agg = isList ? sql`coalesce(json_agg(${json} ORDER BY ${e}.ord), '[]'::json)` : sql`(json_agg(${json}))->0`;
  const rows = nested.length === 0
    ? sql`jsonb_to_record(${e}.v) AS ${row}(${cols})`
    : sql`jsonb_to_record(${e}.v) AS ${rec}(${cols}) CROSS JOIN LATERAL (SELECT ${rec}.*, ${sql.join(nested)}) AS ${row}`;
  return sql`(SELECT ${agg} FROM jsonb_array_elements(${src}) WITH ORDINALITY AS ${e}(v, ord) CROSS JOIN LATERAL ${rows} WHERE jsonb_typeof(${e}.v) = 'object')`;
}

/** A nested object field's JSON from its jsonb value: null unless it is an object (or, for a list, an array). */
function nestedJson(value: SqlFragment, sel: OutputSelection, isList: boolean, depth: number): SqlFragment {
  if (isList) return sql`CASE WHEN jsonb_typeof(${value}) = 'array' THEN ${outputJson(value, sel, true, depth)} END`;
  return sql`CASE WHEN jsonb_typeof(${value}) = 'object' THEN ${outputJson(sql`jsonb_build_array(${value})`, sel, false, depth)} END`;
}

/** The sync statement: the output built from the response passed as one jsonb array parameter. */
export function outputSql(sel: OutputSelection, isList: boolean): SqlFragment {
  return sql`SELECT ${outputJson(sql`${sql.param(sql.variable(RESPONSE_VARIABLE), 'jsonb')}::jsonb`, sel, isList)} AS "root"`;
}

type AsyncPart =
  | { alias: string; kind: 'typename'; name: string }
  | { alias: string; kind: 'output'; output: OutputSelection | null }
  | { alias: string; kind: 'column'; name: 'id' | 'created_at' | 'errors' };

const valueParam = (v: AnnValue, pgType: string): SqlFragment =>
  v.variable ? sql`${sql.param(sql.variable(v.variable.name, v.variable.path), pgType)}::${sql.type(pgType)}` : sql`${sql.value(v.kind === 'scalar' ? v.value : null, pgType)}::${sql.type(pgType)}`;

/**
 * `<action>(id)`: the log row as `{id, created_at, errors, output}`, or null when there is none
 * the caller may read (same role and same `x-svc-user-id` as its creator; admin reads all).
 */
export function asyncResultSql(action: ActionInfo, id: AnnValue, parts: AsyncPart[], role: string): SqlFragment {
  const isAdmin = role === 'admin';
  const payload = sql`l.response_payload`;
  const src = sql`CASE jsonb_typeof(${payload}) WHEN 'array' THEN ${payload} WHEN 'object' THEN jsonb_build_array(${payload}) ELSE '[]'::jsonb END`;
  const pairs = parts.map((p) => {
    const v = p.kind === 'typename' ? sql`${sql.literal(p.name)}::text`
      : p.kind === 'column' ? sql`l.${sql.ident(p.name)}`
        : p.output ? outputJson(src, p.output, action.output.kind === 'list') : sql`l.response_payload`;
    return sql`${sql.literal(p.alias)}::text, ${v}`;
  });
  const session = sql`${sql.param({ kind: 'sessionJson' }, 'jsonb')}::jsonb`;
  const owner = isAdmin ? sql`` : sql` AND l.session_variables->>'x-svc-role' = ${sql.value(role, 'text')} AND (l.session_variables->>'x-svc-user-id') IS NOT DISTINCT FROM (${session}->>'x-svc-user-id')`;
  return sql`SELECT (SELECT json_build_object(${sql.join(pairs)}) FROM hdb_catalog.hdb_action_log l WHERE l.id = ${valueParam(id, 'uuid')} AND l.action_name = ${sql.value(action.name, 'text')}${owner}) AS "root"`;
}
