/**
 * A column as the catalog describes it, and the column definition that brings it back (the down of a
 * column drop). Pure, so the integration tests load it in Node.
 */
import type { ColumnSpec } from '../sqlGen.js';

export interface CatalogColumn {
  name: string;
  /** format_type: `integer`, `character varying(20)`, `numeric(10,2)`. */
  type: string;
  nullable: boolean;
  /** The default expression (pg_get_expr), or null. */
  default: string | null;
  identity: '' | 'a' | 'd';
  comment: string | null;
}

const SERIALS: Record<string, string> = { integer: 'serial', bigint: 'bigserial', smallint: 'smallserial' };

/**
 * A catalog column as a column definition (for the down of a column drop). A serial column's
 * sequence goes with the column: it comes back as `serial`, with a sequence of its own.
 */
export function specOf(c: CatalogColumn): ColumnSpec {
  const serial = c.default !== null && /^nextval\(/.test(c.default) && SERIALS[c.type];
  return {
    name: c.name,
    type: serial || c.type,
    nullable: c.nullable,
    default: c.default !== null && !c.identity && !serial ? { kind: 'expression', sql: c.default } : undefined,
    identity: c.identity === 'a' ? 'always' : c.identity === 'd' ? 'by default' : undefined,
    comment: c.comment ?? undefined,
  };
}
