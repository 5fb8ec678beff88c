/**
 * The JSON input of an action call from its validated arguments. Values that came from GraphQL
 * variables are read from this request's variables (a cached plan holds the first request's values).
 */
import type { AnnValue } from '../graphql/index.js';

function readVar(vars: Record<string, unknown>, name: string, path: ReadonlyArray<string | number>): unknown {
  let v: unknown = vars[name];
  for (const k of path) v = v == null ? undefined : (v as Record<string | number, unknown>)[k];
  return v ?? null;
}

export function annJson(v: AnnValue, vars: Record<string, unknown>): unknown {
  if (v.variable) {
    const x = readVar(vars, v.variable.name, v.variable.path);
    return v.kind === 'list' && x !== null && !Array.isArray(x) ? [x] : x;
  }
  switch (v.kind) {
    case 'null': return null;
    case 'scalar': return v.value;
    case 'enum': return v.name;
    case 'list': return v.items.map((i) => annJson(i, vars));
    case 'object': return Object.fromEntries(v.fields.map(([k, x]) => [k, annJson(x, vars)]));
  }
}

/** `{name: value}` of the given arguments, in the order the client wrote them. */
export function actionInput(args: ReadonlyArray<[string, AnnValue]>, vars: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(args.map(([k, v]) => [k, annJson(v, vars)]));
}
