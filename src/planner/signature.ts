/**
 * The part of the variable values that changes a plan's SQL: which values are null, whether a
 * list was sent as a list or as a single value, list lengths (runs of equal item shapes written
 * once with a count), the keys of input objects (and their order),
 * enum and Boolean values; plus the full value of variables the plan baked in as constants.
 * Scalars elsewhere are bound parameters, so their values do not matter.
 */
import {
  GraphQLBoolean, GraphQLEnumType, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, type GraphQLInputType,
} from 'graphql';
import type { DeclaredVariable } from '../graphql/index.js';

/** The plan key of these variable values (see above). */
export function variableSignature(
  declared: readonly DeclaredVariable[], values: Record<string, unknown>, baked: ReadonlySet<string>,
): string {
  return declared
    .map((d) => (baked.has(d.name) ? `=${JSON.stringify(values[d.name] ?? null)}` : shape(d.type, values[d.name])))
    .join('|');
}

/**
 * The same key from shapes computed by the request's quick variable check (graphql's
 * `variableShape`, which follows `shape` below) — one walk per request instead of two.
 */
export function signatureFromShapes(
  declared: readonly DeclaredVariable[], shapes: readonly string[], values: Record<string, unknown>, baked: ReadonlySet<string>,
): string {
  let out = '';
  for (let i = 0; i < declared.length; i++) {
    const name = declared[i]!.name;
    const part = baked.has(name) ? `=${JSON.stringify(values[name] ?? null)}` : shapes[i]!;
    out += i === 0 ? part : `|${part}`;
  }
  return out;
}

function shape(type: GraphQLInputType, v: unknown): string {
  if (v === null || v === undefined) return 'N';
  if (type instanceof GraphQLNonNull) return shape(type.ofType, v);
  if (type instanceof GraphQLList) {
    if (!Array.isArray(v)) return `W${shape(type.ofType, v)}`;
    const inner = type.ofType instanceof GraphQLNonNull ? type.ofType.ofType : type.ofType;
    if (!(inner instanceof GraphQLList) && !(inner instanceof GraphQLInputObjectType) && !(inner instanceof GraphQLEnumType) && inner !== GraphQLBoolean) {
      return 'L';
    }
    // runs of equal item shapes as `shape*count` (a 100-row insert's key stays short)
    const runs: Array<[string, number]> = [];
    for (const x of v) {
      const s = shape(type.ofType, x);
      const last = runs[runs.length - 1];
      if (last && last[0] === s) last[1]++;
      else runs.push([s, 1]);
    }
    return `[${runs.map(([s, n]) => (n > 1 ? `${s}*${n}` : s)).join(',')}]`;
  }
  if (type instanceof GraphQLInputObjectType) {
    if (typeof v !== 'object' || Array.isArray(v)) return 'X';
    const fields = type.getFields();
    return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${JSON.stringify(k)}:${fields[k] ? shape(fields[k].type, x) : 'X'}`).join(',')}}`;
  }
  if (type instanceof GraphQLEnumType) return `E${JSON.stringify(v)}`;
  if (type === GraphQLBoolean) return v === true || v === 'true' ? 'T' : 'F';
  return 'S';
}
