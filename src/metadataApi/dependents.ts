/**
 * Dependency queries over the edges of a schema-cache build: which metadata objects (directly or
 * transitively) depend on some database/metadata object — for `untrack_table`, `drop_relationship`,
 * `run_sql` drops, with Hasura's "cannot drop due to the following dependent objects" error.
 */
import { ApiError, qualifiedKey } from '../core/index.js';
import type { QualifiedFunction, QualifiedTable } from '../core/index.js';
import { dependencyIndexOf, objectKey, refKey, reportObjects } from '../metadata/index.js';
import type { BuildResult, Dependency, MetadataObjectId, SchemaRef } from '../metadata/index.js';

/** A metadata object as something others can depend on (permissions and tables: nothing extra). */
function asRef(id: MetadataObjectId): SchemaRef | undefined {
  switch (id.kind) {
    case 'relationship':
      return { kind: 'relationship', table: id.table, name: id.name };
    case 'computed_field':
      return { kind: 'computed_field', table: id.table, name: id.name };
    case 'function':
      return { kind: 'function', function: id.function };
    default:
      return undefined;
  }
}

/** Where the roots of a dependency query lie: on one table (itself or a part of it) or one function. */
export type RootsAt = { table: QualifiedTable } | { function: QualifiedFunction };

/**
 * Every object that depends on a ref matching `isRoot` (every such ref lies at `at`), transitively,
 * excluding objects for which `exclude` holds (and not following edges out of them). Only the edges into
 * the tables and functions on the way are read (`dependencyIndexOf`), never every edge of the build.
 */
export function dependentsOf(
  build: BuildResult,
  at: RootsAt,
  isRoot: (ref: SchemaRef, dep: Dependency) => boolean,
  exclude: (id: MetadataObjectId) => boolean = () => false,
): MetadataObjectId[] {
  const index = dependencyIndexOf(build);
  const edgesAt = (where: RootsAt) => ('table' in where ? index.onTable(qualifiedKey(where.table)) : index.onFunction(qualifiedKey(where.function)));
  const found = new Map<string, MetadataObjectId>();
  const queue: MetadataObjectId[] = [];
  const add = (id: MetadataObjectId) => {
    const k = objectKey(id);
    if (found.has(k) || exclude(id)) return;
    found.set(k, id);
    queue.push(id);
  };
  for (const d of edgesAt(at)) if (isRoot(d.on, d)) add(d.dependent);
  while (queue.length > 0) {
    const ref = asRef(queue.shift()!);
    if (!ref) continue;
    const key = refKey(ref);
    for (const d of edgesAt(ref.kind === 'function' ? { function: ref.function } : { table: ref.table })) if (refKey(d.on) === key) add(d.dependent);
  }
  return [...found.values()];
}

/** Refs that belong to `table` (the table itself, its columns, relationships, constraints...). */
export const onTable = (table: QualifiedTable) => (ref: SchemaRef): boolean =>
  ref.kind !== 'function' && qualifiedKey(ref.table) === qualifiedKey(table);

/** Objects that are part of `table` itself. */
export const partOf = (table: QualifiedTable) => (id: MetadataObjectId): boolean =>
  'table' in id && qualifiedKey(id.table) === qualifiedKey(table);

export function dependencyError(ids: readonly MetadataObjectId[], path = '$.args'): ApiError {
  return new ApiError('dependency-error', `cannot drop due to the following dependent objects: ${reportObjects(ids)}`, { path });
}
