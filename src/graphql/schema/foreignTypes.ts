/**
 * The type names the user chose (remote schemas' types as customized, actions' custom types and their
 * names): no naming convention renames them (context.ts names the generated ones, graphqlCase.ts renames fields).
 */
import { customizedRemote, type SchemaCache } from '../../metadata/index.js';

const memo = new WeakMap<SchemaCache, ReadonlySet<string>>();

/** Type names the user (remote schemas, actions' custom types) chose, memoised per cache. */
export function foreignTypeNames(cache: SchemaCache): ReadonlySet<string> {
  let out = memo.get(cache) as Set<string> | undefined;
  if (out) return out;
  out = new Set<string>();
  for (const r of cache.remoteSchemas?.values() ?? []) for (const name of customizedRemote(r).types.keys()) out.add(name);
  const ct = cache.customTypes;
  if (ct) {
    for (const name of ct.objects.keys()) out.add(name);
    for (const name of ct.inputNames) if (!ct.pgScalars.has(name)) out.add(name);
  }
  for (const a of cache.actions?.values() ?? []) out.add(a.name);
  memo.set(cache, out);
  return out;
}
