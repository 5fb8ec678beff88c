/**
 * Relationships of a remote schema's types to tables at execution: in a remote root field's answer,
 * every object carrying a relationship's join fields (the aliases typeRelPlan.ts added) gets, in
 * their place, the relationship's keys; then each target source is asked ONE statement per level
 * for all of them (remoteJoin.ts's `runFound`, which runs the target rows' own joins next), and
 * the join fields the client did not select are gone from the answer.
 */
import type { SelectField } from '../ir/index.js';
import type { NormalizedOperation } from '../graphql/index.js';
import { checkRemoteJoins, runFound, type Places, type RemoteJoinArgs } from './remoteJoin.js';
import type { SchemaCache } from '../metadata/index.js';
import type { TypeRelJoin } from './typeRelPlan.js';

type Json = unknown;

/** Checks what the client asked of the remote relationships of the target tables' rows (before anything runs). */
export function checkTypeRelJoins(joins: readonly TypeRelJoin[], op: NormalizedOperation, cache: SchemaCache, variables: Record<string, unknown>, role: string): void {
  const fields: SelectField[] = joins.map((j) => ({ alias: j.alias, kind: 'remote_rel_keys', columns: [], join: j.join }));
  checkRemoteJoins({ shape: { kind: 'rows', fields }, op }, cache, variables, role);
}

/** Joins the target rows into `value` (a remote root field's answer, in place); returns it. */
export async function runTypeRelJoins(value: Json, joins: readonly TypeRelJoin[], op: NormalizedOperation, args: RemoteJoinArgs): Promise<Json> {
  const found = new Map<TypeRelJoin, Places>(joins.map((j) => [j, { join: j.join, alias: j.alias, holders: [] }]));
  const visit = (v: Json): void => {
    if (v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      for (const x of v) visit(x);
      return;
    }
    const o = v as Record<string, Json>;
    for (const x of Object.values(o)) visit(x);
    delete o.__svc_t;
    for (const j of joins) {
      if (!(j.phantoms[0] in o)) continue;
      const keys: Record<string, Json> = {};
      j.join.rel.mapping.forEach((m, i) => {
        keys[m.local] = o[j.phantoms[i]] ?? null;
        delete o[j.phantoms[i]];
      });
      o[j.alias] = keys;
      found.get(j)!.holders.push(o);
    }
  };
  visit(value);
  for (const [j, p] of found) if (p.holders.length === 0) found.delete(j);
  if (found.size > 0) await runFound(found, args, op.fragments);
  return value;
}
