/**
 * The fields of one column (create table, add column, edit column): name, type (with the common types
 * offered), nullable, unique, default (a value, or an SQL expression such as `now()`), identity,
 * comment; and their conversion to sqlGen's ColumnSpec.
 */
import type { ColumnDefault, ColumnSpec } from '../sqlGen';

export const COMMON_TYPES = [
  'serial', 'bigserial', 'integer', 'bigint', 'smallint', 'numeric', 'real', 'double precision', 'text', 'varchar(255)', 'boolean',
  'uuid', 'date', 'time', 'timestamptz', 'timestamp', 'interval', 'jsonb', 'json', 'bytea', 'text[]', 'integer[]', 'citext',
];

export interface ColumnDraft {
  name: string;
  type: string;
  nullable: boolean;
  unique: boolean;
  default: string;
  /** The default is an SQL expression rather than a value. */
  defaultIsSql: boolean;
  identity: '' | 'always' | 'by default';
  comment: string;
}

export const emptyColumn = (): ColumnDraft => ({ name: '', type: 'text', nullable: true, unique: false, default: '', defaultIsSql: false, identity: '', comment: '' });

/** A default typed as `now()` or `gen_random_uuid()` is a function call: an expression, as Hasura's console reads it. */
const looksLikeCall = (s: string): boolean => /^[A-Za-z_][\w.]*\(.*\)$/.test(s.trim());

export function defaultOf(text: string, isSql: boolean): ColumnDefault | undefined {
  if (text === '') return undefined;
  return isSql || looksLikeCall(text) ? { kind: 'expression', sql: text } : { kind: 'value', value: text };
}

export function columnSpec(d: ColumnDraft): ColumnSpec {
  return {
    name: d.name.trim(),
    type: d.type,
    nullable: d.nullable,
    unique: d.unique,
    default: defaultOf(d.default, d.defaultIsSql),
    identity: d.identity || undefined,
    comment: d.comment || undefined,
  };
}

export function TypeList() {
  return <datalist id="svc-column-types">{COMMON_TYPES.map((t) => <option key={t} value={t} />)}</datalist>;
}

/** One row of column fields; `label` prefixes every field's accessible name ("Column 2 name"). */
export function ColumnFields({ label, value, onChange, onRemove }: { label: string; value: ColumnDraft; onChange: (d: ColumnDraft) => void; onRemove?: () => void }) {
  const set = (p: Partial<ColumnDraft>) => onChange({ ...value, ...p });
  return (
    <div className="col-grid" role="group" aria-label={label}>
      <label>name<input aria-label={`${label} name`} value={value.name} onChange={(e) => set({ name: e.target.value })} /></label>
      <label>type<input aria-label={`${label} type`} list="svc-column-types" value={value.type} onChange={(e) => set({ type: e.target.value })} /></label>
      <label className="inline-check"><input type="checkbox" aria-label={`${label} nullable`} checked={value.nullable} onChange={(e) => set({ nullable: e.target.checked })} />nullable</label>
      <label className="inline-check"><input type="checkbox" aria-label={`${label} unique`} checked={value.unique} onChange={(e) => set({ unique: e.target.checked })} />unique</label>
      <label>default<input aria-label={`${label} default`} value={value.default} placeholder="none" disabled={value.identity !== ''} onChange={(e) => set({ default: e.target.value })} /></label>
      <label className="inline-check" title="the default is an SQL expression, not a value"><input type="checkbox" aria-label={`${label} default is SQL`} checked={value.defaultIsSql} onChange={(e) => set({ defaultIsSql: e.target.checked })} />SQL</label>
      <label>identity
        <select aria-label={`${label} identity`} value={value.identity} onChange={(e) => set({ identity: e.target.value as ColumnDraft['identity'], default: e.target.value ? '' : value.default })}>
          <option value="">no</option><option value="by default">by default</option><option value="always">always</option>
        </select>
      </label>
      {onRemove ? <button type="button" aria-label={`Remove ${label}`} onClick={onRemove}>✕</button> : <span />}
      <label style={{ gridColumn: '1 / span 7' }}>comment<input aria-label={`${label} comment`} value={value.comment} onChange={(e) => set({ comment: e.target.value })} /></label>
    </div>
  );
}

export const splitNames = (s: string): string[] => s.split(',').map((x) => x.trim()).filter(Boolean);
