/**
 * The Data area's routes: `#/data` (tables, views, functions), `#/data/create-table`,
 * `#/data/create-view`, `#/data/erd` (the diagram), and per table `#/data/<schema>/<table>[/<tab>]`
 * with the tabs Browse, Modify, Relationships and GraphQL (enum, custom names, computed fields).
 */
import { BrowsePage } from './BrowsePage';
import { CreateTablePage } from './CreateTablePage';
import { CreateViewPage } from './CreateViewPage';
import { DataPage } from './DataPage';
import { ErdPage } from './ErdPage';
import { ModifyTablePage } from './ModifyTablePage';
import { RelationshipsPage } from './RelationshipsPage';
import { TableGraphqlPage } from './TableGraphqlPage';
import '../schema/schema.css';

const TABS = [
  { path: '', label: 'Browse' },
  { path: 'modify', label: 'Modify' },
  { path: 'relationships', label: 'Relationships' },
  { path: 'graphql', label: 'GraphQL' },
];

/** A route part as typed; a malformed %-escape is kept as it is rather than thrown. */
function decode(p: string): string {
  try {
    return decodeURIComponent(p);
  } catch {
    return p;
  }
}

export function DataRoutes({ rest }: { rest: string[] }) {
  const [a, b, tab = ''] = rest.map(decode);
  if (rest.length === 1 && a === 'create-table') return <CreateTablePage />;
  if (rest.length === 1 && a === 'create-view') return <CreateViewPage />;
  if (rest.length === 1 && a === 'erd') return <ErdPage />;
  if (rest.length < 2) return <DataPage />;
  const base = `#/data/${encodeURIComponent(a)}/${encodeURIComponent(b)}`;
  return (
    <div>
      <nav className="tabs" aria-label="table">
        {TABS.map((t) => <a key={t.path} href={t.path ? `${base}/${t.path}` : base} aria-current={t.path === tab ? 'page' : undefined}>{t.label}</a>)}
        <a href={`#/permissions/${encodeURIComponent(a)}/${encodeURIComponent(b)}`}>Permissions</a>
      </nav>
      {tab === 'modify' ? <ModifyTablePage key={base} schema={a} table={b} />
        : tab === 'relationships' ? <RelationshipsPage key={base} schema={a} table={b} />
        : tab === 'graphql' ? <TableGraphqlPage key={base} schema={a} table={b} />
        : <BrowsePage key={base} schema={a} table={b} />}
    </div>
  );
}
