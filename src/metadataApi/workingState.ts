/**
 * What one `/v1/query` request has done so far, inside its transaction: the metadata as changed
 * by its operations, the database snapshot (re-read after SQL ran), and the schema cache built
 * from the two. Nothing leaves the request until it commits: then the metadata is saved (by the
 * runner) and the cache installed. A failed request leaves metadata and schema as they were.
 *
 * `change()` applies one operation's new metadata the way Hasura's `buildSchemaCacheFor` does: an
 * object that becomes inconsistent is refused (400 constraint-violation with the object's reasons
 * when it is the one being defined, else 400 unexpected "cannot continue due to new inconsistent
 * metadata").
 */
import { isDeepStrictEqual } from 'node:util';
import { ApiError } from '../core/index.js';
import { draftOf, finishDraft, isDraft } from '../lib/index.js';
import type { DbClient } from '../execution/index.js';
import type { AppState } from '../appState.js';
import { assertNoRootFieldConflicts, hasNewNameClashes } from '../graphql/index.js';
import {
  attachSources,
  readSources,
  buildRecordOf,
  buildSchemaCacheFromSliced,
  catalogFingerprint,
  currentResourceVersion,
  fingerprintOf,
  enumTablesOf,
  introspectDatabase,
  loadEnumValues,
  loadMetadata,
  objectKey,
  recordFingerprint,
  reintrospect,
  relationFingerprintsOf,
  storedVersionOf,
} from '../metadata/index.js';
import type { BuildRecord, BuildResult, DbSnapshot, Inconsistency, Metadata, MetadataObjectId, RemoteIntrospection, SchemaCache, SourceInput } from '../metadata/index.js';
import { fetchRemoteInputs } from '../remoteSchemas/index.js';

/** The last introspection per live state, with the fingerprint it was taken at (never mutated). */
const lastIntrospection = new WeakMap<AppState, { fingerprint: string; tables: DbSnapshot['tables']; functions: DbSnapshot['functions'] }>();

export class WorkingState {
  private md: Metadata | undefined;
  private snap: DbSnapshot | undefined;
  /** The snapshot before `schemaChanged()` (read again from it: only what changed). */
  private replaced: DbSnapshot | undefined;
  private built: BuildResult | undefined;
  /** Read the metadata from the catalog, not from the live cache (reload_metadata). */
  private fromCatalog = false;
  /** The database schema may have changed since the request started (run_sql). */
  private schemaTouched = false;
  metadataChanged = false;
  cacheChanged = false;
  /** Remote introspections as this request knows them (the live cache's until one is fetched). */
  private remotes: ReadonlyMap<string, RemoteIntrospection> | undefined;

  /**
   * `changes`: the request holds the metadata lock to change the metadata; only such a request starts
   * from the live cache's metadata (an operation's own draft: a read such as `export_metadata` reads
   * the stored document, in the decoder's exact form).
   */
  constructor(
    private readonly client: DbClient,
    private readonly live: AppState,
    private readonly changes = false,
    /**
     * Take the live build's snapshot before the catalogs' fingerprint has answered (it runs in Postgres while
     * the operation builds); `stale()` then says, before the request commits, whether the database was not as
     * that build saw it (the request is then run again without this: runQuery.ts).
     */
    private readonly optimistic = false,
    /**
     * How the request reads the catalogs' fingerprint of an optimistic snapshot: on another connection of the
     * pool by default in runQuery, so that Postgres computes it while this transaction's connection writes the
     * new document (a metadata-only request runs no DDL before it commits, and each statement of a READ
     * COMMITTED transaction sees what is committed, so another connection sees the same catalogs).
     */
    private readonly fingerprintAside: (() => Promise<string>) | undefined = undefined,
    /**
     * Writes a document as the stored one in this transaction (saveMetadata): resolves once its statements are
     * sent on the transaction's connection (whatever is sent after them follows them: a savepoint, the
     * ROLLBACK), with its resource_version to come. Given, the request's last operation sends its new
     * document's write before building its schema cache, so Postgres stores it while the engine builds
     * (`earlyWrite`; runQuery commits only when both are done).
     */
    private readonly write: ((md: Metadata) => Promise<{ version: Promise<number> }>) | undefined = undefined,
  ) {}

  /** Set by runQuery while the request's last operation runs: its builds send their document's write first. */
  lastOperation = false;
  /** The document whose write was sent before its build, and that write's resource_version. */
  private written: { md: Metadata; version: Promise<number> } | undefined;

  /** Whether some document's write was sent beside a build (see `earlyWrite`). */
  get wroteEarly(): boolean {
    return this.written !== undefined;
  }

  /**
   * The resource_version of `md`'s write when it was sent beside its build (the one the request adopted),
   * else undefined: the caller writes it then.
   */
  async earlyWrite(md: Metadata): Promise<number | undefined> {
    return this.written?.md === md ? await this.written.version : undefined;
  }

  /** The check of an optimistic snapshot (see the constructor): whether the catalogs' fingerprint was the live build's. */
  private check: Promise<boolean> | undefined;

  /** Whether this request read a snapshot the database no longer matched (its result must not stand). */
  async stale(): Promise<boolean> {
    return this.check !== undefined && !(await this.check);
  }

  /**
   * The current metadata: the live cache's when the stored document is the one it was installed with or
   * built from at start-up or reload (its `resource_version` unchanged; never edited in place: `draft()`
   * copies), else loaded from the catalog.
   */
  async metadata(): Promise<Metadata> {
    if (!this.md) {
      const live = this.live.current;
      const installed = installedVersion.get(live) ?? storedVersionOf(live);
      if (this.changes && !this.fromCatalog && installed !== undefined && installed === this.live.resourceVersion
        && installed === await currentResourceVersion(this.client, this.live.metadataTable)) this.md = live.metadata;
      else this.md = (await loadMetadata(this.client, this.live.metadataTable)).metadata;
    }
    return this.md;
  }

  /**
   * A copy of the current metadata to edit and hand to `change()`: copy-on-write (lib/copyOnWrite.ts), so
   * only what the operation edits is copied and the rest of the next metadata is the current one's objects
   * (which the incremental build compares by identity).
   */
  async draft(): Promise<Metadata> {
    return draftOf(await this.metadata());
  }

  /**
   * The database as this transaction sees it (introspected once, again after `schemaChanged()`).
   * The tables and functions of the previous request's introspection are reused when the catalog
   * fingerprint (see `catalogFingerprint`) is unchanged; enum values are always read again.
   */
  async snapshot(): Promise<DbSnapshot> {
    if (!this.snap && this.optimistic && !this.schemaTouched && !this.check) {
      const seen = buildRecordOf(this.live.current)?.snapshot;
      const seenAt = seen && fingerprintOf(seen);
      if (seen && seenAt) {
        const md = await this.metadata();
        this.check = (this.fingerprintAside?.() ?? catalogFingerprint(this.client)).then((fp) => fp === seenAt, () => false);
        const snap: DbSnapshot = { tables: seen.tables, functions: seen.functions, enumValues: new Map() };
        await loadEnumValues(this.client, snap, enumTablesOf(md));
        this.snap = snap;
      }
    }
    if (!this.snap) {
      const md = await this.metadata();
      const fingerprint = await catalogFingerprint(this.client);
      const prev = lastIntrospection.get(this.live);
      // The live cache's own snapshot first (start-up, reload, the last operation took its fingerprint beside it):
      // its objects are the ones the live build was made from, so the build can be incremental.
      const seen = buildRecordOf(this.live.current)?.snapshot;
      const seenAt = seen && fingerprintOf(seen);
      const known = seen && seenAt === fingerprint ? { fingerprint, tables: seen.tables, functions: seen.functions } : prev;
      if (known && known.fingerprint === fingerprint) {
        if (known !== prev) lastIntrospection.set(this.live, known);
        const snap: DbSnapshot = { tables: known.tables, functions: known.functions, enumValues: new Map() };
        await loadEnumValues(this.client, snap, enumTablesOf(md));
        this.snap = snap;
      } else {
        // After DDL: only the relations whose catalog rows changed are read again, the others' objects kept
        // (from the newest snapshot with its relations' fingerprints: this request's, the last operation's, the live build's).
        const base = [this.replaced, prev && { tables: prev.tables, functions: prev.functions, enumValues: new Map() }, seen].find((s) => s && relationFingerprintsOf(s));
        let snap = await reintrospect(this.client, base, enumTablesOf(md));
        // A live cache built without a fingerprint beside its snapshot: when the database is as that build saw
        // it, its objects are kept, so the build can be incremental.
        if (seen && !seenAt && !prev && isDeepStrictEqual(seen.tables, snap.tables) && isDeepStrictEqual(seen.functions, snap.functions)) {
          snap = { ...snap, tables: seen.tables, functions: seen.functions };
        }
        lastIntrospection.set(this.live, { fingerprint, tables: snap.tables, functions: snap.functions });
        recordFingerprint(snap, fingerprint);
        this.snap = snap;
      }
    }
    return this.snap;
  }

  /** Records that SQL may have changed the database: the next read re-introspects. */
  schemaChanged(): void {
    this.replaced = this.snap ?? this.replaced;
    this.snap = undefined;
    this.sourceInputs.clear();
    this.built = undefined;
    this.schemaTouched = true;
  }

  /**
   * The build of the current metadata against the current snapshot: the live cache's own build when
   * both are the ones it was built from (the common case: an operation's "before").
   */
  async result(): Promise<BuildResult> {
    if (!this.built) {
      const md = await this.metadata();
      const snap = await this.snapshot();
      const remotes = await this.remoteInputs(md);
      const live = buildRecordOf(this.live.current);
      const prior = md === this.live.current.metadata ? live : undefined;
      // Else (reload_metadata: the stored document read again) built from the live build: only what differs.
      const built = prior && sameInputs(prior, snap, remotes, this.live) ? prior.result
        : await buildSchemaCacheFromSliced(live, md, snap, undefined, remotes, this.live.defaultNamingConvention, this.live.cacheCheck, this.live.buildOptions);
      this.built = await this.withSources(built, md, remotes);
    }
    return this.built;
  }

  /** What reading each further source gave, by source, with the connection it was read through. */
  private sourceInputs = new Map<string, { key: string; input: SourceInput }>();

  /** Every further source of `md` read (once per request and connection; again after `schemaChanged()`). */
  async sourcesOf(md: Metadata): Promise<Map<string, SourceInput>> {
    const dbs = this.live.sourceDbs;
    const out = new Map<string, SourceInput>();
    if (!md.sources || md.sources.length === 0) return out;
    if (!dbs) {
      for (const s of md.sources) out.set(s.name, { ok: false, reason: 'the engine has no pools for further sources' });
      return out;
    }
    // Read again when the connection changes, or the tables marked as enums (their rows are read).
    const keyOf = (s: NonNullable<Metadata['sources']>[number]) => JSON.stringify([s.configuration.connection_info, s.tables.filter((t) => t.is_enum).map((t) => t.table)]);
    const stale = new Set(md.sources.filter((s) => this.sourceInputs.get(s.name)?.key !== keyOf(s)).map((s) => s.name));
    // A source this request changed (run_sql there) is read inside its open transaction.
    for (const s of md.sources) {
      const tx = this.sourceTx.get(s.name);
      if (!tx || !stale.has(s.name)) continue;
      stale.delete(s.name);
      const snapshot = await introspectDatabase(await tx.client, enumTablesOf({ version: 2, tables: s.tables }));
      this.sourceInputs.set(s.name, { key: keyOf(s), input: { ok: true, snapshot } });
    }
    if (stale.size > 0) {
      const read = await readSources(md, dbs, stale);
      for (const s of md.sources) if (stale.has(s.name)) this.sourceInputs.set(s.name, { key: keyOf(s), input: read.get(s.name)! });
    }
    for (const s of md.sources) out.set(s.name, this.sourceInputs.get(s.name)!.input);
    return out;
  }

  /** Transactions this request opened on further sources (run_sql there), committed with the request. */
  private readonly sourceTx = new Map<string, { client: Promise<DbClient>; finish(how: 'COMMIT' | 'ROLLBACK'): Promise<void> }>();

  /**
   * A connection in a transaction on source `name` (opened on first use, held until the request ends):
   * what run_sql on that source runs in. `finishSources` commits (or rolls back) every one.
   */
  sourceClient(name: string, connection: NonNullable<Metadata['sources']>[number]['configuration']['connection_info']): Promise<DbClient> {
    const have = this.sourceTx.get(name);
    if (have) return have.client;
    const dbs = this.live.sourceDbs;
    if (!dbs) return Promise.reject(new ApiError('unexpected', `source ${JSON.stringify(name)} is not available`));
    const { db } = dbs.pool(name, connection);
    let end!: (how: 'COMMIT' | 'ROLLBACK') => void;
    const ending = new Promise<'COMMIT' | 'ROLLBACK'>((r) => (end = r));
    let opened!: (c: DbClient) => void;
    let failed!: (e: unknown) => void;
    const client = new Promise<DbClient>((res, rej) => ((opened = res), (failed = rej)));
    client.catch(() => undefined);
    const done = db.withClient(async (c) => {
      await c.query('BEGIN');
      opened(c);
      await c.query(await ending);
    });
    done.catch((e) => failed(e));
    this.sourceTx.set(name, {
      client,
      async finish(how) {
        end(how);
        await done;
      },
    });
    return client;
  }

  /** Ends the transactions opened on further sources: COMMIT before the request's own commit, or ROLLBACK. */
  async finishSources(how: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    const all = [...this.sourceTx.values()];
    this.sourceTx.clear();
    if (how === 'COMMIT') for (const t of all) await t.finish(how);
    else await Promise.all(all.map((t) => t.finish(how).catch(() => undefined)));
  }

  /** `built` (of `default`) with every further source of `md` built against its database (metadata/sources.ts). */
  private async withSources(built: BuildResult, md: Metadata, remotes: ReadonlyMap<string, RemoteIntrospection>): Promise<BuildResult> {
    if (!md.sources || md.sources.length === 0) return built;
    return attachSources(built, md, await this.sourcesOf(md), undefined, remotes, this.live.defaultNamingConvention, this.live.buildOptions);
  }

  /**
   * The remote introspections for `md`: known ones reused while their definition is unchanged,
   * the others (and those named in `refetch`) fetched now.
   */
  async remoteInputs(md: Metadata, refetch: ReadonlySet<string> | 'all' = new Set()): Promise<ReadonlyMap<string, RemoteIntrospection>> {
    this.remotes = await fetchRemoteInputs(md, this.remotes ?? this.live.current.remoteInputs, refetch);
    return this.remotes;
  }

  /** Fetches the named remotes again (reload_remote_schema); the next build uses the new answers. */
  async refetchRemotes(refetch: ReadonlySet<string> | 'all'): Promise<void> {
    await this.remoteInputs(await this.metadata(), refetch);
    this.built = undefined;
  }

  /** The cache operations should read: the live one until this request changed something. */
  async cache(): Promise<SchemaCache> {
    if (!this.md && !this.schemaTouched) return this.live.current;
    return (await this.result()).cache;
  }

  /** Rebuilds from the current metadata and a fresh snapshot, to be installed at commit. */
  async reload(): Promise<BuildResult> {
    // reload_metadata reads the stored document again (unless this request changed it already).
    if (!this.metadataChanged) {
      this.md = undefined;
      this.fromCatalog = true;
    }
    this.schemaChanged();
    await this.refetchRemotes('all');
    const r = await this.result();
    this.cacheChanged = true;
    return r;
  }

  /** Builds `next` against the current snapshot (enum rows of newly marked tables read first). */
  async buildFor(draft: Metadata): Promise<BuildResult> {
    const next = finished(draft);
    const snap = await this.snapshot();
    await loadEnumValues(this.client, snap, enumTablesOf(next));
    // Incremental when only permissions changed since the last build (see buildSchemaCacheFrom).
    const prior = buildRecordOf(this.built?.cache ?? this.live.current);
    const remotes = await this.remoteInputs(next);
    // The request's last operation: Postgres writes the document (most of an operation's time in Postgres at
    // thousands of tables: validating and compressing its text) while the engine builds. A build refused
    // after this rolls the write back with the rest; a later build of another document writes again.
    if (this.lastOperation && this.write) {
      const { version } = await this.write(next);
      version.catch(() => undefined);
      this.written = { md: next, version };
    }
    const built = await buildSchemaCacheFromSliced(prior, next, snap, undefined, remotes, this.live.defaultNamingConvention, this.live.cacheCheck, this.live.buildOptions);
    return this.withSources(built, next, remotes);
  }

  /**
   * Adopts `next` as the metadata, refusing it when it makes objects newly inconsistent (see the
   * module comment). `defining` is the object the operation creates or changes, if any.
   */
  async change(draft: Metadata, defining?: MetadataObjectId): Promise<BuildResult> {
    const before = await this.result();
    const next = finished(draft);
    const after = await this.buildFor(next);
    assertNoNewInconsistencies(before.inconsistent, after.inconsistent, defining);
    this.adopt(next, after);
    return after;
  }

  /** Adopts `next` without the inconsistency check (callers checked what they need). */
  adopt(draft: Metadata, built: BuildResult): void {
    assertNoNewRootFieldConflicts(this.built?.cache ?? this.live.current, built.cache);
    this.md = finished(draft);
    this.built = built;
    this.metadataChanged = true;
    this.cacheChanged = true;
  }
}

/** A draft of `draft()` as plain objects (a document made otherwise, e.g. by replace_metadata, as it is). */
const finished = (md: Metadata): Metadata => (isDraft(md) ? finishDraft(md) : md);

/** The `resource_version` each cache installed by a metadata operation was saved as (see `metadata()`). */
const installedVersion = new WeakMap<SchemaCache, number>();

/** Records that `cache` was installed as the stored metadata of `version`. */
export const recordInstalled = (cache: SchemaCache, version: number): void => {
  installedVersion.set(cache, version);
};

/** Whether a build from `prior`'s inputs is a build from these (the same objects; enum rows equal). */
function sameInputs(prior: BuildRecord, snap: DbSnapshot, remotes: ReadonlyMap<string, RemoteIntrospection>, live: AppState): boolean {
  if (prior.snapshot.tables !== snap.tables || prior.snapshot.functions !== snap.functions) return false;
  if (prior.env !== process.env || prior.defaultNaming !== (live.defaultNamingConvention ?? 'hasura-default') || prior.check !== live.cacheCheck) return false;
  if (prior.remoteInputs.size !== remotes.size || [...remotes].some(([k, v]) => prior.remoteInputs.get(k) !== v)) return false;
  return JSON.stringify([...prior.snapshot.enumValues]) === JSON.stringify([...snap.enumValues]);
}

/** Hasura's buildSchemaCacheFor / withNewInconsistentObjsCheck comparison. */
export function assertNoNewInconsistencies(before: readonly Inconsistency[], after: readonly Inconsistency[], defining?: MetadataObjectId): void {
  const old = new Set(before.map((i) => objectKey(i.id)));
  const fresh = after.filter((i) => !old.has(objectKey(i.id)));
  if (fresh.length === 0) return;
  if (defining) {
    const key = objectKey(defining);
    const matching = fresh.filter((i) => objectKey(i.id) === key);
    if (matching.length > 0) {
      throw new ApiError('constraint-violation', matching.map((i) => i.object.reason).join(', '), {
        path: '$.args',
        internal: matching.map((i) => i.object),
      });
    }
  }
  throw new ApiError('unexpected', 'cannot continue due to new inconsistent metadata', {
    path: '$.args',
    internal: fresh.map((i) => i.object),
  });
}

/**
 * Hasura refuses a schema whose tables/functions clash on root field names (see graphql's
 * `assertNoRootFieldConflicts`; under `graphql-default`, also fields and types the convention
 * merges); clashes already present before this change are left alone. Only the names of the tables the
 * change reached are compared (`hasNewNameClashes`), not every table's.
 */
function assertNoNewRootFieldConflicts(before: SchemaCache, after: SchemaCache): void {
  if (hasNewNameClashes(before, after)) assertNoRootFieldConflicts(after);
}
