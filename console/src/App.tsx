/**
 * The console's shell: a left navigation and hash routes (`#/graphiql`, `#/data/<schema>/<table>`,
 * …), so the engine serves one page. Before anything else it checks the admin secret: when the
 * engine answers `access-denied` / 401, a form asks for it (kept in sessionStorage only). The
 * engine's warnings about its setup (config API) are banners above every page.
 */
import { lazy, Suspense, useEffect, useState, type ReactNode } from 'react';
import { adminCheck, adminSecret, exportMetadata, type EngineWarning } from './api';
import { ErrorBox, TextField } from './components';
import { consoleProject } from './project';
import { ActivitySpinner, Spinner } from './spinner';
import { DataRoutes } from './pages/DataRoutes';
import { SqlPage } from './pages/SqlPage';
import { PermissionsPage } from './pages/PermissionsPage';
import { MetadataPage } from './pages/MetadataPage';
import { EventsPage } from './pages/EventsPage';
import { ScheduledPage } from './pages/ScheduledPage';
import { ActionsPage } from './pages/ActionsPage';
import { RemoteSchemasPage } from './pages/RemoteSchemasPage';
import { CollectionsPage } from './pages/CollectionsPage';
import { RestPage } from './pages/RestPage';
import { ApiLimitsPage } from './pages/ApiLimitsPage';

/** Resolves after the next frame is painted: heavy work started then does not hold back the page's first paint. */
const afterPaint = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));

// GraphiQL (most of the console's code) is its own chunk, loaded when its page opens: the other pages
// paint without it, and its page paints its heading and a spinner before GraphiQL builds the schema.
const GraphiqlPage = lazy(() => afterPaint().then(() => import('./pages/GraphiqlPage')).then((m) => ({ default: m.GraphiqlPage })));

interface Route {
  path: string;
  label: string;
  render: (rest: string[]) => ReactNode;
}

export const ROUTES: Route[] = [
  { path: 'graphiql', label: 'GraphiQL', render: () => <GraphiqlPage /> },
  { path: 'data', label: 'Data', render: (rest) => <DataRoutes rest={rest} /> },
  { path: 'sql', label: 'SQL', render: () => <SqlPage /> },
  // `#/permissions/<source>[/<schema>/<table>]` (or a table of `default`: `#/permissions/<schema>/<table>`).
  { path: 'permissions', label: 'Permissions', render: (rest) => {
    const p = rest.map((x) => decodeURIComponent(x));
    if (p.length === 1) return <PermissionsPage key={p[0]} source={p[0]} />;
    return p.length >= 3 ? <PermissionsPage key={p.join('/')} source={p[0]} initial={{ schema: p[1], name: p[2] }} /> : <PermissionsPage initial={p.length === 2 ? { schema: p[0], name: p[1] } : undefined} />;
  } },
  { path: 'events', label: 'Events', render: () => <EventsPage /> },
  { path: 'scheduled', label: 'Scheduled', render: () => <ScheduledPage /> },
  { path: 'actions', label: 'Actions', render: () => <ActionsPage /> },
  { path: 'remote-schemas', label: 'Remote schemas', render: () => <RemoteSchemasPage /> },
  { path: 'collections', label: 'Collections', render: () => <CollectionsPage /> },
  { path: 'rest', label: 'REST', render: () => <RestPage /> },
  { path: 'api-limits', label: 'API limits', render: () => <ApiLimitsPage /> },
  { path: 'metadata', label: 'Metadata', render: () => <MetadataPage /> },
];

function useHash(): string[] {
  const read = () => window.location.hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  const [parts, setParts] = useState(read);
  useEffect(() => {
    const on = () => setParts(read());
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return parts;
}

function Login({ onDone, error }: { onDone: () => void; error: unknown }) {
  const [secret, setSecret] = useState('');
  return (
    <main className="login">
      <h1>svc-graphql-engine console</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          adminSecret.set(secret);
          onDone();
        }}
      >
        <TextField label="Admin secret" type="password" value={secret} onChange={setSecret} />
        <ErrorBox error={error} />
        <button type="submit" className="primary">Enter</button>
      </form>
    </main>
  );
}

export function App() {
  const parts = useHash();
  const [auth, setAuth] = useState<'checking' | 'ok' | 'needed'>('checking');
  const [authError, setAuthError] = useState<unknown>();
  // With nothing tracked yet the GraphQL schema is empty: a newcomer starts on the Data page instead
  // (asked only when the address names no page, so a page's first paint never waits on the export).
  const [empty, setEmpty] = useState<boolean | undefined>(undefined);
  // The engine's warnings about its setup (an engine open to the network without an admin secret).
  const [warnings, setWarnings] = useState<EngineWarning[]>([]);
  const named = ROUTES.some((r) => r.path === parts[0]);
  useEffect(() => {
    if (auth !== 'ok' || named || empty !== undefined) return;
    exportMetadata().then((md) => setEmpty(!(md.tables?.length || md.remote_schemas?.length || md.actions?.length)), () => setEmpty(false));
  }, [auth, named, empty]);
  const check = () => {
    setAuth('checking');
    // The config API: a small admin-only answer (not the whole metadata), with the warnings.
    adminCheck().then(
      (w) => {
        setWarnings(w);
        setAuth('ok');
      },
      (e) => {
        if (adminSecret.get()) setAuthError(e);
        adminSecret.set('');
        setAuth('needed');
      },
    );
  };
  useEffect(check, []);
  if (auth === 'checking') return <p className="pad"><Spinner label="connecting…" /></p>;
  if (auth === 'needed') return <Login onDone={check} error={authError} />;
  const route = ROUTES.find((r) => r.path === parts[0]) ?? (empty ? ROUTES.find((r) => r.path === 'data')! : ROUTES[0]);
  const deciding = !named && empty === undefined;
  return (
    <div className="shell">
      <nav aria-label="console">
        <div className="brand">svc console</div>
        {consoleProject() ? <div className="project-badge" title="svc-graphql-engine console --project: schema changes are written as migrations, metadata changes into the metadata folder">migrations mode · {consoleProject()!.database}</div> : null}
        <ul>
          {ROUTES.map((r) => (
            <li key={r.path}><a href={`#/${r.path}`} aria-current={r === route ? 'page' : undefined}>{r.label}</a></li>
          ))}
        </ul>
        <button type="button" className="link" onClick={() => { adminSecret.set(''); check(); }}>Log out</button>
        <ActivitySpinner />
      </nav>
      <main id="content">
        {warnings.map((w) => (
          <div key={w.code} className="banner" role="alert" data-code={w.code}>{w.message}</div>
        ))}
        {deciding ? <Spinner label="opening…" /> : <Suspense fallback={<div><h1>{route.label}</h1><Spinner label="loading the page…" /></div>}>{route.render(parts.slice(1))}</Suspense>}
      </main>
    </div>
  );
}
