/**
 * The request's working state as one Postgres source beside `default` sees it, so that every
 * table, relationship, permission, function and native-query operation runs on any source through
 * its one handler: the metadata is that source's part as a version-2 document (`sourceView`), the
 * snapshot is that source's database, the cache and build are that source's (with its own
 * dependencies, for cascades). An edited part is written back into `sources[]` of the whole document
 * (`withSourcePart`) and adopted by the request's `WorkingState` with its usual checks: an object
 * that becomes inconsistent is named in its source, and a failed operation changes nothing.
 */
import { ApiError } from '../core/index.js';
import { cloneJson, findSource, sourceBuildOf, sourceView, withSourcePart } from '../metadata/index.js';
import type { BuildResult, DbSnapshot, Metadata, MetadataObjectId, SchemaCache } from '../metadata/index.js';
import type { Work } from './types.js';

const quote = (s: string): string => JSON.stringify(s);

export class SourceWork implements Work {
  /** The whole document a view was taken of, and the view (kept while the document is the same). */
  private viewOf: Metadata | undefined;
  private view: Metadata | undefined;
  /** The whole document and build behind each scoped build `buildFor` gave (for `adopt`). */
  private readonly wholeOf = new WeakMap<BuildResult, { md: Metadata; built: BuildResult }>();

  constructor(private readonly whole: Work, readonly source: string) {}

  get metadataChanged(): boolean {
    return this.whole.metadataChanged;
  }

  set metadataChanged(v: boolean) {
    this.whole.metadataChanged = v;
  }

  get cacheChanged(): boolean {
    return this.whole.cacheChanged;
  }

  set cacheChanged(v: boolean) {
    this.whole.cacheChanged = v;
  }

  /** Hasura's answer for a source in the metadata that could not be built (its database unreachable). */
  private inconsistent(): ApiError {
    return new ApiError('unexpected', `source with name ${quote(this.source)} is inconsistent`, { path: '$.args' });
  }

  async metadata(): Promise<Metadata> {
    const md = await this.whole.metadata();
    if (this.viewOf !== md) {
      this.view = sourceView(md, this.source);
      this.viewOf = md;
    }
    if (!this.view) throw new ApiError('not-exists', `source with name ${quote(this.source)} does not exist`, { path: '$.args' });
    return this.view;
  }

  async draft(): Promise<Metadata> {
    return cloneJson(await this.metadata());
  }

  /** The source's database as this request sees it. */
  async snapshot(): Promise<DbSnapshot> {
    const input = (await this.whole.sourcesOf(await this.whole.metadata())).get(this.source);
    if (!input?.ok) throw this.inconsistent();
    return input.snapshot;
  }

  schemaChanged(): void {
    this.whole.schemaChanged();
  }

  /** The source's own part of a whole build. */
  private scoped(built: BuildResult): BuildResult {
    const cache = built.cache.sources?.get(this.source);
    if (!cache) throw this.inconsistent();
    return sourceBuildOf(cache) ?? { cache, dependencies: [], inconsistent: [] };
  }

  private scopedCache(cache: SchemaCache): SchemaCache {
    const own = cache.sources?.get(this.source);
    if (!own) throw this.inconsistent();
    return own;
  }

  async result(): Promise<BuildResult> {
    return this.scoped(await this.whole.result());
  }

  async cache(): Promise<SchemaCache> {
    return this.scopedCache(await this.whole.cache());
  }

  /** The whole document with `part` as this source's. */
  private async wholeWith(part: Metadata): Promise<Metadata> {
    const md = await this.whole.draft();
    if (!findSource(md, this.source)) throw new ApiError('not-exists', `source with name ${quote(this.source)} does not exist`, { path: '$.args' });
    return withSourcePart(md, this.source, part);
  }

  /** An object of this source as the whole build names it. */
  private wholeId(id: MetadataObjectId | undefined): MetadataObjectId | undefined {
    return id && { kind: 'source_object', source: this.source, id };
  }

  async buildFor(next: Metadata): Promise<BuildResult> {
    const md = await this.wholeWith(next);
    const built = await this.whole.buildFor(md);
    const own = this.scoped(built);
    this.wholeOf.set(own, { md, built });
    return own;
  }

  async change(next: Metadata, defining?: MetadataObjectId): Promise<BuildResult> {
    return this.scoped(await this.whole.change(await this.wholeWith(next), this.wholeId(defining)));
  }

  adopt(next: Metadata, built: BuildResult): void {
    const whole = this.wholeOf.get(built);
    if (!whole) throw new ApiError('unexpected', `source ${quote(this.source)}: a build to adopt must come from buildFor`, { path: '$.args' });
    void next;
    this.whole.adopt(whole.md, whole.built);
  }

  remoteInputs(...args: Parameters<Work['remoteInputs']>): ReturnType<Work['remoteInputs']> {
    return this.whole.remoteInputs(...args);
  }

  refetchRemotes(...args: Parameters<Work['refetchRemotes']>): ReturnType<Work['refetchRemotes']> {
    return this.whole.refetchRemotes(...args);
  }

  reload(): ReturnType<Work['reload']> {
    return this.whole.reload();
  }

  sourcesOf(...args: Parameters<Work['sourcesOf']>): ReturnType<Work['sourcesOf']> {
    return this.whole.sourcesOf(...args);
  }

  sourceClient(...args: Parameters<Work['sourceClient']>): ReturnType<Work['sourceClient']> {
    return this.whole.sourceClient(...args);
  }

  finishSources(...args: Parameters<Work['finishSources']>): ReturnType<Work['finishSources']> {
    return this.whole.finishSources(...args);
  }
}
