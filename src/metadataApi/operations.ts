/**
 * The closed registry of `/v1/query` operation types: every type maps to exactly one handler
 * (`satisfies Record<OpType, OperationHandler>`), so adding a type without a handler, or a
 * handler without a type, does not compile. `bulk` is handled by the envelope and runner.
 */
import type { OperationHandler } from './types.js';
import { track_table, untrack_table, set_table_is_enum, set_table_custom_fields } from './ops/tables.js';
import {
  create_object_relationship,
  create_array_relationship,
  drop_relationship,
  rename_relationship,
  set_relationship_comment,
} from './ops/relationships.js';
import {
  create_insert_permission,
  create_select_permission,
  create_update_permission,
  create_delete_permission,
  drop_insert_permission,
  drop_select_permission,
  drop_update_permission,
  drop_delete_permission,
  set_permission_comment,
} from './ops/permissions.js';
import { track_function, untrack_function, add_computed_field, drop_computed_field } from './ops/functions.js';
import {
  export_metadata,
  replace_metadata,
  reload_metadata,
  clear_metadata,
  get_inconsistent_metadata,
  drop_inconsistent_metadata,
} from './ops/metadataOps.js';
import { run_sql } from './ops/runSql.js';
import {
  create_query_collection,
  drop_query_collection,
  add_query_to_collection,
  drop_query_from_collection,
  add_collection_to_allowlist,
  drop_collection_from_allowlist,
} from './ops/queryCollections.js';
import { create_rest_endpoint, drop_rest_endpoint } from './ops/restEndpoints.js';
import { set_api_limits, remove_api_limits, set_graphql_schema_introspection_options } from './ops/apiLimits.js';
import { add_inherited_role, drop_inherited_role } from './ops/inheritedRoles.js';
import { update_source } from './ops/updateSource.js';
import { create_event_trigger, delete_event_trigger, redeliver_event, invoke_event_trigger } from './ops/eventTriggers.js';
import {
  set_custom_types,
  create_action,
  update_action,
  drop_action,
  create_action_permission,
  drop_action_permission,
} from './ops/actions.js';
import {
  add_remote_schema,
  remove_remote_schema,
  reload_remote_schema,
  create_remote_relationship,
  update_remote_relationship,
  delete_remote_relationship,
} from './ops/remoteSchemas.js';
import { create_cron_trigger, delete_cron_trigger, create_scheduled_event } from './ops/scheduledTriggers.js';
import { test_webhook_transform } from './ops/webhookTransform.js';
import { DML_OPERATIONS } from './dml/index.js';

export const OP_TYPES = [
  'run_sql',
  'track_table',
  'add_existing_table_or_view',
  'untrack_table',
  'set_table_is_enum',
  'set_table_custom_fields',
  'create_object_relationship',
  'create_array_relationship',
  'drop_relationship',
  'rename_relationship',
  'set_relationship_comment',
  'create_insert_permission',
  'create_select_permission',
  'create_update_permission',
  'create_delete_permission',
  'drop_insert_permission',
  'drop_select_permission',
  'drop_update_permission',
  'drop_delete_permission',
  'set_permission_comment',
  'track_function',
  'untrack_function',
  'add_computed_field',
  'drop_computed_field',
  'export_metadata',
  'replace_metadata',
  'reload_metadata',
  'clear_metadata',
  'get_inconsistent_metadata',
  'drop_inconsistent_metadata',
  'create_query_collection',
  'drop_query_collection',
  'add_query_to_collection',
  'drop_query_from_collection',
  'add_collection_to_allowlist',
  'drop_collection_from_allowlist',
  'set_api_limits',
  'create_rest_endpoint',
  'drop_rest_endpoint',
  'remove_api_limits',
  'set_graphql_schema_introspection_options',
  'add_inherited_role',
  'drop_inherited_role',
  'update_source',
  'create_event_trigger',
  'delete_event_trigger',
  'redeliver_event',
  'invoke_event_trigger',
  'set_custom_types',
  'create_action',
  'update_action',
  'drop_action',
  'create_action_permission',
  'drop_action_permission',
  'add_remote_schema',
  'remove_remote_schema',
  'reload_remote_schema',
  'create_remote_relationship',
  'update_remote_relationship',
  'delete_remote_relationship',
  'create_cron_trigger',
  'delete_cron_trigger',
  'create_scheduled_event',
  'test_webhook_transform',
  'select',
  'insert',
  'update',
  'delete',
  'count',
] as const;

export type OpType = (typeof OP_TYPES)[number];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const OPERATIONS: Record<OpType, OperationHandler<any>> = {
  run_sql,
  track_table,
  // Hasura v1's older name for track_table (v1.3 still takes it; Hasura 1.0's CLI wrote it into migrations).
  add_existing_table_or_view: track_table,
  untrack_table,
  set_table_is_enum,
  set_table_custom_fields,
  create_object_relationship,
  create_array_relationship,
  drop_relationship,
  rename_relationship,
  set_relationship_comment,
  create_insert_permission,
  create_select_permission,
  create_update_permission,
  create_delete_permission,
  drop_insert_permission,
  drop_select_permission,
  drop_update_permission,
  drop_delete_permission,
  set_permission_comment,
  track_function,
  untrack_function,
  add_computed_field,
  drop_computed_field,
  export_metadata,
  replace_metadata,
  reload_metadata,
  clear_metadata,
  get_inconsistent_metadata,
  drop_inconsistent_metadata,
  create_query_collection,
  drop_query_collection,
  add_query_to_collection,
  drop_query_from_collection,
  add_collection_to_allowlist,
  drop_collection_from_allowlist,
  set_api_limits,
  create_rest_endpoint,
  drop_rest_endpoint,
  remove_api_limits,
  set_graphql_schema_introspection_options,
  add_inherited_role,
  drop_inherited_role,
  update_source,
  create_event_trigger,
  delete_event_trigger,
  redeliver_event,
  invoke_event_trigger,
  set_custom_types,
  create_action,
  update_action,
  drop_action,
  create_action_permission,
  drop_action_permission,
  add_remote_schema,
  remove_remote_schema,
  reload_remote_schema,
  create_remote_relationship,
  update_remote_relationship,
  delete_remote_relationship,
  create_cron_trigger,
  delete_cron_trigger,
  create_scheduled_event,
  test_webhook_transform,
  ...DML_OPERATIONS,
} satisfies Record<OpType, OperationHandler<any>>; // eslint-disable-line @typescript-eslint/no-explicit-any

const KNOWN = new Set<string>(OP_TYPES);
export const isOpType = (t: string): t is OpType => KNOWN.has(t);
