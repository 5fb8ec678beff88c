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
import { dataHref, dataRoute, permissionsHref, SourceContext } from '../sources';
import '../schema/schema.css';

const TABS = [
  { path: '', label: 'Browse' },
  { path: 'modify', label: 'Modify' },
  { path: 'relationships', label: 'Relationships' },
  { path: 'graphql', label: 'GraphQL' },
];

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
