/**
 * The boolean-expression builder of the permission editor: a row filter or check edited as a tree
 * of conditions that knows the table — its columns with operators typed by the column's Postgres
 * type, its relationships (a nested builder on the table they lead to), `_and` / `_or` / `_not`,
 * `_exists` on any tracked table, and the session variables the metadata uses (offered as values).
 * It renders straight from the JSON value and gives back a new JSON value on every change, so the
 * raw JSON editor beside it stays in sync both ways. Every control is labelled with its place in the
 * expression (`filter.author.id._eq`).
 */
import { useEffect, useId, useState } from 'react';
import { tableKey, type TableRef } from './api';
import type { Catalog, CatalogColumn, CatalogTable } from './tableCatalog';

type Exp = Record<string, unknown>;

const NUMERIC = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'money', 'oid']);
const STRINGS = new Set(['text', 'varchar', 'bpchar', 'citext', 'name']);
const BASE_OPS = ['_eq', '_neq', '_gt', '_lt', '_gte', '_lte', '_in', '_nin', '_is_null'];
const STRING_OPS = ['_like', '_nlike', '_ilike', '_nilike', '_similar', '_nsimilar'];
const JSONB_OPS = ['_contains', '_contained_in', '_has_key', '_has_keys_any', '_has_keys_all'];
const COLUMN_OPS = ['_ceq', '_cne', '_cgt', '_clt', '_cgte', '_clte'];
const SESSION_RE = /^x-svc-/i;

/** The operators offered for a column of Postgres type `type`. */
export function operatorsFor(type: string): string[] {
  if (type === 'json') return ['_is_null'];
  if (type === 'jsonb') return ['_eq', '_neq', '_in', '_nin', '_is_null', ...JSONB_OPS];
  if (type === 'bool') return ['_eq', '_neq', '_in', '_nin', '_is_null', ...COLUMN_OPS.slice(0, 2)];
  return [...BASE_OPS, ...(STRINGS.has(type) ? STRING_OPS : []), ...COLUMN_OPS];
}

/** A typed value from what was typed: session variables stay strings, numbers and booleans by type. */
export function typedValue(text: string, type: string): unknown {
  const t = text.trim();
  if (SESSION_RE.test(t)) return t;
  // A number when it survives the round trip (big int8 / numeric values stay strings, as Postgres takes them).
  if (NUMERIC.has(type) && /^-?\d+(\.\d+)?$/.test(t) && String(Number(t)) === t) return Number(t);
  if (type === 'bool' && (t === 'true' || t === 'false')) return t === 'true';
  return text;
}

const showValue = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** The value an operator starts with when chosen. */
function defaultFor(op: string, col: CatalogColumn, columns: CatalogColumn[]): unknown {
  if (op === '_is_null') return true;
  if (op === '_in' || op === '_nin' || op === '_has_keys_any' || op === '_has_keys_all') return [];
  if (op === '_contains' || op === '_contained_in') return {};
  if (COLUMN_OPS.includes(op)) return columns.find((c) => c.name !== col.name)?.name ?? col.name;
  return '';
}

interface Ctx {
  catalog: Catalog;
  listId: string;
}

const INVALID = Symbol('invalid');

/** A text input keeping what is typed while the parent keeps the typed JSON value. */
function Input({ label, value, onChange, parse, show = showValue, list }: { label: string; value: unknown; onChange: (v: unknown) => void; parse: (text: string) => unknown; show?: (v: unknown) => string; list?: string }) {
  const [text, setText] = useState(show(value));
  const [bad, setBad] = useState(false);
  const outer = JSON.stringify(value);
  useEffect(() => {
    const mine = parse(text);
    if (mine === INVALID || JSON.stringify(mine) !== outer) {
      setText(show(value));
      setBad(false);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [outer]);
  return (
    <input
      aria-label={label}
      className="bx-value"
      value={text}
      list={list}
      aria-invalid={bad ? true : undefined}
      onChange={(e) => {
        setText(e.target.value);
        const v = parse(e.target.value);
        setBad(v === INVALID);
        if (v !== INVALID) onChange(v);
      }}
    />
  );
}

const listOf = (text: string, type: string): unknown => {
  const t = text.trim();
  if (SESSION_RE.test(t)) return t;
  return t === '' ? [] : t.split(',').map((x) => typedValue(x.trim(), type));
};
const showList = (v: unknown): string => (Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(', ') : showValue(v));
const jsonOf = (text: string): unknown => {
  const t = text.trim();
  if (SESSION_RE.test(t)) return t;
  try {
    return JSON.parse(t);
  } catch {
    return INVALID;
  }
};

function OperatorRow({ ctx, path, col, columns, op, value, onChange, onRemove, ops }: { ctx: Ctx; path: string; col: CatalogColumn; columns: CatalogColumn[]; op: string; value: unknown; onChange: (op: string, v: unknown) => void; onRemove: () => void; ops: string[] }) {
  let input;
  const vLabel = `Value for ${path}.${op}`;
  if (op === '_is_null') {
    input = (
      <select aria-label={vLabel} value={String(value)} onChange={(e) => onChange(op, e.target.value === 'true')}>
        <option value="true">true</option>
        <option value="false">false</option>
      </select>
    );
  } else if (COLUMN_OPS.includes(op)) {
    input = (
      <select aria-label={vLabel} value={String(value)} onChange={(e) => onChange(op, e.target.value)}>
        {columns.map((c) => <option key={c.name} value={c.name}>{c.name}</option>)}
      </select>
    );
  } else if (op === '_in' || op === '_nin' || op === '_has_keys_any' || op === '_has_keys_all') {
    input = <Input label={vLabel} value={value} list={ctx.listId} onChange={(v) => onChange(op, v)} parse={(t) => listOf(t, op.startsWith('_has') ? 'text' : col.type)} show={showList} />;
  } else if (op === '_contains' || op === '_contained_in' || (col.type === 'jsonb' && (op === '_eq' || op === '_neq'))) {
    input = <Input label={vLabel} value={value} list={ctx.listId} onChange={(v) => onChange(op, v)} parse={jsonOf} show={(v) => (typeof v === 'string' ? v : JSON.stringify(v))} />;
  } else {
    input = <Input label={vLabel} value={value} list={ctx.listId} onChange={(v) => onChange(op, v)} parse={(t) => typedValue(t, op === '_has_key' ? 'text' : col.type)} />;
  }
  return (
    <div className="bx-op">
      <select aria-label={`Operator for ${path}`} value={op} onChange={(e) => onChange(e.target.value, defaultFor(e.target.value, col, columns))}>
        {(ops.includes(op) ? ops : [op, ...ops]).map((o) => <option key={o} value={o}>{o}</option>)}
      </select>
      {input}
      <button type="button" className="link" aria-label={`Remove ${path}.${op}`} onClick={onRemove}>✕</button>
    </div>
  );
}

function ColumnExp({ ctx, path, col, columns, value, onChange }: { ctx: Ctx; path: string; col: CatalogColumn; columns: CatalogColumn[]; value: unknown; onChange: (v: unknown) => void }) {
  const ops = operatorsFor(col.type);
  const exp: Exp = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Exp) : { _eq: value };
  const entries = Object.entries(exp);
  const unused = ops.filter((o) => !(o in exp));
  return (
    <div className="bx-ops">
      <span className="tag">{col.type}</span>
      {entries.map(([op, v], i) => (
        <OperatorRow
          key={i}
          ctx={ctx}
          path={path}
          col={col}
          columns={columns}
          op={op}
          value={v}
          ops={ops.filter((o) => o === op || !(o in exp))}
          onChange={(nop, nv) => onChange(Object.fromEntries(entries.map(([o, x], j) => (j === i ? [nop, nv] : [o, x]))))}
          onRemove={() => onChange(Object.fromEntries(entries.filter((_, j) => j !== i)))}
        />
      ))}
      {unused.length > 0 ? (
        <button type="button" className="link" onClick={() => onChange({ ...exp, [unused[0]]: defaultFor(unused[0], col, columns) })}>+ operator</button>
      ) : null}
    </div>
  );
}

function ExistsExp({ ctx, path, value, onChange }: { ctx: Ctx; path: string; value: unknown; onChange: (v: unknown) => void }) {
  const v = (value ?? {}) as { _table?: TableRef; _where?: Exp };
  const tables = [...ctx.catalog.tables.values()];
  const key = v._table ? tableKey({ schema: v._table.schema ?? 'public', name: v._table.name }) : '';
  const target = ctx.catalog.tables.get(key);
  return (
    <div className="bx-nested">
      <label className="bx-inline">table{' '}
        <select aria-label={`Table for ${path}`} value={key} onChange={(e) => onChange({ _table: ctx.catalog.tables.get(e.target.value)!.ref, _where: {} })}>
          {key && !target ? <option value={key}>{key}</option> : null}
          {tables.map((t) => <option key={tableKey(t.ref)} value={tableKey(t.ref)}>{tableKey(t.ref)}</option>)}
        </select>
      </label>
      <ExpObject ctx={ctx} path={`${path}._where`} table={target} value={v._where ?? {}} onChange={(w) => onChange({ ...v, _where: w })} />
    </div>
  );
}

function ExpArray({ ctx, path, table, value, onChange }: { ctx: Ctx; path: string; table: CatalogTable | undefined; value: unknown; onChange: (v: unknown) => void }) {
  const items: Exp[] = Array.isArray(value) ? (value as Exp[]) : [];
  return (
    <div className="bx-nested">
      {items.map((it, i) => (
        <div key={i} className="bx-item">
          <ExpObject ctx={ctx} path={`${path}[${i}]`} table={table} value={it} onChange={(x) => onChange(items.map((y, j) => (j === i ? x : y)))} />
          <button type="button" className="link" aria-label={`Remove ${path}[${i}]`} onClick={() => onChange(items.filter((_, j) => j !== i))}>remove group</button>
        </div>
      ))}
      <button type="button" className="link" onClick={() => onChange([...items, {}])}>+ group</button>
    </div>
  );
}

const LOGICAL = ['_and', '_or', '_not', '_exists'];

function ExpObject({ ctx, path, table, value, onChange }: { ctx: Ctx; path: string; table: CatalogTable | undefined; value: unknown; onChange: (v: Exp) => void }) {
  const exp: Exp = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Exp) : {};
  const entries = Object.entries(exp);
  const columns = table?.columns ?? [];
  const rels = table?.relationships ?? [];
  const set = (k: string, v: unknown) => onChange(Object.fromEntries(entries.map(([x, y]) => (x === k ? [x, v] : [x, y]))));
  const remove = (k: string) => onChange(Object.fromEntries(entries.filter(([x]) => x !== k)));
  const add = (k: string) => {
    if (k === '') return;
    const col = columns.find((c) => c.name === k);
    const init = col ? { _eq: '' } : k === '_and' || k === '_or' ? [{}] : k === '_exists' ? { _table: (table ?? [...ctx.catalog.tables.values()][0])?.ref, _where: {} } : {};
    onChange({ ...exp, [k]: init });
  };
  const free = [...columns.map((c) => c.name), ...rels.map((r) => r.name), ...LOGICAL].filter((k) => !(k in exp));
  return (
    <div className="bx-exp" role="group" aria-label={`Conditions at ${path}`}>
      {entries.length === 0 ? <div className="muted">no condition: every row</div> : null}
      {entries.map(([k, v]) => {
        const col = columns.find((c) => c.name === k);
        const rel = rels.find((r) => r.name === k);
        let body;
        if (col) body = <ColumnExp ctx={ctx} path={`${path}.${k}`} col={col} columns={columns} value={v} onChange={(x) => set(k, x)} />;
        else if (rel) body = <ExpObject ctx={ctx} path={`${path}.${k}`} table={ctx.catalog.tables.get(tableKey(rel.target))} value={v} onChange={(x) => set(k, x)} />;
        else if (k === '_and' || k === '_or') body = <ExpArray ctx={ctx} path={`${path}.${k}`} table={table} value={v} onChange={(x) => set(k, x)} />;
        else if (k === '_not') body = <div className="bx-nested"><ExpObject ctx={ctx} path={`${path}._not`} table={table} value={v} onChange={(x) => set(k, x)} /></div>;
        else if (k === '_exists') body = <ExistsExp ctx={ctx} path={`${path}._exists`} value={v} onChange={(x) => set(k, x)} />;
        else body = <code className="muted">{JSON.stringify(v)} (edit in the JSON)</code>;
        return (
          <div key={k} className="bx-row">
            <span className="bx-key">{k}{rel ? <span className="muted"> → {tableKey(rel.target)} ({rel.kind})</span> : null}</span>
            {body}
            <button type="button" className="link" aria-label={`Remove ${path}.${k}`} onClick={() => remove(k)}>✕</button>
          </div>
        );
      })}
      {free.length > 0 ? (
        <select aria-label={`Add a condition at ${path}`} value="" onChange={(e) => add(e.target.value)}>
          <option value="">+ add condition…</option>
          {columns.filter((c) => free.includes(c.name)).length ? <optgroup label="columns">{columns.filter((c) => free.includes(c.name)).map((c) => <option key={c.name} value={c.name}>{c.name} ({c.type})</option>)}</optgroup> : null}
          {rels.filter((r) => free.includes(r.name)).length ? <optgroup label="relationships">{rels.filter((r) => free.includes(r.name)).map((r) => <option key={r.name} value={r.name}>{r.name} → {tableKey(r.target)}</option>)}</optgroup> : null}
          <optgroup label="logic">{LOGICAL.filter((k) => free.includes(k)).map((k) => <option key={k} value={k}>{k}</option>)}</optgroup>
        </select>
      ) : null}
    </div>
  );
}

/** The builder for one boolean expression of `table`; `name` starts every control's label (`filter`, `check`). */
export function BoolExpBuilder({ catalog, table, name, value, onChange }: { catalog: Catalog; table: TableRef; name: string; value: unknown; onChange: (v: Exp) => void }) {
  const listId = useId();
  return (
    <div className="bx">
      <datalist id={listId}>{catalog.sessionVariables.map((s) => <option key={s} value={s} />)}</datalist>
      <ExpObject ctx={{ catalog, listId }} path={name} table={catalog.tables.get(tableKey(table))} value={value} onChange={onChange} />
    </div>
  );
}
