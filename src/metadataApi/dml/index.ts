/**
 * The v1 DML operations of `/v1/query`: `select`, `count`, `insert`, `update`, `delete`, as
 * Hasura v1.3 runs them, for any role (`X-Svc-Role` with the admin secret selects it) under that
 * role's permissions. Each handler decodes its args, resolves names and permissions against the
 * request's working schema cache, and runs one statement in the request's transaction; the
 * response JSON is built in Postgres.
 */
import { isApiError } from '../../core/index.js';
import type { OpContext } from '../types.js';
import { op } from '../types.js';
import { decodeCountArgs, decodeDeleteArgs, decodeInsertArgs, decodeSelectArgs, decodeUpdateArgs } from './decode.js';
import type { DmlEnv } from './resolve.js';
import { RawJson } from './rawJson.js';
import { runCount, runSelect } from './select.js';
import { runInsert } from './insert.js';
import { runDelete, runUpdate } from './update.js';

async function envOf(ctx: OpContext): Promise<DmlEnv> {
  // Errors point at `$.args…`; the runner moves them under `$.args[i].args` inside a bulk.
  return { cache: await ctx.work.cache(), session: ctx.session, path: '$.args', stringify: ctx.engine.config.stringifyNumericTypes };
}

/** The operation's answer: the JSON Postgres built, passed through as text. */
const value = (text: string): RawJson => new RawJson(text);

/** Database errors (reported at `$`) point at the operation's args, as Hasura reports them. */
async function atArgs<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    throw isApiError(e) && e.path === '$' ? e.withPathPrefix('$.args') : e;
  }
}

export const dmlSelect = op({ adminOnly: false, mutates: false, decode: decodeSelectArgs, run: async (ctx, a) => value(await atArgs(async () => runSelect(ctx, await envOf(ctx), a))) });
export const dmlCount = op({ adminOnly: false, mutates: false, decode: decodeCountArgs, run: async (ctx, a) => value(await atArgs(async () => runCount(ctx, await envOf(ctx), a))) });
export const dmlInsert = op({ adminOnly: false, mutates: false, decode: decodeInsertArgs, run: async (ctx, a) => value(await atArgs(async () => runInsert(ctx, await envOf(ctx), a))) });
export const dmlUpdate = op({ adminOnly: false, mutates: false, decode: decodeUpdateArgs, run: async (ctx, a) => value(await atArgs(async () => runUpdate(ctx, await envOf(ctx), a))) });
export const dmlDelete = op({ adminOnly: false, mutates: false, decode: decodeDeleteArgs, run: async (ctx, a) => value(await atArgs(async () => runDelete(ctx, await envOf(ctx), a))) });

export { RawJson, encodeQueryResult } from './rawJson.js';

/** The five entries for the operation registry. */
export const DML_OPERATIONS = { select: dmlSelect, count: dmlCount, insert: dmlInsert, update: dmlUpdate, delete: dmlDelete } as const;
export const dmlOperations = DML_OPERATIONS;
