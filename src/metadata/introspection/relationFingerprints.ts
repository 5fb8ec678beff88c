/**
 * Re-introspection after DDL, of what changed only. Beside every snapshot a build uses, each user relation's
 * fingerprint (`RELATION_FINGERPRINT_QUERY`: its own catalog rows, and the relations its foreign keys
 * reference) is taken in the same transaction. When the catalogs' fingerprint (catalogFingerprint.ts) has
 * moved, `reintrospect` takes the relations' fingerprints again and introspects only the relations whose
 * fingerprint (or a referenced relation's) changed or that are new (`RELATIONS_INTROSPECTION_QUERY`), and the
 * functions; every other relation keeps the `DbTable` object of the last snapshot, and so does a relation read
 * again whose introspection came out equal, so the schema-cache build keeps those tables' objects too
 * (buildSchemaCacheFrom compares them by identity). When most relations changed, the whole database is
 * introspected as at start-up.
 */
import { isDeepStrictEqual } from 'node:util';
import { qualifiedKey } from '../../core/index.js';
import type { QualifiedTable } from '../../core/index.js';
import type { Db, DbClient } from '../../execution/index.js';
import { catalogFingerprint, fingerprintOf } from './catalogFingerprint.js';
import { introspectDatabase, loadEnumValues, parseSnapshot } from './introspect.js';
import { RELATION_FINGERPRINT_QUERY, RELATIONS_INTROSPECTION_QUERY } from './introspectionQuery.js';
import type { DbSnapshot, DbTable } from './types.js';

/** Per relation oid: the md5 of its own catalog rows and the oids its foreign keys reference. */
export type RelationFingerprints = ReadonlyMap<number, { own: string; refs: readonly number[] }>;

/** The relations' fingerprints each snapshot's tables were introspected at (when taken beside them). */
const taken = new WeakMap<DbSnapshot['tables'], RelationFingerprints>();

export const recordRelationFingerprints = (snapshot: DbSnapshot, fingerprints: RelationFingerprints): void => {
  taken.set(snapshot.tables, fingerprints);
};

export const relationFingerprintsOf = (snapshot: DbSnapshot): RelationFingerprints | undefined => taken.get(snapshot.tables);

/** Every user relation's fingerprint, as the caller's transaction sees the catalogs. */
export async function relationFingerprints(client: DbClient): Promise<RelationFingerprints> {
  const r = await client.query(RELATION_FINGERPRINT_QUERY);
  const rows = JSON.parse(String(r.rows[0].fingerprints)) as Array<[oid: number, own: string, refs: number[]]>;
  const out = new Map<number, { own: string; refs: readonly number[] }>();
  for (const [oid, own, refs] of rows) out.set(Number(oid), { own, refs: refs.map(Number) });
  return out;
}

/** The whole database introspected, with the relations' fingerprints taken beside (one pipelined round trip). */
export async function introspectWithFingerprints(client: DbClient, enumTables: readonly QualifiedTable[] = []): Promise<DbSnapshot> {
  const [snapshot, fingerprints] = await Promise.all([introspectDatabase(client, enumTables), relationFingerprints(client)]);
  recordRelationFingerprints(snapshot, fingerprints);
  return snapshot;
}

/**
 * Takes the relations' fingerprints for `snapshot` after the fact (in the background after start-up, whose
 * introspection is not held up for them): recorded only when the catalogs' fingerprint read in the same
 * transaction is still the one the snapshot was taken at. A failure leaves them unrecorded (the first
 * re-introspection after DDL then reads the whole database).
 */
export async function fingerprintRelationsOf(db: Db, snapshot: DbSnapshot): Promise<void> {
  const at = fingerprintOf(snapshot);
  if (at === undefined || relationFingerprintsOf(snapshot)) return;
  try {
    await db.transaction({ readOnly: true, isolation: 'repeatable read' }, async (c) => {
      const [now, relations] = await Promise.all([catalogFingerprint(c), relationFingerprints(c)]);
      if (now === at) recordRelationFingerprints(snapshot, relations);
    });
  } catch {
    // unrecorded: see above
  }
}

/** Above this share of changed relations the whole database is introspected instead. */
const PARTIAL_MAX_SHARE = 0.25;

/**
 * The database as the caller's transaction sees it, read again from `known` (a snapshot whose relation
 * fingerprints were recorded): only changed and new relations introspected, the other `DbTable` objects and,
 * when equal, the functions kept. Without recorded fingerprints, the whole database. Enum-table rows are read
 * again either way.
 */
export async function reintrospect(client: DbClient, known: DbSnapshot | undefined, enumTables: readonly QualifiedTable[] = []): Promise<DbSnapshot> {
  const before = known && relationFingerprintsOf(known);
  if (!known || !before) return introspectWithFingerprints(client, enumTables);
  const now = await relationFingerprints(client);
  const changed: number[] = [];
  for (const [oid, fp] of now) {
    const was = before.get(oid);
    if (!was || was.own !== fp.own || fp.refs.some((r) => before.get(r)?.own !== now.get(r)?.own)) changed.push(oid);
  }
  if (changed.length > Math.max(16, now.size * PARTIAL_MAX_SHARE)) return introspectWithFingerprints(client, enumTables);
  // The functions are read again whatever changed (the catalogs' fingerprint covers pg_proc).
  const read = parseSnapshot(String((await client.query(RELATIONS_INTROSPECTION_QUERY, [changed])).rows[0].snapshot));
  const fresh = new Set(changed);
  // Kept: the relations still there and unchanged; read again: the changed ones (the old object when equal).
  const tables = new Map<string, DbTable>();
  let added = false;
  for (const [key, t] of known.tables) {
    if (!now.has(t.oid)) continue;
    if (!fresh.has(t.oid)) tables.set(key, t);
    else if (read.tables.has(key)) {
      const again = read.tables.get(key)!;
      tables.set(key, isDeepStrictEqual(t, again) ? t : again);
    }
  }
  for (const [key, t] of read.tables) if (!tables.has(key)) (added = true), tables.set(key, t);
  // New names in the full introspection's order (schema, then name, as Postgres sorts `name`: by code point).
  const ordered = added ? new Map([...tables].sort(([, a], [, b]) => compareCodePoints(a.schema, b.schema) || compareCodePoints(a.name, b.name))) : tables;
  const functions = isDeepStrictEqual(read.functions, known.functions) ? known.functions : read.functions;
  const snapshot: DbSnapshot = { tables: ordered, functions, enumValues: new Map() };
  recordRelationFingerprints(snapshot, now);
  await loadEnumValues(client, snapshot, enumTables);
  return snapshot;
}

/** Postgres' order of `name` values (C collation: UTF-8 bytes, i.e. code points; UTF-16 units differ only past surrogates). */
function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}
