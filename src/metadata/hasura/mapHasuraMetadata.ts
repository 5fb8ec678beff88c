/**
 * Hasura metadata as this engine takes it: a v1.3/v2 export (version 2), a v2 export (version 3,
 * `sources`) flattened to the default Postgres source, and brand words mapped (`X-Hasura-*`
 * session variables in permissions, presets and headers → `x-svc-*`). Every mapping and every
 * part this engine does not support is reported as a note, never dropped silently.
 */
type J = Record<string, any>;

export interface ImportResult {
  metadata: J;
  /** What was changed (brand mapping, flattening). */
  mapped: string[];
  /** What could not be kept, and was left out. */
  unsupported: string[];
}

/** Version-3 top-level sections with no equivalent here. */
const V3_ONLY = ['network', 'metrics_config', 'backend_configs', 'opentelemetry'];

const HASURA_VAR = /^x-hasura-/i;

/**
 * Replaces x-hasura-* in string values and object keys below `v`, recording each path. The path is kept as
 * a stack of segments and written out only for what is mapped (a metadata export of thousands of tables has
 * a million values and a handful of mappings).
 */
type PathStack = [root: string, ...segments: Array<string | number>];

function pathText(path: PathStack): string {
  let out = path[0];
  for (let i = 1; i < path.length; i++) out += typeof path[i] === 'number' ? `[${path[i]}]` : `.${path[i]}`;
  return out;
}

function mapBrand(v: unknown, path: PathStack, mapped: string[]): unknown {
  if (typeof v === 'string') {
    if (HASURA_VAR.test(v)) {
      const to = 'x-svc-' + v.slice('x-hasura-'.length).toLowerCase();
      mapped.push(`${pathText(path)}: ${v} → ${to}`);
      return to;
    }
    return v;
  }
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) {
      path.push(i);
      out[i] = mapBrand(v[i], path, mapped);
      path.pop();
    }
    return out;
  }
  if (v === null || typeof v !== 'object') return v;
  const out: J = {};
  for (const k of Object.keys(v)) {
    let key = k;
    if (HASURA_VAR.test(k)) {
      key = 'x-svc-' + k.slice('x-hasura-'.length).toLowerCase();
      mapped.push(`${pathText(path)}.${k}: key → ${key}`);
    }
    path.push(k);
    out[key] = mapBrand((v as J)[k], path, mapped);
    path.pop();
  }
  return out;
}

/** `X-Hasura-*` → `x-svc-*` anywhere in `v` (a metadata operation of a Hasura migration, say), with each change listed. */
export function mapHasuraBrand(v: unknown, path = '$'): { value: unknown; mapped: string[] } {
  const mapped: string[] = [];
  return { value: mapBrand(v, [path], mapped), mapped };
}

/** Flattens a version-3 export to version 2 on its `default` Postgres source. */
function flattenV3(md: J, mapped: string[], unsupported: string[]): J {
  const out: J = { version: 2 };
  const sources = (md.sources ?? []) as J[];
  const isPg = (s: J) => ['postgres', 'pg'].includes(s.kind ?? 'postgres');
  // `default`, else the first Postgres source, is the engine's own database; other Postgres sources keep their connections.
  const pg = sources.find((s) => s.name === 'default' && isPg(s)) ?? sources.find(isPg);
  const others: J[] = [];
  for (const s of sources) {
    if (s === pg) continue;
    if (!isPg(s)) {
      unsupported.push(`source "${s.name}" (${s.kind}): only Postgres sources are served; left out`);
      continue;
    }
    mapped.push(`sources["${s.name}"] → a Postgres source beside "default" (its own connection)`);
    const keep: J = { name: s.name, kind: 'postgres', configuration: s.configuration, tables: s.tables ?? [] };
    if (s.functions?.length) keep.functions = s.functions;
    if (s.customization !== undefined && s.customization !== null) keep.customization = s.customization;
    for (const k of Object.keys(s)) {
      if (!['name', 'kind', 'tables', 'functions', 'configuration', 'customization'].includes(k)) unsupported.push(`sources["${s.name}"].${k}: left out`);
    }
    others.push(keep);
  }
  if (pg) {
    mapped.push(`sources["${pg.name}"] → tables/functions of the engine's database (of its configuration only read_replicas is used)`);
    out.tables = pg.tables ?? [];
    if (pg.functions?.length) out.functions = pg.functions;
    if (pg.logical_models?.length) out.logical_models = pg.logical_models;
    if (pg.native_queries?.length) out.native_queries = pg.native_queries;
    if (pg.customization !== undefined && pg.customization !== null) out.source_customization = pg.customization;
    if (pg.configuration?.read_replicas?.length) out.read_replicas = pg.configuration.read_replicas;
    for (const k of Object.keys(pg)) {
      if (!['name', 'kind', 'tables', 'functions', 'configuration', 'customization', 'logical_models', 'native_queries'].includes(k)) unsupported.push(`sources["${pg.name}"].${k}: left out`);
    }
  } else out.tables = [];
  if (others.length > 0) out.sources = others;
  for (const [k, v] of Object.entries(md)) {
    if (k === 'version' || k === 'sources') continue;
    if (V3_ONLY.includes(k)) unsupported.push(`${k}: not supported; left out`);
    else out[k] = v;
  }
  return out;
}

/**
 * `kind: ""` on a query action (what Hasura's CLI v2 writes: a query has no kind) → `synchronous`,
 * the kind the engine gives it, so that an export after apply compares equal to the directory.
 */
function queryActionKinds(md: J, mapped: string[]): J {
  if (!Array.isArray(md.actions)) return md;
  const actions = (md.actions as J[]).map((a, i) => {
    const d = a?.definition;
    if (d?.kind !== '' || (d.type ?? 'mutation') !== 'query') return a;
    mapped.push(`$.actions[${i}].definition.kind: "" (query action) → synchronous`);
    return { ...a, definition: { ...d, kind: 'synchronous' } };
  });
  return { ...md, actions };
}

/** Normalises any accepted metadata (v2, v3) for replace_metadata. */
export function importHasuraMetadata(input: J): ImportResult {
  const mapped: string[] = [];
  const unsupported: string[] = [];
  let md = input;
  if (md.version === 3 || Array.isArray(md.sources)) md = flattenV3(md, mapped, unsupported);
  else if (md.version === undefined || md.version === 1) {
    md = { ...md, version: 2 };
  }
  md = mapBrand(md, ['$'], mapped) as J;
  md = queryActionKinds(md, mapped);
  md = presetSessionVariables(md, mapped);
  return { metadata: md, mapped, unsupported };
}

/**
 * `@preset(value: "X-Hasura-User-Id")` in the SDL of remote schema permissions → `"x-svc-user-id"`
 * (the SDL is one string, so mapBrand does not see the session variables inside it).
 */
function presetSessionVariables(md: J, mapped: string[]): J {
  if (!Array.isArray(md.remote_schemas)) return md;
  const remoteSchemas = md.remote_schemas.map((rs: J, i: number) => {
    if (rs === null || typeof rs !== 'object' || !Array.isArray(rs.permissions)) return rs;
    const permissions = rs.permissions.map((p: J, j: number) => {
      const schema = p?.definition?.schema;
      if (typeof schema !== 'string' || !/"x-hasura-/i.test(schema)) return p;
      const to = schema.replace(/"(x-hasura-[^"]*)"/gi, (_m: string, v: string) => `"x-svc-${v.slice('x-hasura-'.length).toLowerCase()}"`);
      mapped.push(`$.remote_schemas[${i}].permissions[${j}].definition.schema: @preset session variables x-hasura-* → x-svc-*`);
      return { ...p, definition: { ...p.definition, schema: to } };
    });
    return { ...rs, permissions };
  });
  return { ...md, remote_schemas: remoteSchemas };
}

/** The v3 (`sources`) shape of a version-2 metadata document, as Hasura v2's export_metadata answers. */
export function toV3(md: J): J {
  const { version: _v, tables, functions, source_customization: customization, read_replicas: replicas, logical_models: models, native_queries: nqs, ...rest } = md;
  const source: J = { name: 'default', kind: 'postgres', tables: tables ?? [] };
  if (functions?.length) source.functions = functions;
  if (models?.length) source.logical_models = models;
  if (nqs?.length) source.native_queries = nqs;
  source.configuration = { connection_info: { database_url: { from_env: 'SVC_GRAPHQL_DATABASE_URL' }, isolation_level: 'read-committed', use_prepared_statements: true } };
  if (replicas?.length) source.configuration.read_replicas = replicas;
  if (customization !== undefined) source.customization = customization;
  return { version: 3, sources: [source], ...rest };
}
