/**
 * The dependency edges of a build that point at one table or one function, found without a pass over
 * every edge (hundreds of thousands at 5,000 tables with permissions): a build keeps each table's edges as
 * lists (`BuildRecord.tableDeps`, `permissionDeps`) that an incremental build shares with the build before
 * it, and each list's target tables are memoised (`edgeTargets`). The index of a build is a map from a
 * table to the tables whose lists reach it, made in one pass over the tables; the edges outside the
 * tables' lists (functions, native queries, event triggers, actions...) are few and read as they are.
 * A result the build did not record (none in practice) is indexed in one pass over its edges.
 */
import { qualifiedKey } from '../../core/index.js';
import { buildRecordOfResult, type BuildRecord, type BuildResult } from './buildSchemaCache.js';
import { edgeTargets, type Dependency } from './objects.js';

export interface DependencyIndex {
  /**
   * The edges whose target is part of the table `tableKey` (`schema.name`: the table, its columns,
   * relationships, constraints, computed fields), in the order of the build's edge list.
   */
  onTable(tableKey: string): Dependency[];
  /** The edges whose target is the function `functionKey` (`schema.name`), in the same order. */
  onFunction(functionKey: string): Dependency[];
}

const indexes = new WeakMap<object, DependencyIndex>();

/** The index of `result`'s edges (memoised per build, or per edge list for a result the build did not record). */
export function dependencyIndexOf(result: BuildResult): DependencyIndex {
  const record = buildRecordOfResult(result);
  const key = record ?? result.dependencies;
  let ix = indexes.get(key);
  if (!ix) indexes.set(key, (ix = record ? perTable(record) : flat(result.dependencies)));
  return ix;
}

const targetTable = (d: Dependency): string | undefined => (d.on.kind === 'function' ? undefined : qualifiedKey(d.on.table));

/** Edges on functions, by function (one pass over the lists, made when first asked). */
function functionEdges(lists: Iterable<readonly Dependency[]>): Map<string, Dependency[]> {
  const out = new Map<string, Dependency[]>();
  for (const l of lists) for (const d of l) {
    if (d.on.kind !== 'function') continue;
    const k = qualifiedKey(d.on.function);
    const l = out.get(k);
    if (l) l.push(d);
    else out.set(k, [d]);
  }
  return out;
}

function flat(deps: readonly Dependency[]): DependencyIndex {
  const byTable = new Map<string, Dependency[]>();
  for (const d of deps) {
    const k = targetTable(d);
    if (k === undefined) continue;
    const l = byTable.get(k);
    if (l) l.push(d);
    else byTable.set(k, [d]);
  }
  let fns: Map<string, Dependency[]> | undefined;
  return {
    onTable: (k) => [...(byTable.get(k) ?? [])],
    onFunction: (k) => [...((fns ??= functionEdges([deps])).get(k) ?? [])],
  };
}

/**
 * The build's edge list is, in this order: every consistent table's relationship and computed-field edges
 * (`tableDeps`, in table order), every such table's permission edges (`permissionDeps`), then the rest.
 */
function perTable(record: BuildRecord): DependencyIndex {
  const position = new Map<string, number>();
  for (const key of record.tableDeps.keys()) position.set(key, position.size);
  const rest = record.restDeps;
  /** Per step: target table → the tables (in table order) whose lists of that step reach it. */
  const reaching = (lists: ReadonlyMap<string, Dependency[]>): Map<string, string[]> => {
    const out = new Map<string, string[]>();
    for (const [key, deps] of lists) {
      for (const t of edgeTargets(deps, key)) {
        const l = out.get(t);
        if (l) l.push(key);
        else out.set(t, [key]);
      }
    }
    return out;
  };
  const steps = [
    { lists: record.tableDeps, reach: reaching(record.tableDeps) },
    { lists: record.permissionDeps, reach: reaching(record.permissionDeps) },
  ];
  let fns: Map<string, Dependency[]> | undefined;
  return {
    onTable(k) {
      const out: Dependency[] = [];
      for (const { lists, reach } of steps) {
        const owners = [...(reach.get(k) ?? [])];
        // The table's own lists (edges onto its own columns) in their place.
        const self = position.get(k);
        if (self !== undefined) {
          let i = 0;
          while (i < owners.length && position.get(owners[i])! < self) i++;
          owners.splice(i, 0, k);
        }
        for (const o of owners) for (const d of lists.get(o) ?? []) if (targetTable(d) === k) out.push(d);
      }
      for (const d of rest) if (targetTable(d) === k) out.push(d);
      return out;
    },
    onFunction: (k) => [...((fns ??= functionEdges([...record.tableDeps.values(), ...record.permissionDeps.values(), rest])).get(k) ?? [])],
  };
}
