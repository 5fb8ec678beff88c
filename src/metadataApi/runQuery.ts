/**
 * Runs one decoded `/v1/query` request atomically: one transaction (session variables set), the
 * metadata advisory lock when anything may change metadata or schema, READ ONLY when the
 * request asks for it (`run_sql` with `read_only`, see envelope.ts `accessMode`), the operations in order
 * (a `bulk` answers with the list of its results), then the metadata saved and — after COMMIT —
 * the new schema cache installed (and, when the metadata's read replicas changed, those in use). Any
 * error rolls everything back. The last operation's new document is written beside its build (WorkingState's
 * `write`), and the new cache's admin schema is made, a slice per turn, while Postgres finishes.
 */
import { ADMIN_ROLE, ApiError, isApiError, pathKey } from '../core/index.js';
import type { Session } from '../core/index.js';
import type { EngineContext } from '../appState.js';
import { catalogFingerprint, encodeStoredBytes, findSource, lockMetadata, saveMetadata, touchMetadata, writeStoredText } from '../metadata/index.js';
import type { Metadata, SchemaCache } from '../metadata/index.js';
import { syncEventTriggers, syncSourceEventTriggers, droppedSources, dropSourceCaptures, eventsWritten } from '../events/index.js';
import { dropLiveChanges, syncLiveTriggers, syncSourceLiveTriggers } from '../subscriptions/index.js';
import { scheduledWritten } from '../scheduled/index.js';
import { prepareRoleSchemas } from '../graphql/index.js';
import { TurnBudget } from '../lib/index.js';
import { OPERATIONS } from './operations.js';
import type { OpType } from './operations.js';
import { accessMode, mutates, type Query } from './envelope.js';
import type { OpContext, OperationHandler } from './types.js';
import { recordInstalled, WorkingState } from './workingState.js';
import { scopeToSource } from './sourceScope.js';
import { FUNCTION_OPS, noticeHasuraSessionReaders, servedFunctions } from './hasuraSessionNotice.js';

/**
 * Order of lock acquisition in this process: a request installs its cache only if no request that
 * took the lock after it has installed already (commits follow lock order; installs might not).
 */
const installOrder = new WeakMap<EngineContext['state'], { next: number; installed: number }>();

/**
 * Runs the request; a metadata change (no SQL, no DML) first optimistically, on the live build's snapshot while
 * the catalogs' fingerprint is read beside the build (WorkingState's `optimistic`): when the database turned out
 * changed, the attempt is rolled back and the request run again on a snapshot read for it.
 */
export async function runQuery(engine: EngineContext, session: Session, query: Query): Promise<unknown> {
  if (!mutates(query) || !metadataOnly(query)) return attempt(engine, session, query, false);
  try {
    return await attempt(engine, session, query, true);
  } catch (e) {
    if (e !== STALE) throw e;
    return attempt(engine, session, query, false);
  }
}

/** The attempt's snapshot was not the database's (thrown inside the transaction: it rolls back). */
const STALE = new Error('the catalogs changed since the live build');

const NOT_METADATA_ONLY = new Set(['run_sql', 'insert', 'select', 'update', 'delete', 'count']);
const metadataOnly = (q: Query): boolean => (q.type === 'bulk' ? q.items.every(metadataOnly) : !NOT_METADATA_ONLY.has(q.type));

async function attempt(engine: EngineContext, session: Session, query: Query, optimistic: boolean): Promise<unknown> {
  const needsLock = mutates(query);
  let install: SchemaCache | undefined;
  let order = installOrder.get(engine.state);
  if (!order) installOrder.set(engine.state, (order = { next: 0, installed: -1 }));
  let ticket = -1;
  let version: number | undefined;
  const readOnly = accessMode(query) === 'ReadOnly';
  let dropped: ReturnType<typeof droppedSources> = [];
  let preparing: Promise<void> | undefined;
  let preparedFrom: SchemaCache | undefined;
  const result = await engine.db.transaction({ session, readOnly }, async (client) => {
    if (needsLock) {
      await lockMetadata(client);
      ticket = order.next++;
    }
    // The optimistic snapshot's fingerprint on another connection, beside this one's write of the document;
    // the document written before the last operation's build (see WorkingState).
    const aside = optimistic ? () => engine.db.withClient(catalogFingerprint) : undefined;
    const write = needsLock
      ? async (md: Metadata) => {
        const text = await encodeStoredBytes(md);
        return { version: writeStoredText(client, text, engine.state.instanceId, engine.state.metadataTable) };
      }
      : undefined;
    const work = new WorkingState(client, engine.state, needsLock, optimistic, aside, write);
    try {
      let out: unknown;
      try {
        out = await runOne({ engine, session, client, work, source: 'default', path: '$.args' }, query, { work, last: true });
      } catch (e) {
        // An answer (or refusal) from a snapshot the database no longer matched does not stand.
        throw (await work.stale()) ? STALE : e;
      }
      // The new cache's admin schema (when the live one has it) made a slice per turn while Postgres finishes the
      // request, so that no admin request after the install builds it in one turn; the other roles' after it.
      if (work.cacheChanged) {
        preparedFrom = engine.state.current;
        preparing = prepareRoleSchemas(preparedFrom, (await work.result()).cache, new TurnBudget(), (role) => role === ADMIN_ROLE);
        preparing.catch(() => undefined);
      }
      if (await work.stale()) throw STALE;
      // Capture triggers follow the metadata (cascades, untrack, drops, clear) in this transaction.
      if (work.metadataChanged || work.cacheChanged) {
        const cache = (await work.result()).cache;
        await syncEventTriggers(client, cache);
        // Another source's captures, in its own database (committed with the request, below).
        const sourceClient = work.sourceClient.bind(work);
        await syncSourceEventTriggers(cache, engine.state.current, sourceClient, client);
        dropped = droppedSources(engine.state.current, cache);
        // Live-query change triggers leave tables that are no longer tracked (on every source).
        await syncLiveTriggers(client, cache);
        await syncSourceLiveTriggers(cache, engine.state.current, sourceClient, (c, name) => findSource(c.metadata, name)?.configuration.connection_info, client);
      }
      // New read replicas must be usable standbys before the change commits (a bad one changes nothing).
      if (work.metadataChanged && engine.readReplicaSetup) await engine.readReplicaSetup.check(await work.metadata());
      // Every change gets a new resource_version and a notification (other instances rebuild).
      // (A document written beside a build the request did not adopt is written over with the request's.)
      if (work.metadataChanged || work.wroteEarly) {
        const md = await work.metadata();
        version = (await work.earlyWrite(md)) ?? (await saveMetadata(client, md, engine.state.instanceId, engine.state.metadataTable));
      }
      else if (work.cacheChanged) version = await touchMetadata(client, engine.state.instanceId, engine.state.metadataTable);
      if (work.cacheChanged) install = (await work.result()).cache;
      // What run_sql did on other sources commits just before this request's own transaction.
      await work.finishSources('COMMIT');
      return out;
    } catch (e) {
      await work.finishSources('ROLLBACK');
      throw e;
    }
  });
  if (install && preparing) await preparing;
  if (install && ticket > order.installed) {
    order.installed = ticket;
    engine.state.install(install, version);
    // The other roles that had a schema: made in the background, a slice per turn (a request that comes first builds its own).
    if (preparedFrom) prepareRoleSchemas(preparedFrom, install, new TurnBudget(), (role) => role !== ADMIN_ROLE).catch(() => undefined);
    if (version !== undefined && engine.state.current === install) recordInstalled(install, version);
    // A change of read_replicas is in use (new pools measured) when the answer goes out.
    await engine.readReplicaSetup?.settled();
  }
  // A dropped source's triggers leave its database once the change is in (best effort: it may be down).
  if (dropped.length > 0 && engine.sources) await dropSourceCaptures(engine.sources, dropped, engine.state.current, engine.logger, dropLiveChanges, engine.db);
  // Rows written by this request may have captured events: wake the delivery workers.
  if (!readOnly) eventsWritten(engine);
  // New cron occurrences or one-off events: re-arm the scheduler here and wake the other instances.
  if (addsScheduled(query)) scheduledWritten(engine);
  return result;
}


const SCHEDULING_OPS = new Set(['create_cron_trigger', 'create_scheduled_event', 'replace_metadata']);
const addsScheduled = (q: Query): boolean => (q.type === 'bulk' ? q.items.some(addsScheduled) : SCHEDULING_OPS.has(q.type));

/** Rewrites an error path reported relative to `$.args` so it points into this operation. */
function relocate(e: unknown, path: string): unknown {
  if (!isApiError(e) || path === '$.args') return e;
  if (e.path === '$.args' || e.path.startsWith('$.args.') || e.path.startsWith('$.args[')) {
    return new ApiError(e.code, e.message, { status: e.status, path: path + e.path.slice('$.args'.length), internal: e.internal });
  }
  return e;
}

/** `at.last`: the request's last operation (a bulk's last item), whose build sends the document's write first. */
async function runOne(ctx: OpContext, q: Query, at: { work: WorkingState; last: boolean }): Promise<unknown> {
  if (q.type === 'bulk') {
    const out: unknown[] = [];
    for (let i = 0; i < q.items.length; i++) {
      out.push(await runOne({ ...ctx, path: `${pathKey(ctx.path, i)}.args` }, q.items[i], { work: at.work, last: at.last && i === q.items.length - 1 }));
    }
    return out;
  }
  at.work.lastOperation = at.last;
  const handler = OPERATIONS[q.type as OpType] as OperationHandler<unknown>;
  if (handler.adminOnly && !ctx.session.isAdmin) {
    throw new ApiError('access-denied', 'restricted access: admin only', { path: ctx.path });
  }
  // A command on another source runs the same handler over that source's view (sourceScope.ts).
  if (q.source !== undefined) ctx = await scopeToSource(ctx, q.type as OpType, q.source);
  try {
    // Functions the operation starts serving that read hasura.user, which the engine does not set in this mode.
    const watch = !ctx.engine.hasuraSession && FUNCTION_OPS.has(q.type) ? servedFunctions(await ctx.work.metadata()) : undefined;
    const out = await handler.run(ctx, q.args);
    if (watch) await noticeHasuraSessionReaders(ctx, q.type, watch);
    return out;
  } catch (e) {
    throw relocate(e, ctx.path);
  }
}
