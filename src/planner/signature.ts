/**
 * The part of the variable values that changes a plan's SQL: which values are null, whether a
 * list was sent as a list or as a single value, list lengths (runs of equal item shapes written
 * once with a count), the keys of input objects (and their order),
 * enum and Boolean values; plus the full value of variables the plan baked in as constants.
 * Scalars elsewhere are bound parameters, so their values do not matter.
 */
import { variableShape, type DeclaredVariable } from '../graphql/index.js';

/**
 * The plan key of these (already validated) variable values: each variable's shape as the request's
 * quick check computes it (graphql's `variableShape`), or its JSON when the plan baked it in.
 */
export function variableSignature(
  declared: readonly DeclaredVariable[], values: Record<string, unknown>, baked: ReadonlySet<string>,
): string {
  // 'X' never happens for values the full coercion accepted; it keeps the key total all the same.
  return signatureFromShapes(declared, declared.map((d) => variableShape(d.type, values[d.name] ?? null) ?? 'X'), values, baked);
}

/** The key from the shapes of the quick variable check: one walk per request. */
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
