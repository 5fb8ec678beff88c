/**
 * Data, on one source (the database chosen in the tree or the Database list; its name is in the
 * address and in every request): every schema's tables and views, tracked or not (track / untrack in one click), and the
 * foreign keys between tracked tables offered as relationships, each tracked with one click (an
 * object relationship on the referencing table, an array relationship on the referenced one); the
 * functions, tracked or not; links to create a table or a view and to the diagram.
 */
import { useState } from 'react';
import { bulk, exportMetadata, refOf, runSql, sourceQuery, tableKey, type TableRef } from '../api';
import { DataTable, ErrorBox, Section, useAction, useLoad } from '../components';
import { FunctionsSection } from '../schema/FunctionsSection';
import { usePaged } from '../paging';
import { Spinner } from '../spinner';
import { dataHref, onSource, permissionsHref, sourcesOf, sourceView, useSource } from '../sources';

interface Fk {
  from: TableRef;
  to: TableRef;
  columns: string[];
  refColumns: string[];
  constraint: string;
}

const TABLES_SQL = `SELECT table_schema, table_name, table_type FROM information_schema.tables
 WHERE table_schema NOT IN ('pg_catalog', 'information_schema', 'hdb_catalog') AND table_schema NOT LIKE 'pg\\_%'
 ORDER BY table_schema, table_name`;

const FKS_SQL = `SELECT c.conname, sn.nspname, s.relname, tn.nspname, t.relname,
   (SELECT json_agg(a.attname ORDER BY k.i) FROM unnest(c.conkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n)::text,
   (SELECT json_agg(a.attname ORDER BY k.i) FROM unnest(c.confkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n)::text
 FROM pg_constraint c JOIN pg_class s ON s.oid = c.conrelid JOIN pg_namespace sn ON sn.oid = s.relnamespace
 JOIN pg_class t ON t.oid = c.confrelid JOIN pg_namespace tn ON tn.oid = t.relnamespace WHERE c.contype = 'f' ORDER BY 1`;

const plural = (n: string): string => (n.endsWith('s') ? `${n}_list` : `${n}s`);

async function load(source: string) {
  const [tables, full, fks] = await Promise.all([runSql(TABLES_SQL, { readOnly: true, source }), exportMetadata(), runSql(FKS_SQL, { readOnly: true, source })]);
  const md = sourceView(full, source);
  const tracked = new Map<string, any>((md.tables ?? []).map((t: any) => [tableKey(refOf(t.table)), t]));
  const all: Fk[] = fks.rows.map((r) => ({ constraint: r[0]!, from: { schema: r[1]!, name: r[2]! }, to: { schema: r[3]!, name: r[4]! }, columns: JSON.parse(r[5]!), refColumns: JSON.parse(r[6]!) }));
  // Suggestions: FKs between tracked tables not yet used by a relationship.
  const uses = (t: any, pred: (using: any) => boolean, kind: 'object_relationships' | 'array_relationships') => (t?.[kind] ?? []).some((r: any) => pred(r.using));
  const suggestions: Array<{ kind: 'object' | 'array'; table: TableRef; name: string; using: unknown; label: string }> = [];
  for (const fk of all) {
    const from = tracked.get(tableKey(fk.from));
    const to = tracked.get(tableKey(fk.to));
    if (!from || !to || fk.columns.length !== 1) continue;
    const col = fk.columns[0];
    if (!uses(from, (u) => u.foreign_key_constraint_on === col, 'object_relationships')) {
      const name = col.endsWith('_id') && col.length > 3 ? col.slice(0, -3) : fk.to.name;
      suggestions.push({ kind: 'object', table: fk.from, name, using: { foreign_key_constraint_on: col }, label: `${tableKey(fk.from)}.${name} → ${tableKey(fk.to)}` });
    }
    if (!uses(to, (u) => u.foreign_key_constraint_on?.column === col && refOf(u.foreign_key_constraint_on?.table).name === fk.from.name, 'array_relationships')) {
      const name = plural(fk.from.name);
      suggestions.push({ kind: 'array', table: fk.to, name, using: { foreign_key_constraint_on: { table: fk.from, column: col } }, label: `${tableKey(fk.to)}.${name} → [${tableKey(fk.from)}]` });
    }
  }
  return { tables: tables.rows.map((r) => ({ schema: r[0]!, name: r[1]!, type: r[2]! })), tracked, suggestions, sources: sourcesOf(full).map((s) => s.name) };
}

export function DataPage({ schema: initialSchema }: { schema?: string }) {
  const source = useSource();
  const { data, error, loading, reload } = useLoad(() => load(source), [source]);
  const act = useAction();
  const query = (type: string, args: unknown) => sourceQuery(source, type, args);
  const [schema, setSchema] = useState<string>(initialSchema ?? '');
  const schemas = [...new Set((data?.tables ?? []).map((t) => t.schema))];
  const shown = (data?.tables ?? []).filter((t) => !schema || t.schema === schema);
  const page = usePaged(shown, 'Tables and views');
  const suggestions = usePaged(data?.suggestions ?? [], 'Suggested relationships');
  const run = (fn: () => Promise<unknown>) => act.run(fn).then((ok) => ok && reload());
  return (
    <div>
      <h1>Data</h1>
      <p className="row">
        <label>
          Database{' '}
          <select value={source} onChange={(e) => { window.location.hash = dataHref(e.target.value); }} aria-label="Database">
            {(data?.sources ?? [source]).map((s) => <option key={s}>{s}</option>)}
          </select>
        </label>
        <a href={`${dataHref(source)}/create-table`}>Create a table</a>
        <a href={`${dataHref(source)}/create-view`}>Create a view</a>
        <a href={`${dataHref(source)}/erd`}>Diagram</a>
        <a href="#/data/manage">Manage databases</a>
      </p>
      {loading ? <Spinner /> : null}
      <ErrorBox error={error} />
      <ErrorBox error={act.error} />
      <Section
        title="Tables and views"
        actions={
          <label>
            Schema{' '}
            <select value={schema} onChange={(e) => setSchema(e.target.value)} aria-label="Schema">
              <option value="">all</option>
              {schemas.map((s) => <option key={s}>{s}</option>)}
            </select>
          </label>
        }
      >
        <DataTable
          columns={['schema', 'name', 'kind', 'tracked']}
          rows={page.shown.map((t) => {
            const isTracked = data!.tracked.has(`${t.schema}.${t.name}`);
            return [t.schema, isTracked ? <a href={dataHref(source, t.schema, t.name)}>{t.name}</a> : t.name, t.type === 'VIEW' ? 'view' : 'table', isTracked ? <span className="ok">tracked</span> : <span className="muted">no</span>];
          })}
          actions={(i) => {
            const t = page.shown[i];
            const isTracked = data!.tracked.has(`${t.schema}.${t.name}`);
            const modify = <a href={dataHref(source, t.schema, t.name, 'modify')}>modify</a>;
            return isTracked ? (
              <>
                {modify}{' '}
                <a href={permissionsHref(source, t.schema, t.name)}>permissions</a>{' '}
                <button type="button" className="danger" disabled={act.busy} onClick={() => confirm(`Untrack ${t.schema}.${t.name}?`) && run(() => query('untrack_table', { table: { schema: t.schema, name: t.name }, cascade: true }))}>Untrack</button>
              </>
            ) : (
              <>{modify}{' '}<button type="button" disabled={act.busy} aria-label={`Track ${t.schema}.${t.name}`} onClick={() => run(() => query('track_table', { table: { schema: t.schema, name: t.name } }))}>Track</button></>
            );
          }}
        />
        {page.pager}
        {data && shown.some((t) => !data.tracked.has(`${t.schema}.${t.name}`)) ? (
          <button type="button" disabled={act.busy} onClick={() => run(() => bulk(shown.filter((t) => !data.tracked.has(`${t.schema}.${t.name}`)).map((t) => onSource({ type: 'track_table', args: { table: { schema: t.schema, name: t.name } } }, source))))}>Track all</button>
        ) : null}
      </Section>
      <Section title="Suggested relationships (foreign keys between tracked tables)">
        <DataTable
          columns={['relationship', 'kind']}
          rows={suggestions.shown.map((s) => [s.label, s.kind])}
          actions={(i) => {
            const s = suggestions.shown[i];
            return (
              <button type="button" disabled={act.busy} aria-label={`Track relationship ${s.label}`} onClick={() => run(() => query(`create_${s.kind}_relationship`, { table: s.table, name: s.name, using: s.using }))}>Track</button>
            );
          }}
        />
        {suggestions.pager}
      </Section>
      <FunctionsSection />
    </div>
  );
}
