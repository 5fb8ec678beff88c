/**
 * Relationships to a source's table at execution (Hasura v2's remote-source relationships): the
 * holders of one response level, for every such relationship to one source, answered by ONE
 * statement on that source (each relationship's statement over its distinct keys, combined),
 * then each row's answer put in place of its join columns. Returns each relationship's distinct
 * answers, where the next level's joins are found.
 */
import type { Session } from '../core/index.js';
import type { SourceJoinField } from '../planner/index.js';
import { combineSourceJoins, compile, resolveParams, sourceJoinKeyColumn, type SourceJoinNode } from '../sql/index.js';

type Json = unknown;

/** Where one relationship's join columns sit: the objects holding them, under `alias`. */
export interface SourcePlaces {
  join: SourceJoinField;
  alias: string;
  holders: Array<Record<string, Json>>;
}

/** Runs a statement on a source's pool (the executor's: api/executeRemote.ts) and gives its one JSON value. */
export type SourceQuery = (source: string, text: string, params: unknown[]) => Promise<string | null>;

export interface SourceJoinArgs {
  session: Session;
  variables: Record<string, unknown>;
  sourceQuery?: SourceQuery;
  /** Counts the statements sent for these joins (tests and benchmarks read it). */
  statements?: { count: number };
}

/** The answers of `places` (all to `source`), put in place; each relationship's distinct answers. */
export async function joinSource(source: string, places: readonly SourcePlaces[], args: SourceJoinArgs): Promise<Array<{ node: SourceJoinNode; answers: Json[] }>> {
  if (!args.sourceQuery) throw new Error('relationships to a source\'s table need a source executor');
  const variables: Record<string, unknown> = { ...args.variables };
  const rowKeys = places.map((p) => {
    const index = new Map<string, number>();
    const keys: Array<Record<string, Json>> = [];
    const ofRow = p.holders.map((holder) => {
      const given = (holder[p.alias] ?? {}) as Record<string, Json>;
      const values = p.join.rel.mapping.map((m) => given[m.local] ?? null);
      const id = JSON.stringify(values);
      let n = index.get(id);
      if (n === undefined) {
        n = keys.length;
        index.set(id, n);
        const row: Record<string, Json> = { i: n };
        values.forEach((v, j) => { row[sourceJoinKeyColumn(j)] = v; });
        keys.push(row);
      }
      return n;
    });
    variables[p.join.keysVariable] = keys;
    return ofRow;
  });
  const { text, params } = compile(combineSourceJoins(places.map((p) => p.join.statement)));
  const answer = await args.sourceQuery(source, text, resolveParams(params, variables, args.session));
  if (args.statements) args.statements.count += 1;
  const parsed = JSON.parse(answer ?? '[]') as Json[];
  const lists = (places.length === 1 ? [parsed] : parsed) as Array<Array<{ v: Json }>>;
  return places.map((p, i) => {
    const answers = (lists[i] ?? []).map((r) => r.v);
    const empty = p.join.node.kind === 'array' ? [] : null;
    p.holders.forEach((holder, h) => {
      holder[p.alias] = answers[rowKeys[i][h]] ?? empty;
    });
    return { node: p.join.node, answers };
  });
}
