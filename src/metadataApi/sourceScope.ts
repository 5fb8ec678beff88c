/**
 * Where each operation runs when a command names a `source` other than `default` (Hasura v2's
 * `pg_*` commands with `source`, `/v2/query`'s DML with `source`): a closed table over every
 * operation type.
 * - `source`: the operation's one handler runs over that source's view of the request (sourceWork.ts):
 *   its metadata part, database, cache, and a connection in a transaction there held for the request.
 * - `named`: the operation's handler takes the source itself from `OpContext.source` and edits
 *   `sources[]` over the request's whole working state (event triggers, whose catalog and capture
 *   live in the source's database; remote relationships, which reach other sources' caches).
 * - `global`: the operation is not about a source's objects (metadata as a whole, inherited roles,
 *   actions, remote schemas…, and run_sql, which takes its own `source`): it runs as it is.
 */
import { ApiError } from '../core/index.js';
import { setSessionVariables } from '../execution/index.js';
import { findSource } from '../metadata/index.js';
import type { OpType } from './operations.js';
import { SourceWork } from './sourceWork.js';
import type { OpContext } from './types.js';

type Scope = 'source' | 'named' | 'global';


export const SOURCE_SCOPE: Readonly<Record<OpType, Scope>> = {
  run_sql: 'global',
  track_table: 'source',
  add_existing_table_or_view: 'source',
  untrack_table: 'source',
  set_table_is_enum: 'source',
  set_table_custom_fields: 'source',
  create_object_relationship: 'source',
  create_array_relationship: 'source',
  drop_relationship: 'source',
  rename_relationship: 'source',
  set_relationship_comment: 'source',
  create_insert_permission: 'source',
  create_select_permission: 'source',
  create_update_permission: 'source',
  create_delete_permission: 'source',
  drop_insert_permission: 'source',
  drop_select_permission: 'source',
  drop_update_permission: 'source',
  drop_delete_permission: 'source',
  set_permission_comment: 'source',
  track_function: 'source',
  untrack_function: 'source',
  create_function_permission: 'source',
  drop_function_permission: 'source',
  add_computed_field: 'source',
  drop_computed_field: 'source',
  export_metadata: 'global',
  replace_metadata: 'global',
  reload_metadata: 'global',
  clear_metadata: 'global',
  get_inconsistent_metadata: 'global',
  drop_inconsistent_metadata: 'global',
  create_query_collection: 'global',
  drop_query_collection: 'global',
  add_query_to_collection: 'global',
  drop_query_from_collection: 'global',
  add_collection_to_allowlist: 'global',
  drop_collection_from_allowlist: 'global',
  set_api_limits: 'global',
  create_rest_endpoint: 'global',
  drop_rest_endpoint: 'global',
  remove_api_limits: 'global',
  set_graphql_schema_introspection_options: 'global',
  add_inherited_role: 'global',
  drop_inherited_role: 'global',
  update_source: 'global',
  add_source: 'global',
  drop_source: 'global',
  rename_source: 'global',
  create_event_trigger: 'named',
  delete_event_trigger: 'named',
  redeliver_event: 'named',
  invoke_event_trigger: 'named',
  set_custom_types: 'global',
  create_action: 'global',
  update_action: 'global',
  drop_action: 'global',
  create_action_permission: 'global',
  drop_action_permission: 'global',
  add_remote_schema: 'global',
  update_remote_schema: 'global',
  remove_remote_schema: 'global',
  reload_remote_schema: 'global',
  add_remote_schema_permissions: 'global',
  drop_remote_schema_permissions: 'global',
  create_remote_relationship: 'named',
  update_remote_relationship: 'named',
  delete_remote_relationship: 'named',
  create_remote_schema_remote_relationship: 'global',
  update_remote_schema_remote_relationship: 'global',
  delete_remote_schema_remote_relationship: 'global',
  create_cron_trigger: 'global',
  delete_cron_trigger: 'global',
  create_scheduled_event: 'global',
  track_logical_model: 'source',
  untrack_logical_model: 'source',
  create_logical_model_select_permission: 'source',
  drop_logical_model_select_permission: 'source',
  track_native_query: 'source',
  untrack_native_query: 'source',
  get_logical_model: 'source',
  get_native_query: 'source',
  test_webhook_transform: 'global',
  select: 'source',
  insert: 'source',
  update: 'source',
  delete: 'source',
  count: 'source',
};

/**
 * The context operation `type` runs in when its command named `source`: unchanged for `default` and
 * for global operations; over that source's view (and a connection there, in a transaction held for
 * the request, with the request's session variables) for the operations of a source.
 */
export async function scopeToSource(ctx: OpContext, type: OpType, source: string): Promise<OpContext> {
  if (source === 'default') return ctx;
  const scope = SOURCE_SCOPE[type];
  const entry = findSource(await ctx.work.metadata(), source);
  if (!entry) throw new ApiError('not-exists', `source with name ${JSON.stringify(source)} does not exist`, { path: ctx.path });
  if (scope === 'global') return ctx;
  if (scope === 'named') return { ...ctx, source };
  const client = await ctx.work.sourceClient(source, entry.configuration.connection_info);
  // The request's session variables in the source's transaction, as the request's own transaction has them.
  await setSessionVariables(client, ctx.session);
  return { ...ctx, work: new SourceWork(ctx.work, source), client, source };
}
