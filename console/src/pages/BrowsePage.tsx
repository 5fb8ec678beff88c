/**
 * Browse a tracked table: rows a page at a time with a filter (column, operator, value) and a sort,
 * read through the v1 DML `select` / `count`; insert a row, edit or delete a row by its primary key.
 * Values typed in the forms are converted by the column's type (numbers, booleans, JSON; empty → NULL).
 */
import { useState } from 'react';
import { lit, runSql, sourceQuery } from '../api';
import { dataHref, permissionsHref, useSource } from '../sources';
import { DataTable, ErrorBox, Section, TextField, useAction, useLoad } from '../components';

interface Col {
  name: string;
  type: string;
  hasDefault: boolean;
}

const OPS = ['_eq', '_neq', '_gt', '_gte', '_lt', '_lte', '_like', '_ilike', '_is_null'];
const NUMERIC = /^(smallint|integer|bigint|numeric|real|double precision|decimal)$/;

function convert(c: Col, text: string): unknown {
  if (text === '') return null;
  if (NUMERIC.test(c.type)) return Number(text);
  if (c.type === 'boolean') return text === 'true' || text === 't';
  if (c.type === 'json' || c.type === 'jsonb') return JSON.parse(text);
  return text;
}
const show = (v: unknown): string | null => (v === null || v === undefined ? null : typeof v === 'object' ? JSON.stringify(v) : String(v));

async function columnsOf(source: string, schema: string, table: string): Promise<{ cols: Col[]; pk: string[] }> {
  const [cols, pk] = await Promise.all([
    runSql(`SELECT column_name, data_type, column_default IS NOT NULL OR is_identity = 'YES' FROM information_schema.columns WHERE table_schema = ${lit(schema)} AND table_name = ${lit(table)} ORDER BY ordinal_position`, { readOnly: true, source }),
    runSql(`SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indisprimary AND i.indrelid = (quote_ident(${lit(schema)}) || '.' || quote_ident(${lit(table)}))::regclass`, { readOnly: true, source }),
  ]);
  return { cols: cols.rows.map((r) => ({ name: r[0]!, type: r[1]!, hasDefault: r[2] === 't' })), pk: pk.rows.map((r) => r[0]!) };
}

function RowForm({ cols, initial, onSubmit, onCancel, submitLabel }: { cols: Col[]; initial?: Record<string, unknown>; onSubmit: (row: Record<string, unknown>) => Promise<void>; onCancel: () => void; submitLabel: string }) {
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(cols.map((c) => [c.name, initial ? (show(initial[c.name]) ?? '') : ''])));
  const act = useAction();
  return (
    <form
      aria-label={submitLabel}
      onSubmit={(e) => {
        e.preventDefault();
        void act.run(async () => {
          const row: Record<string, unknown> = {};
          for (const c of cols) {
            const changed = initial ? values[c.name] !== (show(initial[c.name]) ?? '') : values[c.name] !== '';
            if (changed || (!initial && !c.hasDefault && values[c.name] !== '')) row[c.name] = convert(c, values[c.name]);
          }
          await onSubmit(row);
        });
      }}
    >
      <div className="row">
        {cols.map((c) => (
          <TextField key={c.name} label={`${c.name} (${c.type})`} value={values[c.name]} placeholder={c.hasDefault && !initial ? 'default' : ''} onChange={(v) => setValues({ ...values, [c.name]: v })} />
        ))}
      </div>
      <ErrorBox error={act.error} />
      <button type="submit" className="primary" disabled={act.busy}>{submitLabel}</button>{' '}
      <button type="button" onClick={onCancel}>Cancel</button>
    </form>
  );
}

export function BrowsePage({ schema, table }: { schema: string; table: string }) {
  const source = useSource();
  const meta = useLoad(() => columnsOf(source, schema, table), [source, schema, table]);
  const query = (type: string, args: unknown) => sourceQuery(source, type, args);
  const [filter, setFilter] = useState({ column: '', op: '_eq', value: '' });
  const [applied, setApplied] = useState<typeof filter | null>(null);
  const [sort, setSort] = useState({ column: '', dir: 'asc' });
  const [limit, setLimit] = useState(20);
  const [offset, setOffset] = useState(0);
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const act = useAction();
  const ref = { schema, name: table };
  const where = applied && applied.column ? { [applied.column]: { [applied.op]: applied.op === '_is_null' ? applied.value !== 'false' : convert(meta.data!.cols.find((c) => c.name === applied.column)!, applied.value) } } : {};
  const rows = useLoad(async () => {
    if (!meta.data) return { rows: [] as any[], count: 0 };
    const order_by = sort.column ? [{ column: sort.column, type: sort.dir }] : meta.data.pk.map((c) => ({ column: c, type: 'asc' }));
    const [r, n] = await Promise.all([
      query('select', { table: ref, columns: ['*'], where, limit, offset, order_by }),
      query('count', { table: ref, where }),
    ]);
    return { rows: r as any[], count: n.count as number };
  }, [meta.data, JSON.stringify(where), sort.column, sort.dir, limit, offset]);
  const cols = meta.data?.cols ?? [];
  const pkWhere = (row: any) => Object.fromEntries((meta.data!.pk.length ? meta.data!.pk : cols.map((c) => c.name)).map((k) => [k, { _eq: row[k] }]));
  const count = rows.data?.count ?? 0;
  return (
    <div>
      <h1>{schema}.{table}{source !== 'default' ? <>{' '}<span className="tag">{source}</span></> : null}</h1>
      <p><a href={dataHref(source)}>← all tables</a> · <a href={permissionsHref(source, schema, table)}>permissions</a></p>
      <ErrorBox error={meta.error ?? rows.error} />
      <Section title="Filter and sort">
        <form className="row" aria-label="Filter" onSubmit={(e) => { e.preventDefault(); setOffset(0); setApplied({ ...filter }); }}>
          <label className="field">Column<select value={filter.column} onChange={(e) => setFilter({ ...filter, column: e.target.value })}><option value="">(none)</option>{cols.map((c) => <option key={c.name}>{c.name}</option>)}</select></label>
          <label className="field">Operator<select value={filter.op} onChange={(e) => setFilter({ ...filter, op: e.target.value })}>{OPS.map((o) => <option key={o}>{o}</option>)}</select></label>
          <TextField label="Value" value={filter.value} onChange={(v) => setFilter({ ...filter, value: v })} />
          <label className="field">Sort by<select value={sort.column} onChange={(e) => setSort({ ...sort, column: e.target.value })}><option value="">(primary key)</option>{cols.map((c) => <option key={c.name}>{c.name}</option>)}</select></label>
          <label className="field">Direction<select value={sort.dir} onChange={(e) => setSort({ ...sort, dir: e.target.value })}><option value="asc">ascending</option><option value="desc">descending</option></select></label>
          <div className="field"><button type="submit" className="primary">Apply filter</button></div>
          <div className="field"><button type="button" onClick={() => { setApplied(null); setFilter({ column: '', op: '_eq', value: '' }); }}>Clear</button></div>
        </form>
      </Section>
      <Section
        title={`Rows (${count})`}
        actions={<button type="button" onClick={() => setEditing('new')}>Insert row</button>}
      >
        {editing === 'new' ? (
          <RowForm cols={cols} submitLabel="Save new row" onCancel={() => setEditing(null)} onSubmit={async (row) => { await query('insert', { table: ref, objects: [row] }); setEditing(null); rows.reload(); }} />
        ) : null}
        <ErrorBox error={act.error} />
        <DataTable
          columns={cols.map((c) => c.name)}
          rows={(rows.data?.rows ?? []).map((r) => cols.map((c) => show(r[c.name])))}
          actions={(i) => {
            const row = rows.data!.rows[i];
            return (
              <>
                <button type="button" aria-label={`Edit row ${i + 1}`} onClick={() => setEditing(i)}>Edit</button>
                <button type="button" className="danger" aria-label={`Delete row ${i + 1}`} disabled={act.busy} onClick={() => confirm('Delete this row?') && act.run(() => query('delete', { table: ref, where: pkWhere(row) })).then((ok) => ok && rows.reload())}>Delete</button>
              </>
            );
          }}
        />
        {typeof editing === 'number' && rows.data?.rows[editing] ? (
          <RowForm key={editing} cols={cols} initial={rows.data.rows[editing]} submitLabel="Save row" onCancel={() => setEditing(null)} onSubmit={async (row) => {
            if (Object.keys(row).length > 0) await query('update', { table: ref, where: pkWhere(rows.data!.rows[editing as number]), $set: row });
            setEditing(null);
            rows.reload();
          }} />
        ) : null}
        <div className="row">
          <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - limit))}>Previous</button>
          <span className="muted" role="status">rows {count === 0 ? 0 : offset + 1}–{Math.min(offset + limit, count)} of {count}</span>
          <button type="button" disabled={offset + limit >= count} onClick={() => setOffset(offset + limit)}>Next</button>
          <label>Page size <select value={limit} onChange={(e) => { setLimit(Number(e.target.value)); setOffset(0); }}>{[10, 20, 50, 100].map((n) => <option key={n}>{n}</option>)}</select></label>
        </div>
      </Section>
    </div>
  );
}
