/**
 * The executor of mutation operations (named in executors.ts): every table mutation root field of
 * the request runs in order in ONE read-write transaction (see planner `executeMutations`) on the
 * pool of their source; root fields of several sources run one by one, each in its own transaction
 * on its source, as Hasura v2 runs them;
 * `__typename` root fields answer the root type's name. Other mutation root fields (actions, remote
 * fields) run by the field executors of their kind, given by the table, after the table mutations
 * have committed. With read replicas, the response carries the commit's WAL position
 * (`X-Svc-Commit-Lsn`, execution/readRouting.ts): one per source written that has replicas.
 */
import { ApiError } from '../core/index.js';
import { executeMutations, isMutationFieldPlan, type MutationFieldPlan } from '../planner/index.js';
import type { CompiledRootField } from '../planner/index.js';
import { eventsWritten } from '../events/index.js';
import type { MutationFieldExecutor, OperationExecutor } from './executorTypes.js';
import { COMMIT_LSN_HEADER, commitPointsHeader } from '../execution/index.js';
import { hasReadReplicas, sourceDb, type EngineContext } from '../appState.js';

/** The mutation executor that runs other root fields by `fieldExecutors[kind]`. */
export const mutationExecutor = (fieldExecutors: Readonly<Record<string, MutationFieldExecutor>>): OperationExecutor => async (args) => {
  const out = new Map<string, string>();
  const plans: Array<{ alias: string; plan: MutationFieldPlan; source?: string }> = [];
  const others: Array<{ field: CompiledRootField; run: MutationFieldExecutor }> = [];
  for (const f of args.compiled.fields) {
    if (f.kind === 'typename') out.set(f.alias, JSON.stringify(f.value));
    else if (isMutationFieldPlan(f)) plans.push({ alias: f.alias, plan: f.plan, source: 'source' in f ? f.source : undefined });
    else {
      const run = Object.hasOwn(fieldExecutors, f.kind) ? fieldExecutors[f.kind] : undefined;
      if (!run) throw new ApiError('not-supported', `root field ${f.alias} cannot be executed in a mutation`);
      others.push({ field: f, run });
    }
  }
  const sources = new Set(plans.map((p) => p.source ?? 'default'));
  const alwaysSetSession = args.ctx.config.skipUnreadSession === false;
  if (sources.size === 1) {
    // Every table mutation on one source: one transaction there.
    const { db, prepare, isolation } = sourceDb(args.ctx, plans[0].source);
    const results = await executeMutations(db, plans.map((p) => p.plan), args.session, args.variables, { prepare, isolation, alwaysSetSession });
    eventsWritten(args.ctx, sources); // committed: wake the written sources' event workers (no NOTIFY inside the user's transaction)
    if (args.responseHeaders && hasReadReplicas(args.ctx)) await commitPoints(args.ctx, sources, args.responseHeaders);
    plans.forEach((p, i) => out.set(p.alias, results[i] ?? 'null'));
  } else if (sources.size > 1) {
    // Root fields of several sources: as Hasura, each runs on its own, in order, in its own
    // transaction on its source (no transaction spans two databases: an error stops the rest).
    for (const p of plans) {
      const { db, prepare, isolation } = sourceDb(args.ctx, p.source);
      const [result] = await executeMutations(db, [p.plan], args.session, args.variables, { prepare, isolation, alwaysSetSession });
      out.set(p.alias, result ?? 'null');
    }
    eventsWritten(args.ctx, sources);
    if (args.responseHeaders && hasReadReplicas(args.ctx)) await commitPoints(args.ctx, sources, args.responseHeaders);
  }
  for (const o of others) out.set(o.field.alias, await o.run(o.field, args));
  return out;
};

/**
 * With read replicas: the token that lets the client's next reads see these commits
 * (execution/readRouting.ts), the position of each written source that has replicas.
 */
async function commitPoints(ctx: EngineContext, sources: ReadonlySet<string>, headers: Record<string, string>): Promise<void> {
  const points: Array<[string, string]> = [];
  for (const source of sources) {
    const replicas = source === 'default' ? ctx.replicas : ctx.sources?.replicas(source);
    if (!replicas) continue;
    const lsn = await replicas.commitLsn().catch(() => undefined);
    if (lsn !== undefined) points.push([source, lsn]);
  }
  if (points.length > 0) headers[COMMIT_LSN_HEADER] = commitPointsHeader(points);
}
