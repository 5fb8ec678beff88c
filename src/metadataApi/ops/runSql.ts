/**
 * `run_sql`: runs SQL text as-is inside the request's transaction. The answer is the last
 * statement's result: `{result_type: "TuplesOk", result: [[names], [values as text]...]}` when it
 * returns rows (NULL cells print as "NULL", as Hasura), else `{result_type: "CommandOk", result: null}`.
 *
 * With the metadata check (`check_metadata_consistency`, by default when the text mentions
 * alter/drop/replace/create function/comment on) the schema is compared before/after: renames of
 * tracked tables and columns are followed, dropped tracked tables/functions untracked, and objects
 * that depend on dropped things refused (dependency-error) unless `cascade`, which removes them.
 * The new schema cache is installed when the request commits.
 */
import { ApiError, isApiError, qualifiedKey, sameName } from '../../core/index.js';
import type { QualifiedTable } from '../../core/index.js';
import {
  asBool,
  asObject,
  allRelationships,
  asString,
  findSource,
  findTable,
  hasuraSessionWarning,
  optional,
  readsHasuraSession,
  removeObject,
  sessionFreeWritesLost,
  renameColumn,
  renameTable,
  reportObjects,
  required,
} from '../../metadata/index.js';
import type { BuildResult, Inconsistency, Metadata, MetadataObjectId } from '../../metadata/index.js';
import { op } from '../types.js';
import type { OpContext } from '../types.js';
import { assertNoNewInconsistencies } from '../workingState.js';
import { dependentsOf, onTable, partOf } from '../dependents.js';
import { dropDependents, quote, quoteTable } from './common.js';
import { resolverOf } from './relationships.js';
import { schemaDiff, type SchemaDiff } from './schemaDiff.js';

interface RunSqlArgs {
  sql: string;
  /** The source to run on (absent: `default`, the request's own transaction). */
  source?: string;
  cascade: boolean;
  checkMetadataConsistency?: boolean;
  readOnly: boolean;
}

const SCHEMA_CHANGING = /alter|drop|replace|create function|comment on/i;

type RawResult = Awaited<ReturnType<OpContext['client']['queryRaw']>>;

function formatResult(results: RawResult): unknown {
  const last = results[results.length - 1];
  if (!last || last.fields.length === 0) return { result_type: 'CommandOk', result: null };
  return { result_type: 'TuplesOk', result: [last.fields, ...last.rows.map((r) => r.map((v) => (v === null ? 'NULL' : v)))] };
}

async function execute(ctx: OpContext, sql: string): Promise<RawResult> {
  try {
    return await ctx.client.queryRaw(sql);
  } catch (e) {
    if (isApiError(e)) throw new ApiError(e.code, e.message, { status: e.status, path: '$.args', internal: e.internal });
    throw e;
  }
}

/**
 * Words of SQL that can give a table a reader of the session variables (triggers, policies, rules,
 * inheritance, defaults, constraints, cascading keys, partitions) or run SQL that might (DO, CALL,
 * EXECUTE): only then does an unchecked run_sql ask whether session-free tables stayed so.
 */
const SESSION_READER_DDL = /\b(trigger|policy|row\s+level|rule|inherit|default|check|domain|references|foreign|attach|partition|do|call|execute)\b/i;

export const run_sql = op({
  adminOnly: true,
  mutates: true,
  decode(args, path): RunSqlArgs {
    const o = asObject(args, path);
    const source = optional(o, 'source', path, asString);
    return {
      ...(source !== undefined && source !== 'default' ? { source } : {}),
      sql: required(o, 'sql', path, asString),
      cascade: optional(o, 'cascade', path, asBool) ?? false,
      checkMetadataConsistency: optional(o, 'check_metadata_consistency', path, asBool),
      readOnly: optional(o, 'read_only', path, asBool) ?? false,
    };
  },
  async run(ctx, args) {
    if (args.source !== undefined) return runOnSource(ctx, args, args.source);
    if (!ctx.engine.hasuraSession && readsHasuraSession(args.sql)) ctx.engine.logger.warn({ type: 'hasura-session', path: ctx.path }, hasuraSessionWarning('run_sql'));
    const check = !args.readOnly && (args.checkMetadataConsistency ?? SCHEMA_CHANGING.test(args.sql));
    if (!check) {
      // Tables whose mutations skip setting the session (planner/sessionFree.ts): SQL that gives one
      // a reader of the session (a trigger, row security…) rebuilds the cache, so they set it again.
      const sessionFree = args.readOnly || !SESSION_READER_DDL.test(args.sql) ? [] : [...(await ctx.work.cache()).tables.values()].filter((t) => t.sessionFreeWrites === true).map((t) => t.name);
      const results = await execute(ctx, args.sql);
      if (!args.readOnly) {
        ctx.work.schemaChanged();
        if (await sessionFreeWritesLost(ctx.client, sessionFree)) ctx.work.cacheChanged = true;
      }
      return formatResult(results);
    }
    const before = await ctx.work.result();
    const beforeSnap = await ctx.work.snapshot();
    const md = await ctx.work.draft();
    const results = await execute(ctx, args.sql);
    ctx.work.schemaChanged();
    const afterSnap = await ctx.work.snapshot();
    const diff = schemaDiff(md, beforeSnap, afterSnap);
    applyDiff(md, diff, before, args.cascade, resolverOf(before.cache));
    const after = await ctx.work.buildFor(md);
    assertNoNewInconsistencies(before.inconsistent, after.inconsistent);
    ctx.work.adopt(md, after);
    return formatResult(results);
  },
});

/**
 * run_sql on a source beside `default`: in a transaction on that source held for the request (a bulk's
 * statements share it; it commits with the request, or rolls back with it). The source is read again
 * inside that transaction; a change that makes tracked objects inconsistent is refused (renames of
 * tracked tables and columns are not followed there).
 */
async function runOnSource(ctx: OpContext, args: RunSqlArgs, name: string): Promise<unknown> {
  const source = findSource(await ctx.work.metadata(), name);
  if (!source) throw new ApiError('not-exists', `source with name ${quote(name)} does not exist`, { path: '$.args' });
  const before = args.readOnly ? undefined : await ctx.work.result();
  const client = await ctx.work.sourceClient(name, source.configuration.connection_info);
  let results: RawResult;
  try {
    results = await client.queryRaw(args.sql);
  } catch (e) {
    if (isApiError(e)) throw new ApiError(e.code, e.message, { status: e.status, path: '$.args', internal: e.internal });
    throw e;
  }
  if (before) {
    ctx.work.schemaChanged();
    const after = await ctx.work.result();
    // Objects of a table that did not exist before (a migration creating tables one by one) are not
    // newly broken: only what worked before and no longer does refuses the change.
    const tableOf = (i: Inconsistency): string | undefined =>
      i.id.kind === 'source_object' && 'table' in i.id.id ? `${i.id.source}:${qualifiedKey(i.id.id.table)}` : undefined;
    const missing = new Set(before.inconsistent.filter((i) => i.id.kind === 'source_object' && i.id.id.kind === 'table').map(tableOf));
    assertNoNewInconsistencies(before.inconsistent, after.inconsistent.filter((i) => !missing.has(tableOf(i))));
    ctx.work.cacheChanged = true;
  }
  return formatResult(results);
}

/** Hasura's withMetadataCheck: refuse or cascade dependents, then follow drops and renames. */
function applyDiff(md: Metadata, diff: SchemaDiff, deps: BuildResult, cascade: boolean, resolve: ReturnType<typeof resolverOf>): void {
  for (const fn of diff.overloadedFunctions) {
    const cf = computedFieldUsing(md, fn);
    const message = cf
      ? `The function ${quoteTable(fn)} associated with computed field${quote(cf.name)} of table ${quoteTable(cf.table)} is being overloaded`
      : `${quoteTable(fn)} functions are being overloaded and it is not allowed`;
    throw new ApiError('not-supported', message, { path: '$.args' });
  }

  const dropped = diff.droppedTables;
  const isDirect = (id: MetadataObjectId) => dropped.some((t) => partOf(t)(id));
  const found: MetadataObjectId[] = [];
  for (const t of dropped) found.push(...dependentsOf(deps, { table: t }, onTable(t), isDirect));
  for (const td of diff.alteredTables) {
    for (const c of td.droppedColumns) {
      found.push(...dependentsOf(deps, { table: td.table }, (r) => r.kind === 'column' && sameName(r.table, td.table) && r.column === c, isDirect));
    }
    for (const fk of td.droppedForeignKeys) {
      found.push(...dependentsOf(deps, { table: td.table }, (r) => r.kind === 'constraint' && sameName(r.table, td.table) && r.name === fk, isDirect));
    }
  }
  for (const fn of diff.droppedFunctions) {
    found.push(...dependentsOf(deps, { function: fn }, (r) => r.kind === 'function' && sameName(r.function, fn), isDirect));
  }
  const seen = new Set<string>();
  const indirect = found.filter((id) => {
    const k = JSON.stringify(id);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  dropDependents(md, indirect, cascade);

  for (const fn of diff.volatileFunctions) {
    const cf = computedFieldUsing(md, fn);
    const message = cf
      ? `The type of function ${quoteTable(fn)} associated with computed field ${quote(cf.name)} of table ${quoteTable(cf.table)} is being altered to "VOLATILE"`
      : `type of function ${quoteTable(fn)} is altered to "VOLATILE" which is not supported now`;
    throw new ApiError('not-supported', message, { path: '$.args' });
  }

  for (const t of dropped) removeObject(md, { kind: 'table', table: t });
  for (const fn of diff.droppedFunctions) removeObject(md, { kind: 'function', function: fn });

  for (const td of diff.alteredTables) {
    for (const c of td.alteredColumns) {
      const typed = dependentsOf(deps, { table: td.table }, (r, d) => !!d.onType && r.kind === 'column' && sameName(r.table, td.table) && r.column === c);
      if (typed.length > 0) {
        const names = reportObjects(typed);
        throw new ApiError('dependency-error', `cannot change type of column ${quote(c)} in table ${quoteTable(td.table)} because of the following dependencies: ${names}`, { path: '$.args' });
      }
    }
  }
  for (const td of diff.alteredTables) {
    const entry = findTable(md, td.table);
    for (const c of td.addedColumns) {
      const clash = entry && [...allRelationships(entry), ...(entry.computed_fields ?? [])].some((f) => f.name === c);
      if (clash) {
        throw new ApiError('already-exists', `cannot add column ${quote(c)} in table ${quoteTable(td.table)} because a relationship with the name already exists`, { path: '$.args' });
      }
    }
  }
  for (const td of diff.alteredTables) {
    // A dropped column's custom GraphQL name goes with it.
    const names = findTable(md, td.table)?.configuration?.custom_column_names;
    if (names) for (const c of td.droppedColumns) delete names[c];
  }
  for (const td of diff.alteredTables) {
    const current: QualifiedTable = td.newName ?? td.table;
    if (td.newName) renameTable(md, td.table, td.newName);
    for (const r of td.renamedColumns) {
      const resolveRenamed = (at: QualifiedTable, name: string) => {
        const target = resolve(sameName(at, current) ? td.table : at, name);
        return target && td.newName && sameName(target, td.table) ? current : target;
      };
      renameColumn(md, current, r.from, r.to, resolveRenamed);
    }
  }
}

function computedFieldUsing(md: Metadata, fn: QualifiedTable): { name: string; table: QualifiedTable } | undefined {
  for (const t of md.tables) {
    for (const cf of t.computed_fields ?? []) {
      const f = cf.definition.function;
      const q = typeof f === 'string' ? { schema: 'public', name: f } : f;
      if (qualifiedKey(q) === qualifiedKey(fn)) return { name: cf.name, table: t.table };
    }
  }
  return undefined;
}
