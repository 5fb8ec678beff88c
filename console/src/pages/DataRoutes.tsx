/**
 * The Data area's routes, Hasura's: `#/data/<source>` (its tables, views, functions),
 * `#/data/<source>/schema/<schema>`, `#/data/<source>/create-table`, `…/create-view`, `…/erd` (the
 * diagram), per table `#/data/<source>/schema/<schema>/tables/<table>[/<tab>]` with the tabs Browse,
 * Modify, Relationships and GraphQL (enum, custom names, computed fields), and `#/data/manage` (the
 * databases: ManageDatabasesPage). `#/data`, and the older `#/data/<schema>/<table>[/<tab>]` and
 * `#/data/create-table`, are the `default` source's. The source is given to every page below
 * (SourceContext), and the tree of databases is beside them.
 */
import { BrowsePage } from './BrowsePage';
import { CreateTablePage } from './CreateTablePage';
import { CreateViewPage } from './CreateViewPage';
import { DataPage } from './DataPage';
import { ErdPage } from './ErdPage';
import { ManageDatabasesPage } from './ManageDatabasesPage';
import { ModifyTablePage } from './ModifyTablePage';
import { RelationshipsPage } from './RelationshipsPage';
import { TableGraphqlPage } from './TableGraphqlPage';
import { DataTree } from '../schema/DataTree';
import { dataHref, DEFAULT_SOURCE, permissionsHref, SourceContext } from '../sources';
import '../schema/schema.css';

const TABS = [
  { path: '', label: 'Browse' },
  { path: 'modify', label: 'Modify' },
  { path: 'relationships', label: 'Relationships' },
  { path: 'graphql', label: 'GraphQL' },
];

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

function TablePages({ source, schema, table, tab }: { source: string; schema: string; table: string; tab: string }) {
  const key = `${source}/${schema}/${table}`;
  return (
    <div>
      <nav className="tabs" aria-label="table">
        {TABS.map((t) => <a key={t.path} href={dataHref(source, schema, table, t.path)} aria-current={t.path === tab ? 'page' : undefined}>{t.label}</a>)}
        <a href={permissionsHref(source, schema, table)}>Permissions</a>
      </nav>
      {tab === 'modify' ? <ModifyTablePage key={key} schema={schema} table={table} />
        : tab === 'relationships' ? <RelationshipsPage key={key} schema={schema} table={table} />
        : tab === 'graphql' ? <TableGraphqlPage key={key} schema={schema} table={table} />
        : <BrowsePage key={key} schema={schema} table={table} />}
    </div>
  );
}

export function DataRoutes({ rest }: { rest: string[] }) {
  const r = dataRoute(rest);
  if (r.kind === 'manage') return <ManageDatabasesPage />;
  const page = r.kind === 'table' ? <TablePages source={r.source} schema={r.schema} table={r.table} tab={r.tab} />
    : r.kind === 'page' ? r.page === 'create-table' ? <CreateTablePage /> : r.page === 'create-view' ? <CreateViewPage /> : <ErdPage />
    : <DataPage key={`${r.source}/${r.schema ?? ''}`} schema={r.schema} />;
  return (
    <SourceContext.Provider value={r.source}>
      <div className="data-area">
        <DataTree source={r.source} schema={r.kind === 'table' || r.kind === 'source' ? r.schema : undefined} table={r.kind === 'table' ? r.table : undefined} version={rest.join('/')} />
        <div className="data-main">{page}</div>
      </div>
    </SourceContext.Provider>
  );
}
