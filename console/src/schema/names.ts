/**
 * Table names and foreign keys as the pure schema modules (relationshipSuggestions, erdLayout) see
 * them, without importing the browser-side api.ts (so that the unit tests load them in Node).
 */
export interface TableRef {
  schema: string;
  name: string;
}

export const tableKey = (t: TableRef): string => `${t.schema}.${t.name}`;

/** A metadata table name (`"author"` or `{schema, name}`) as a TableRef. */
export const refOf = (t: unknown): TableRef => (typeof t === 'string' ? { schema: 'public', name: t } : { schema: (t as TableRef).schema ?? 'public', name: (t as TableRef).name });

export interface ForeignKey {
  constraint: string;
  from: TableRef;
  to: TableRef;
  columns: string[];
  refColumns: string[];
}
