/**
 * The mutable state threaded through one schema-cache build: consistent tables so far, the
 * dependency edges, and the inconsistent objects (each with its identity, for diffing builds).
 */
import type { QualifiedTable } from '../../core/index.js';
import type { Metadata } from '../model/metadata.js';
import type { DbSnapshot } from '../introspection/types.js';
import type { InconsistentObject, TableInfo } from './types.js';
import type { Dependency, MetadataObjectId } from './objects.js';

export interface Inconsistency {
  id: MetadataObjectId;
  object: InconsistentObject;
}

export interface BuildState {
  metadata: Metadata;
  snapshot: DbSnapshot;
  tables: Map<string, TableInfo>;
  dependencies: Dependency[];
  inconsistent: Inconsistency[];
}

/** A validation failure inside the build: becomes an inconsistent object with this reason. */
export class BuildError extends Error {}

export const quoted = (s: string): string => JSON.stringify(s);
/** `"author"` / `"hge_tests.resident"`, as Hasura quotes table names in messages. */
export const quotedTable = (q: QualifiedTable): string => quoted(q.schema === 'public' ? q.name : `${q.schema}.${q.name}`);

export const tableJson = (q: QualifiedTable): { schema: string; name: string } => ({ schema: q.schema, name: q.name });
