/**
 * The executor of mutation operations (named in executors.ts): every table mutation root field of
 * the request runs in order in ONE read-write transaction (see planner `executeMutations`);
 * `__typename` root fields answer the root type's name. Other mutation root fields (actions, remote
 * fields) run by the field executors of their kind, given by the table, after the table mutations
 * have committed. With read replicas, the response carries the commit's WAL position
 * (`X-Svc-Commit-Lsn`, execution/readRouting.ts).
 */
import { ApiError } from '../core/index.js';
import { executeMutations, isMutationFieldPlan, type MutationFieldPlan } from '../planner/index.js';
import type { CompiledRootField } from '../planner/index.js';
import { eventsWritten } from '../events/index.js';
import type { MutationFieldExecutor, OperationExecutor } from './executorTypes.js';
import { COMMIT_LSN_HEADER } from '../execution/index.js';

/** The mutation executor that runs other root fields by `fieldExecutors[kind]`. */
export const mutationExecutor = (fieldExecutors: Readonly<Record<string, MutationFieldExecutor>>): OperationExecutor => async (args) => {
  const out = new Map<string, string>();
  const plans: Array<{ alias: string; plan: MutationFieldPlan }> = [];
  const others: Array<{ field: CompiledRootField; run: MutationFieldExecutor }> = [];
  for (const f of args.compiled.fields) {
    if (f.kind === 'typename') out.set(f.alias, JSON.stringify(f.value));
    else if (isMutationFieldPlan(f)) plans.push({ alias: f.alias, plan: f.plan });
    else {
      const run = Object.hasOwn(fieldExecutors, f.kind) ? fieldExecutors[f.kind] : undefined;
      if (!run) throw new ApiError('not-supported', `root field ${f.alias} cannot be executed in a mutation`);
      others.push({ field: f, run });
    }
  }
  if (plans.length > 0) {
    const prepare = args.ctx.config.usePreparedStatements !== false;
    const results = await executeMutations(args.ctx.db, plans.map((p) => p.plan), args.session, args.variables, { prepare });
    eventsWritten(args.ctx); // committed: wake the event workers (no NOTIFY inside the user's transaction)
    // With read replicas: the token that lets the client's next reads see this commit (execution/readRouting.ts).
    if (args.ctx.replicas && args.responseHeaders) {
      const lsn = await args.ctx.replicas.commitLsn().catch(() => undefined);
      if (lsn !== undefined) args.responseHeaders[COMMIT_LSN_HEADER] = lsn;
    }
    plans.forEach((p, i) => out.set(p.alias, results[i] ?? 'null'));
  }
  for (const o of others) out.set(o.field.alias, await o.run(o.field, args));
  return out;
};
