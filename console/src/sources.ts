/**
 * The databases (Hasura v2's sources) the console works on. `default` is the engine's own database;
 * the others are in the exported metadata's `sources` (name, kind, configuration, customization,
 * tables, functions). The Data area, Permissions and Events work on one source at a time: its name is
 * in the address (`#/data/<source>/schema/<schema>/tables/<table>/<tab>`, as Hasura's console has
 * it) and in every request they send (`source` beside `type` and `args`, `run_sql`'s `args.source`).
 */
import { createContext, useContext } from 'react';

export const DEFAULT_SOURCE = 'default';

export interface SourceInfo {
  name: string;
  kind: string;
  /** Hasura's `configuration` (connection_info, read_replicas); undefined for `default` (the engine's own database). */
  configuration?: any;
  customization?: any;
  tables: any[];
  functions: any[];
}

/** Every source of an exported (version 2) document, `default` first. */
export function sourcesOf(md: any): SourceInfo[] {
  const own: SourceInfo = {
    name: DEFAULT_SOURCE,
    kind: 'postgres',
    tables: md?.tables ?? [],
    functions: md?.functions ?? [],
    ...(md?.source_customization ? { customization: md.source_customization } : {}),
    ...(Array.isArray(md?.read_replicas) && md.read_replicas.length > 0 ? { configuration: { read_replicas: md.read_replicas } } : {}),
  };
  const others: SourceInfo[] = (md?.sources ?? []).map((s: any) => ({ ...s, kind: s.kind ?? 'postgres', tables: s.tables ?? [], functions: s.functions ?? [] }));
  return [own, ...others];
}

export const sourceOf = (md: any, name: string): SourceInfo | undefined => sourcesOf(md).find((s) => s.name === name);

/**
 * The exported document as the pages written for one database read it: `tables` and `functions` are
 * those of `source` (empty when it does not exist); everything global (roles, actions…) as it is.
 */
export function sourceView(md: any, source: string): any {
  const s = sourceOf(md, source);
  return { ...md, tables: s?.tables ?? [], functions: s?.functions ?? [] };
}

/** The source the pages below work on (DataRoutes provides it from the address). */
export const SourceContext = createContext<string>(DEFAULT_SOURCE);
export const useSource = (): string => useContext(SourceContext);

interface Op {
  type: string;
  args: unknown;
  source?: string;
}

/** The operation on `source` (a `bulk`'s operations each): `run_sql` takes it in its args, the others beside them. */
export function onSource<T extends Op>(op: T, source: string): T {
  if (op.type === 'bulk' && Array.isArray(op.args)) return { ...op, args: (op.args as Op[]).map((o) => onSource(o, source)) };
  if (op.type === 'run_sql') return { ...op, args: { ...(op.args as object), source } };
  return { ...op, source };
}

const enc = encodeURIComponent;

/**
 * The Data area's addresses, Hasura's: `#/data/<source>`, `#/data/<source>/schema/<schema>`,
 * `#/data/<source>/schema/<schema>/tables/<table>[/<tab>]`.
 */
export function dataHref(source: string, schema?: string, table?: string, tab?: string): string {
  let h = `#/data/${enc(source)}`;
  if (schema !== undefined) h += `/schema/${enc(schema)}`;
  if (schema !== undefined && table !== undefined) h += `/tables/${enc(table)}`;
  if (table !== undefined && tab) h += `/${tab}`;
  return h;
}

/** Pages of a source that are not a table's. */
const SOURCE_PAGES = new Set(['create-table', 'create-view', 'erd']);

/** A route part as typed; a malformed %-escape is kept as it is rather than thrown. */
function decode(p: string): string {
  try {
    return decodeURIComponent(p);
  } catch {
    return p;
  }
}

export type DataRoute =
  | { kind: 'manage' }
  | { kind: 'source'; source: string; schema?: string }
  | { kind: 'page'; source: string; page: string }
  | { kind: 'table'; source: string; schema: string; table: string; tab: string };

/** What the parts of the address after `#/data/` name. */
export function dataRoute(rest: string[]): DataRoute {
  const p = rest.map(decode);
  if (p.length === 0) return { kind: 'source', source: DEFAULT_SOURCE };
  if (p.length === 1 && p[0] === 'manage') return { kind: 'manage' };
  if (p.length === 1 && SOURCE_PAGES.has(p[0])) return { kind: 'page', source: DEFAULT_SOURCE, page: p[0] };
  if (p.length === 1) return { kind: 'source', source: p[0] };
  if (p[1] === 'schema') {
    if (p.length >= 5 && p[3] === 'tables') return { kind: 'table', source: p[0], schema: p[2], table: p[4], tab: p[5] === 'browse' ? '' : (p[5] ?? '') };
    return { kind: 'source', source: p[0], ...(p[2] !== undefined ? { schema: p[2] } : {}) };
  }
  if (p.length === 2 && SOURCE_PAGES.has(p[1])) return { kind: 'page', source: p[0], page: p[1] };
  // The older address of a table of `default`: `#/data/<schema>/<table>[/<tab>]`.
  return { kind: 'table', source: DEFAULT_SOURCE, schema: p[0], table: p[1], tab: p[2] === 'browse' ? '' : (p[2] ?? '') };
}

/** The Permissions page of a table of `source`: `#/permissions/<source>/<schema>/<table>`. */
export const permissionsHref = (source: string, schema: string, table: string): string => `#/permissions/${enc(source)}/${enc(schema)}/${enc(table)}`;

/** What a source's connection is, in a few words: a URL (host and database only), an env var, parameters. */
export function connectionKind(s: SourceInfo): string {
  if (s.name === DEFAULT_SOURCE) return "the engine's own database";
  const url = s.configuration?.connection_info?.database_url;
  if (typeof url === 'string') {
    try {
      const u = new URL(url);
      return `URL ${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`;
    } catch {
      return 'URL';
    }
  }
  if (url && typeof url === 'object' && typeof url.from_env === 'string') return `env ${url.from_env}`;
  if (url && typeof url === 'object' && url.connection_parameters) {
    const p = url.connection_parameters;
    return `parameters ${p.host ?? ''}${p.port ? `:${p.port}` : ''}/${p.database ?? ''}`;
  }
  return 'unknown';
}
