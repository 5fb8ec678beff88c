#!/usr/bin/env node
/**
 * `node scripts/genDocs.mjs [--check]`: writes the generated parts of the docs from the one
 * definition each has in src/ —
 *   docs/configuration.md  the option table      ← src/config/options.ts (OPTIONS)
 *   docs/configuration.md  Hasura's names         ← the same options' `hasuraEnv` / `hasuraParse` (those not
 *                                                   read by the plain HASURA_GRAPHQL_ rule)
 *   docs/api.md            the endpoint table    ← src/server/routes.ts (ROUTES)
 *   docs/api.md            the operation table   ← src/metadataApi/operations.ts (OP_TYPES, OPERATIONS)
 *                                                   and the /v1/metadata names translateV2Metadata accepts
 * Each part sits between `<!-- generated: NAME -->` and `<!-- end generated: NAME -->`; the text
 * around it is written by hand. `--check` changes nothing and exits 1 naming each stale part
 * (tests/unit/docs/generatedDocs.test.ts runs the same check).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REGENERATE = 'node scripts/genDocs.mjs';

const code = (s) => `\`${s}\``;
const cell = (s) => String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The option table: one row per entry of OPTIONS, in its order. */
export function renderOptions(options) {
  const rows = options.map((o) => {
    const def = o.default !== undefined ? code(o.default) : o.defaultHelp ?? 'unset';
    const kind = o.boolean ? 'boolean' : '';
    return `| ${code(o.flag)} | ${code(o.env)} | ${cell(def)} | ${cell(o.help)}${kind ? ' (boolean)' : ''} |`;
  });
  return ['| Flag | Environment variable | Default | Meaning |', '|---|---|---|---|', ...rows].join('\n');
}

/**
 * The Hasura variables `--hasura-compat` reads where the plain rule (`SVC_GRAPHQL_X` ← `HASURA_GRAPHQL_X`)
 * does not hold: another name, another unit, or none.
 */
export function renderHasuraNames(options, hasuraEnvNames) {
  const rows = [];
  for (const o of options) {
    if (!o.env.startsWith('SVC_GRAPHQL_')) continue;
    const plain = `HASURA_GRAPHQL_${o.env.slice('SVC_GRAPHQL_'.length)}`;
    const names = hasuraEnvNames(o);
    if (names.length === 1 && names[0] === plain && !o.hasuraParse) continue;
    const read = names.length === 0 ? 'none' : names.map(code).join(', then ');
    const note = o.hasuraParse ? 'in seconds (Hasura\'s unit)' : names.length === 0 ? 'the engine\'s own switch' : '';
    rows.push(`| ${code(o.flag)} | ${read} | ${note} |`);
  }
  return ['| Flag | Hasura variable read | Note |', '|---|---|---|', ...rows].join('\n');
}

/** The endpoint table: one row per route. */
export function renderRoutes(routes, wsPaths) {
  const rows = routes.map((r) => `| ${r.method} | ${code(r.path)} | ${r.api ? code(r.api) : '—'} |`);
  for (const p of wsPaths) rows.push(`| WebSocket | ${code(p)} | ${code('graphql')} |`);
  return ['| Method | Path | Needs in `--enabled-apis` |', '|---|---|---|', ...rows].join('\n');
}

/**
 * What each operation takes (Hasura v1.3's argument shapes); every operation of the registry must
 * have an entry, and every entry must be an operation, or the docs are not generated.
 */
export const ARGS = {
  run_sql: '`sql`, `cascade?`, `check_metadata_consistency?`, `read_only?`',
  track_table: '`table` (`{schema, name}` or a name), `is_enum?`; version 2: `{table, configuration: {custom_root_fields, custom_column_names}}`',
  add_existing_table_or_view: "Hasura v1's older name for `track_table` (same arguments)",
  untrack_table: '`table`, `cascade?`',
  set_table_is_enum: '`table`, `is_enum`',
  set_table_custom_fields: '`table`, `custom_root_fields?`, `custom_column_names?`',
  create_object_relationship: '`table`, `name`, `using: {foreign_key_constraint_on} | {manual_configuration}`, `comment?`',
  create_array_relationship: '`table`, `name`, `using: {foreign_key_constraint_on: {table, column}} | {manual_configuration}`, `comment?`',
  drop_relationship: '`table`, `relationship`, `cascade?`',
  rename_relationship: '`table`, `name`, `new_name`',
  set_relationship_comment: '`table`, `name`, `comment?`',
  create_insert_permission: '`table`, `role`, `permission: {check, set?, columns?, backend_only?}`, `comment?`',
  create_select_permission: '`table`, `role`, `permission: {columns, filter, limit?, allow_aggregations?, computed_fields?}`, `comment?`',
  create_update_permission: '`table`, `role`, `permission: {columns, filter, check?, set?}`, `comment?`',
  create_delete_permission: '`table`, `role`, `permission: {filter}`, `comment?`',
  drop_insert_permission: '`table`, `role`',
  drop_select_permission: '`table`, `role`',
  drop_update_permission: '`table`, `role`',
  drop_delete_permission: '`table`, `role`',
  set_permission_comment: '`table`, `role`, `type` (insert, select, update, delete), `comment?`',
  track_function: '`function` (`{schema, name}` or a name); version 2: `{function, configuration: {session_argument?, exposed_as?}}`',
  untrack_function: '`function`',
  create_function_permission: "`function`, `role` (Hasura v2; the role must be able to select the function's table: docs/roles.md#function-permissions)",
  drop_function_permission: '`function`, `role`',
  add_computed_field: '`table`, `name`, `definition: {function, table_argument?, session_argument?}`, `comment?`',
  drop_computed_field: '`table`, `name`, `cascade?`',
  export_metadata: '`{}`',
  replace_metadata: 'a metadata document (version 1, 2 or 3), or `{metadata, allow_inconsistent_metadata?}`',
  reload_metadata: '`{}`',
  clear_metadata: '`{}`',
  get_inconsistent_metadata: '`{}`',
  drop_inconsistent_metadata: '`{}`',
  create_query_collection: '`name`, `definition: {queries: [{name, query}]}`, `comment?`',
  drop_query_collection: '`collection`, `cascade`',
  add_query_to_collection: '`collection_name`, `query_name`, `query`',
  drop_query_from_collection: '`collection_name`, `query_name`',
  add_collection_to_allowlist: '`collection`',
  drop_collection_from_allowlist: '`collection`',
  set_api_limits: '`disabled?`, `rate_limit?`, `depth_limit?`, `node_limit?`, `time_limit?`, `batch_limit?` (each `{global?, per_role?}`; a rate limit `{max_reqs_per_min, unique_params?}`)',
  remove_api_limits: '`{}`',
  create_rest_endpoint: '`name`, `url` (segments, `:var` captures a variable), `methods` (GET, POST, PUT, PATCH, DELETE), `definition: {query: {collection_name, query_name}}`, `comment?`',
  drop_rest_endpoint: '`name`',
  set_graphql_schema_introspection_options: '`disabled_for_roles` (a list of roles whose query root has no `__schema`/`__type`)',
  add_inherited_role: '`role_name`, `role_set` (roles whose permissions it combines; see docs/roles.md)',
  drop_inherited_role: '`role_name`',
  update_source: '`name`, `configuration?` (another source: `connection_info`, `read_replicas`; `default`: `read_replicas`), `customization?` (`{naming_convention, root_fields: {namespace, prefix, suffix}, type_names: {prefix, suffix}}`; replaced whole) ([sources](sources.md))',
  add_source: '`name`, `configuration` (`{connection_info: {database_url, pool_settings?, isolation_level?, use_prepared_statements?}}`), `customization?`, `replace_configuration?`; an unreachable database is refused ([sources](sources.md))',
  drop_source: '`name`, `cascade?`',
  rename_source: '`name`, `new_name`',
  create_event_trigger: '`name`, `table`, `webhook` or `webhook_from_env`, `insert?`/`update?`/`delete?` (`{columns}`), `enable_manual?`, `retry_conf?`, `headers?`, `request_transform?`, `replace?`',
  delete_event_trigger: '`name`',
  redeliver_event: '`event_id`',
  invoke_event_trigger: '`name`, `payload`',
  set_custom_types: '`input_objects?`, `objects?`, `scalars?`, `enums?`',
  create_action: '`name`, `definition: {kind?, arguments, output_type, handler, headers?, forward_client_headers?, timeout?, request_transform?, response_transform?}`, `comment?`',
  update_action: '`name`, `definition`, `comment?`',
  drop_action: '`name`, `clear_data?`',
  create_action_permission: '`action`, `role`, `comment?`',
  drop_action_permission: '`action`, `role`',
  add_remote_schema: '`name`, `definition: {url | url_from_env, headers?, forward_client_headers?, timeout_seconds?, customization?}`, `comment?`',
  update_remote_schema: 'as `add_remote_schema`; the remote must exist, its permissions stay',
  remove_remote_schema: '`name`',
  reload_remote_schema: '`name`',
  add_remote_schema_permissions: '`remote_schema`, `role`, `definition: {schema}` (SDL, `@preset`), `comment`?',
  drop_remote_schema_permissions: '`remote_schema`, `role`',
  create_remote_relationship: '`name`, `table`, `source?`, and `definition: {to_source: {source, table, relationship_type: object\\|array, field_mapping}}` (a table of any source, [sources.md](sources.md#joins-across-databases)), `definition: {to_remote_schema: {lhs_fields, remote_schema, remote_field}}`, or the older `hasura_fields`, `remote_schema`, `remote_field` (beside `name` or in `definition`)',
  update_remote_relationship: 'as `create_remote_relationship`; the relationship must exist',
  delete_remote_relationship: '`name`, `table`, `source?`',
  create_remote_schema_remote_relationship: '`remote_schema`, `type_name` (the remote\'s object type), `name`, `definition: {to_source: {source, table, relationship_type: object\\|array, field_mapping}}` (the type\'s fields → the table\'s columns; [sources.md](sources.md#from-a-remote-schemas-types-to-tables))',
  update_remote_schema_remote_relationship: 'as `create_remote_schema_remote_relationship`; the relationship must exist',
  delete_remote_schema_remote_relationship: '`remote_schema`, `type_name`, `name`',
  create_cron_trigger: '`name`, `webhook`, `schedule`, `payload?`, `headers?`, `retry_conf?`, `include_in_metadata`, `comment?`, `replace?`',
  delete_cron_trigger: '`name`',
  create_scheduled_event: '`webhook`, `schedule_at`, `payload?`, `headers?`, `retry_conf?`, `comment?`',
  track_logical_model: '`name`, `fields`, `description?`, `select_permissions?` ([native-queries.md](native-queries.md))',
  untrack_logical_model: '`name`',
  create_logical_model_select_permission: '`name`, `role`, `permission` (`columns`, `filter`), `comment?`',
  drop_logical_model_select_permission: '`name`, `role`',
  track_native_query: '`root_field_name`, `code`, `arguments`, `returns`, `type?`, `description?`, `object_relationships?`, `array_relationships?`',
  untrack_native_query: '`root_field_name`',
  get_logical_model: '`source?`',
  get_native_query: '`source?`',
  test_webhook_transform: '`webhook_url`, `body`, `env?`, `session_variables?`, `request_transform` (answers `{method, webhook_url, body, headers}`; see docs/transforms.md)',
  select: '`table`, `columns`, `where?`, `order_by?`, `limit?`, `offset?`',
  insert: '`table`, `objects`, `returning?`, `on_conflict?`',
  update: '`table`, `where`, `$set?`/`$inc?`/`$append?`/`$prepend?`/`$delete_key?`/`$delete_elem?`/`$delete_at_path?`, `returning?`',
  delete: '`table`, `where`, `returning?`',
  count: '`table`, `where?`, `distinct?`',
};

/** The /v1/metadata names of `op`: asked of the translation the endpoint runs. */
function metadataNames(op, translate) {
  const accepts = (type) => {
    try {
      const out = translate({ type, args: {} });
      return out?.type === op || (op === 'set_table_custom_fields' && out?.type === op);
    } catch {
      return false;
    }
  };
  const names = [`pg_${op}`, op].filter(accepts);
  if (op === 'set_table_custom_fields' && accepts('pg_set_table_customization')) names.unshift('pg_set_table_customization');
  return names.length ? names.map(code).join(', ') : 'not served';
}

/** The operation table: every type of the closed registry, in its order. */
export function renderOperations(opTypes, operations, translate) {
  const known = new Set(opTypes);
  const extra = Object.keys(ARGS).filter((k) => !known.has(k));
  const missing = opTypes.filter((t) => !(t in ARGS));
  if (extra.length || missing.length) {
    throw new Error(`scripts/genDocs.mjs ARGS is out of step with the registry: missing ${missing.join(', ') || '-'}; not operations ${extra.join(', ') || '-'}`);
  }
  const rows = opTypes.map((t) => {
    const h = operations[t];
    return `| ${code(t)} | ${metadataNames(t, translate)} | ${h.adminOnly ? 'admin' : 'any role'} | ${h.mutates ? 'yes' : 'no'} | ${ARGS[t]} |`;
  });
  return ['| `/v1/query` type | `/v1/metadata` type | Who | Changes metadata or schema | Arguments (`?`: optional) |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** Loads the definitions from src/ (through tsx) and renders every generated part. */
export async function generatedParts() {
  const { tsImport } = await import('tsx/esm/api');
  const { OPTIONS, hasuraEnvNames } = await tsImport('../src/config/index.ts', import.meta.url);
  const { ROUTES, WS_ROUTES } = await tsImport('../src/server/routes.ts', import.meta.url);
  const { OP_TYPES, OPERATIONS, translateV2Metadata } = await tsImport('../src/metadataApi/index.ts', import.meta.url);
  return [
    { file: 'docs/configuration.md', name: 'options', text: renderOptions(OPTIONS) },
    { file: 'docs/configuration.md', name: 'hasura-names', text: renderHasuraNames(OPTIONS, hasuraEnvNames) },
    { file: 'docs/api.md', name: 'endpoints', text: renderRoutes(ROUTES, Object.keys(WS_ROUTES)) },
    { file: 'docs/api.md', name: 'operations', text: renderOperations(OP_TYPES, OPERATIONS, translateV2Metadata) },
  ];
}

/** `doc` with the part `name` replaced by `text`; throws when the markers are missing. */
export function fillPart(doc, name, text, file) {
  const begin = `<!-- generated: ${name} (${REGENERATE}) -->`;
  const end = `<!-- end generated: ${name} -->`;
  const i = doc.indexOf(begin);
  const j = doc.indexOf(end);
  if (i < 0 || j < i) throw new Error(`${file}: markers "${begin}" … "${end}" not found`);
  return `${doc.slice(0, i + begin.length)}\n${text}\n${doc.slice(j)}`;
}

/** Files whose generated parts differ from the definitions (after writing them, unless `check`). */
export async function syncDocs({ check = false, dir = root } = {}) {
  const parts = await generatedParts();
  const stale = [];
  for (const file of [...new Set(parts.map((p) => p.file))]) {
    const path = join(dir, file);
    const before = readFileSync(path, 'utf8');
    let after = before;
    for (const p of parts.filter((q) => q.file === file)) after = fillPart(after, p.name, p.text, file);
    if (after !== before) {
      stale.push(file);
      if (!check) writeFileSync(path, after);
    }
  }
  return stale;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const check = process.argv.includes('--check');
  const stale = await syncDocs({ check });
  if (check && stale.length) {
    console.error(`out of date: ${stale.join(', ')}; run: ${REGENERATE}`);
    process.exit(1);
  }
  console.log(stale.length ? `${check ? 'stale' : 'wrote'}: ${stale.join(', ')}` : 'generated docs are up to date');
}
