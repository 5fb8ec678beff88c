/**
 * The Data area's tree (Hasura's sidebar): every database (source) → its schemas → their tables,
 * views and functions, tracked ones first-class, untracked ones muted. The tree follows the address:
 * the current source is open, and within it the current schema (else `public`); choosing a source or
 * a schema opens its page. Each source is read with one read-only catalog statement on it; a source
 * that does not answer shows the engine's error in its place while the others are listed.
 */
import { exportMetadata, refOf, tableKey } from '../api';
import { ErrorBox, useLoad } from '../components';
import { dataHref, sourcesOf } from '../sources';
import { functions, relations, type FunctionInfo, type Relation } from './catalog';
import { Spinner } from './ChangeForm';

interface SourceNode {
  name: string;
  tracked: Set<string>;
  trackedFunctions: Set<string>;
  relations?: Relation[];
  functions?: FunctionInfo[];
  error?: unknown;
}

async function loadTree(): Promise<SourceNode[]> {
  const md = await exportMetadata();
  return Promise.all(
    sourcesOf(md).map(async (s) => {
      const node: SourceNode = { name: s.name, tracked: new Set(s.tables.map((t: any) => tableKey(refOf(t.table)))), trackedFunctions: new Set(s.functions.map((f: any) => tableKey(refOf(f.function)))) };
      try {
        [node.relations, node.functions] = await Promise.all([relations(s.name), functions(s.name)]);
      } catch (e) {
        node.error = e;
      }
      return node;
    }),
  );
}

export function DataTree({ source, schema, table, version }: { source: string; schema?: string; table?: string; version: string }) {
  const tree = useLoad(loadTree, [version]);
  return (
    <aside className="data-tree" aria-label="Databases">
      <p className="row"><strong>Databases</strong><a href="#/data/manage">Manage</a></p>
      {tree.loading && !tree.data ? <Spinner label="loading the databases…" /> : null}
      <ErrorBox error={tree.error} />
      <ul role="tree" aria-label="Databases, schemas and tables">
        {(tree.data ?? []).map((s) => {
          const open = s.name === source;
          const schemas = [...new Set([...(s.relations ?? []).map((r) => r.schema), ...(s.functions ?? []).map((f) => f.schema)])].sort();
          const openSchema = schema ?? (schemas.includes('public') ? 'public' : schemas[0]);
          return (
            <li key={s.name} role="none">
              <a role="treeitem" aria-expanded={open} aria-label={`database ${s.name}`} aria-current={open && schema === undefined && table === undefined ? 'page' : undefined} href={dataHref(s.name)} className="tree-source">{s.name}</a>
              {open ? (
                <ul role="group">
                  {s.error ? <li role="none"><ErrorBox error={s.error} /></li> : null}
                  {schemas.map((sc) => {
                    const shown = sc === openSchema;
                    return (
                      <li key={sc} role="none">
                        <a role="treeitem" aria-expanded={shown} aria-label={`schema ${sc} of ${s.name}`} href={dataHref(s.name, sc)} aria-current={shown && schema === sc && table === undefined ? 'page' : undefined}>{sc}</a>
                        {shown ? (
                          <ul role="group">
                            {(s.relations ?? []).filter((r) => r.schema === sc).map((r) => {
                              const tracked = s.tracked.has(tableKey(r));
                              return (
                                <li key={r.name} role="none">
                                  <a role="treeitem" className={tracked ? undefined : 'muted'} aria-label={`${r.kind} ${s.name}.${sc}.${r.name}${tracked ? '' : ' (not tracked)'}`} aria-current={r.name === table ? 'page' : undefined} href={tracked ? dataHref(s.name, sc, r.name) : dataHref(s.name, sc, r.name, 'modify')}>
                                    {r.kind === 'view' ? '◇ ' : '▦ '}{r.name}
                                  </a>
                                </li>
                              );
                            })}
                            {(s.functions ?? []).filter((f) => f.schema === sc).map((f) => (
                              <li key={`fn ${f.name}(${f.args})`} role="none">
                                <a role="treeitem" className={s.trackedFunctions.has(tableKey(f)) ? undefined : 'muted'} aria-label={`function ${s.name}.${sc}.${f.name}`} href={dataHref(s.name, sc)}>ƒ {f.name}</a>
                              </li>
                            ))}
                          </ul>
                        ) : null}
                      </li>
                    );
                  })}
                </ul>
              ) : null}
            </li>
          );
        })}
      </ul>
    </aside>
  );
}
