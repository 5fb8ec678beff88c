/**
 * The executor of mutation operations (named in executors.ts): every table mutation root field of
 * the request runs in order in ONE read-write transaction (see planner `executeMutations`) on the
 * pool of their source; root fields of several sources run one by one, each in its own transaction
 * on its source, as Hasura v2 runs them;
 * `__typename` root fields answer the root type's name. Other mutation root fields (actions, remote
 * fields) run by the field executors of their kind, given by the table, after the table mutations
 * have committed. With read replicas, the response carries the commit's WAL position
 * (`X-Svc-Commit-Lsn`, execution/readRouting.ts): one per source written that has replicas.
 *
 * Over HTTP, an operation of table mutations on one source (the common case: no actions, remote
 * fields or read replicas) is answered by `tableMutationBody`: its response is assembled as bytes
 * around the bytes Postgres sent for each field, as a query's is (execution/dataRowBytes.ts), without
 * decoding them to strings, a map of answers or the executor table's steps.
 */
import { ApiError, type Session } from '../core/index.js';
import { acquireBuffer } from '../lib/index.js';
import { responseKeys } from '../graphql/index.js';
import { executeMutations, isMutationFieldPlan, type MutationAnswer, type MutationFieldPlan } from '../planner/index.js';
import type { CompiledOperation, CompiledRootField } from '../planner/index.js';
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

/** An operation answered by `tableMutationBody`: its plans, where they run, and the response's fixed bytes. */
interface TableMutations {
  plans: MutationFieldPlan[];
  source?: string;
  sources: ReadonlySet<string>;
  /** Per root field, in order: `{"data":{"<alias>":` or `,"<alias>":` (a namespace's key opened or closed around it), then the field's place. */
  fields: Array<{ key: Buffer; plan: number } | { key: Buffer; value: Buffer }>;
  /** What closes the body: `}}`, or `}}}` after a field under a namespace. */
  close: Buffer;
}

const NULL_JSON = Buffer.from('null');
const tableMutations = new WeakMap<CompiledOperation, TableMutations | null>();

/** The table mutations of `compiled` when nothing else is in it (typename fields aside) and they run on one source; else null. */
function tableMutationsOf(compiled: CompiledOperation): TableMutations | null {
  let t = tableMutations.get(compiled);
  if (t !== undefined) return t;
  t = null;
  if (compiled.kind === 'mutation' && !compiled.multiSource && compiled.fields.every((f) => f.kind === 'typename' || isMutationFieldPlan(f))) {
    const plans: MutationFieldPlan[] = [];
    const fields: TableMutations['fields'] = [];
    let source: string | undefined;
    // Fields chosen under a source's namespace (alias `<ns>.<field>`) are nested under its key again.
    const keys = responseKeys(compiled.fields.map((f) => f.alias));
    compiled.fields.forEach((f, i) => {
      const key = Buffer.from(`${i === 0 ? '{"data":' : ''}${keys.before[i]}`);
      if (f.kind === 'typename') fields.push({ key, value: Buffer.from(JSON.stringify(f.value)) });
      else if (isMutationFieldPlan(f)) {
        if ('source' in f && f.source !== undefined) source = f.source;
        fields.push({ key, plan: plans.push(f.plan) - 1 });
      }
    });
    if (plans.length > 0) t = { plans, source, sources: new Set([source ?? 'default']), fields, close: Buffer.from(`${keys.after}}`) };
  }
  tableMutations.set(compiled, t);
  return t;
}

/**
 * The response body of an operation of table mutations on one source (`{"data":{...}}` as one
 * Buffer), or undefined when the operation is not one (the mutation executor answers it then).
 * Runs as the executor would (one transaction, the written sources' event workers woken after it).
 */
export function tableMutationBody(ctx: EngineContext, compiled: CompiledOperation, session: Session, variables: Record<string, unknown>): Promise<Buffer> | undefined {
  const t = tableMutationsOf(compiled);
  // With read replicas the answer carries the commit's position (a header): the executor's path.
  if (t === null || hasReadReplicas(ctx)) return undefined;
  return runTableMutations(ctx, t, session, variables);
}

async function runTableMutations(ctx: EngineContext, t: TableMutations, session: Session, variables: Record<string, unknown>): Promise<Buffer> {
  const { db, prepare, isolation } = sourceDb(ctx, t.source);
  const results = await executeMutations(db, t.plans, session, variables, { prepare, isolation, alwaysSetSession: ctx.config.skipUnreadSession === false, bytes: true });
  eventsWritten(ctx, t.sources);
  return assemble(t, results);
}

/** The fields' keys and answers, and `}}`, in one Buffer. */
function assemble(t: TableMutations, results: readonly MutationAnswer[]): Buffer {
  const values = t.fields.map((f): Buffer => {
    if ('value' in f) return f.value;
    const r = results[f.plan];
    return r === null || r === undefined ? NULL_JSON : typeof r === 'string' ? Buffer.from(r) : r;
  });
  let size = t.close.length;
  t.fields.forEach((f, i) => (size += f.key.length + values[i]!.length));
  const out = acquireBuffer(size);
  let off = 0;
  t.fields.forEach((f, i) => {
    off += f.key.copy(out, off);
    off += values[i]!.copy(out, off);
  });
  t.close.copy(out, off);
  return out;
}
