/**
 * The SQL of the Data pages' schema changes, generated here and nowhere else: identifiers are always
 * double-quoted (`"my ""odd"" name"`), values are single-quoted literals, type names and index
 * methods are checked against a pattern; only what the user types as an SQL expression (a default
 * marked as an expression, a check constraint, a view's query) goes in as written: those fields are
 * named `…Sql`, and the form shows the whole statement before it runs.
 *
 * Each change comes with its reverse where one can be derived, so that migrations mode can write a
 * down.sql:
 *
 *   addColumn({schema: 'public', name: 'author'}, {name: 'bio', type: 'text', nullable: true})
 *   → { up: 'ALTER TABLE "public"."author" ADD COLUMN "bio" text;',
 *       down: 'ALTER TABLE "public"."author" DROP COLUMN "bio";' }
 *
 * `down: null` means "not reversible" (dropping a table, retyping a column whose old type is unknown).
 * Pure functions, no DOM: tests/unit/console/sqlGen.test.ts checks the text and
 * tests/integration/consoleSqlGen.test.ts runs each up and down against Postgres.
 */

export interface TableName {
  schema: string;
  name: string;
}

export interface SqlChange {
  up: string;
  /** The reverse, or null when it cannot be derived. */
  down: string | null;
}

export class SqlGenError extends Error {
  constructor(message: string, readonly field?: string) {
    super(message);
  }
}

/** A column default: a value (quoted as a literal) or an SQL expression typed as it is (`now()`). */
export type ColumnDefault = { kind: 'value'; value: string } | { kind: 'expression'; sql: string };

export interface ColumnSpec {
  name: string;
  /** A Postgres type name: `text`, `numeric(10,2)`, `timestamptz`, `serial`, `public.mood`, `int[]`. */
  type: string;
  nullable: boolean;
  default?: ColumnDefault;
  /** GENERATED … AS IDENTITY. */
  identity?: 'always' | 'by default';
  unique?: boolean;
  comment?: string;
}

export const FK_ACTIONS = ['no action', 'restrict', 'cascade', 'set null', 'set default'] as const;
export type FkAction = (typeof FK_ACTIONS)[number];

export type ConstraintSpec =
  | { kind: 'primary key'; name?: string; columns: string[] }
  | { kind: 'unique'; name?: string; columns: string[] }
  | { kind: 'foreign key'; name?: string; columns: string[]; references: TableName; refColumns: string[]; onUpdate?: FkAction; onDelete?: FkAction }
  | { kind: 'check'; name?: string; checkSql: string };

export interface TableSpec extends TableName {
  columns: ColumnSpec[];
  primaryKey: string[];
  /** Each entry is one UNIQUE constraint over those columns. */
  uniques?: string[][];
  foreignKeys?: Array<Extract<ConstraintSpec, { kind: 'foreign key' }>>;
  checks?: Array<Extract<ConstraintSpec, { kind: 'check' }>>;
  comment?: string;
}

export const INDEX_METHODS = ['btree', 'hash', 'gin', 'gist', 'brin', 'spgist'] as const;
export type IndexMethod = (typeof INDEX_METHODS)[number];

export interface IndexSpec {
  table: TableName;
  name: string;
  columns: string[];
  unique?: boolean;
  method?: IndexMethod;
}

/** `"name"` with inner quotes doubled. Empty names and NUL characters are refused. */
export function ident(name: string, field = 'name'): string {
  if (name === '') throw new SqlGenError(`${field} is empty`, field);
  if (name.includes('\0')) throw new SqlGenError(`${field} contains a NUL character`, field);
  if (new TextEncoder().encode(name).length > 63) throw new SqlGenError(`${field} ${JSON.stringify(name)} is longer than Postgres' 63 bytes`, field);
  return `"${name.replace(/"/g, '""')}"`;
}

/** `'text'` with inner quotes doubled (standard_conforming_strings: a backslash is a backslash). */
export function literal(value: string): string {
  if (value.includes('\0')) throw new SqlGenError('a text value cannot contain a NUL character', 'value');
  return `'${value.replace(/'/g, "''")}'`;
}

export const qualified = (t: TableName): string => `${ident(t.schema, 'schema')}.${ident(t.name, 'table name')}`;

const TYPE_WORD = /^[A-Za-z_][A-Za-z0-9_$]*$/;
const MULTI_WORD_TYPES = /^(double precision|character varying|bit varying|timestamp(\s*\(\d+\))?\s+with(out)?\s+time\s+zone|time(\s*\(\d+\))?\s+with(out)?\s+time\s+zone)$/i;

/**
 * A type name as Postgres reads it, checked: a (schema-qualified, possibly quoted) name, an optional
 * modifier `(n)` / `(p, s)`, array brackets. Anything else (a `;`, a comment) is refused.
 */
export function typeName(type: string, field = 'type'): string {
  const t = type.trim().replace(/\s+/g, ' ');
  const m = /^(.*?)((?:\s*\(\s*\d+\s*(?:,\s*\d+\s*)?\))?)((?:\s*\[\s*\d*\s*\])*)$/.exec(t);
  const base = m ? m[1].trim() : '';
  const ok =
    MULTI_WORD_TYPES.test(base) ||
    base.split('.').length <= 2 && base.split('.').every((p) => TYPE_WORD.test(p) || /^"(?:[^"]|"")+"$/.test(p));
  if (!m || !base || !ok) throw new SqlGenError(`${JSON.stringify(type)} is not a type name`, field);
  return t;
}

const cols = (names: string[], field: string): string => {
  if (names.length === 0) throw new SqlGenError(`${field}: choose at least one column`, field);
  return names.map((c) => ident(c, field)).join(', ');
};

const exprSql = (sql: string, field: string): string => {
  const s = sql.trim().replace(/;+\s*$/, '');
  if (s === '') throw new SqlGenError(`${field} is empty`, field);
  return s;
};

function defaultSql(d: ColumnDefault): string {
  return d.kind === 'value' ? literal(d.value) : exprSql(d.sql, 'default');
}

/** The part of a column definition after its name: type, identity, NOT NULL, DEFAULT, UNIQUE. */
function columnDefinition(c: ColumnSpec): string {
  let s = `${ident(c.name, 'column name')} ${typeName(c.type)}`;
  if (c.identity && c.default) throw new SqlGenError(`column ${c.name}: an identity column has no default`, 'default');
  if (c.identity) s += ` GENERATED ${c.identity === 'always' ? 'ALWAYS' : 'BY DEFAULT'} AS IDENTITY`;
  if (!c.nullable) s += ' NOT NULL';
  if (c.default) s += ` DEFAULT ${defaultSql(c.default)}`;
  if (c.unique) s += ' UNIQUE';
  return s;
}

function fkAction(a: FkAction | undefined, field: string): string {
  if (a === undefined) return '';
  if (!FK_ACTIONS.includes(a)) throw new SqlGenError(`${a} is not a foreign-key action`, field);
  return a.toUpperCase();
}

/** The constraint's definition after `CONSTRAINT "name"` (what pg_get_constraintdef gives back). */
function constraintBody(c: ConstraintSpec): string {
  switch (c.kind) {
    case 'primary key':
      return `PRIMARY KEY (${cols(c.columns, 'primary key')})`;
    case 'unique':
      return `UNIQUE (${cols(c.columns, 'unique')})`;
    case 'check':
      return `CHECK (${exprSql(c.checkSql, 'check')})`;
    case 'foreign key': {
      if (c.columns.length !== c.refColumns.length) throw new SqlGenError('a foreign key maps as many columns as it references', 'foreign key');
      let s = `FOREIGN KEY (${cols(c.columns, 'foreign key')}) REFERENCES ${qualified(c.references)} (${cols(c.refColumns, 'references')})`;
      if (c.onUpdate) s += ` ON UPDATE ${fkAction(c.onUpdate, 'on update')}`;
      if (c.onDelete) s += ` ON DELETE ${fkAction(c.onDelete, 'on delete')}`;
      return s;
    }
  }
}

/** Postgres' own default constraint name for this constraint (without its 63-byte truncation). */
export function defaultConstraintName(table: string, c: ConstraintSpec): string {
  switch (c.kind) {
    case 'primary key':
      return `${table}_pkey`;
    case 'unique':
      return `${table}_${c.columns.join('_')}_key`;
    case 'foreign key':
      return `${table}_${c.columns.join('_')}_fkey`;
    case 'check':
      return `${table}_check`;
  }
}

const constraintName = (table: string, c: ConstraintSpec): string => (c.name && c.name.trim() ? c.name.trim() : defaultConstraintName(table, c));

const commentOn = (what: string, text: string | undefined): string => `COMMENT ON ${what} IS ${text === undefined || text === '' ? 'NULL' : literal(text)};`;

export function createTable(t: TableSpec): SqlChange {
  if (t.columns.length === 0) throw new SqlGenError('a table needs at least one column', 'columns');
  const names = new Set<string>();
  for (const c of t.columns) {
    if (names.has(c.name)) throw new SqlGenError(`column ${c.name} is listed twice`, 'columns');
    names.add(c.name);
  }
  const known = (list: string[], field: string) => list.forEach((c) => {
    if (!names.has(c)) throw new SqlGenError(`${field}: ${c} is not a column of the table`, field);
  });
  const parts = t.columns.map(columnDefinition);
  if (t.primaryKey.length > 0) {
    known(t.primaryKey, 'primary key');
    parts.push(`PRIMARY KEY (${cols(t.primaryKey, 'primary key')})`);
  }
  for (const u of t.uniques ?? []) {
    known(u, 'unique');
    parts.push(`UNIQUE (${cols(u, 'unique')})`);
  }
  for (const c of [...(t.foreignKeys ?? []), ...(t.checks ?? [])]) {
    if (c.kind === 'foreign key') known(c.columns, 'foreign key');
    parts.push((c.name?.trim() ? `CONSTRAINT ${ident(c.name.trim(), 'constraint name')} ` : '') + constraintBody(c));
  }
  const lines = [`CREATE TABLE ${qualified(t)} (\n  ${parts.join(',\n  ')}\n);`];
  if (t.comment) lines.push(commentOn(`TABLE ${qualified(t)}`, t.comment));
  for (const c of t.columns) if (c.comment) lines.push(commentOn(`COLUMN ${qualified(t)}.${ident(c.name)}`, c.comment));
  return { up: lines.join('\n'), down: `DROP TABLE ${qualified(t)};` };
}

export function dropTable(t: TableName, opts: { cascade?: boolean } = {}): SqlChange {
  return { up: `DROP TABLE ${qualified(t)}${opts.cascade ? ' CASCADE' : ''};`, down: null };
}

export function renameTable(t: TableName, to: string): SqlChange {
  return {
    up: `ALTER TABLE ${qualified(t)} RENAME TO ${ident(to, 'new name')};`,
    down: `ALTER TABLE ${qualified({ schema: t.schema, name: to })} RENAME TO ${ident(t.name)};`,
  };
}

export function setTableComment(t: TableName, comment: string, previous: string | undefined): SqlChange {
  return { up: commentOn(`TABLE ${qualified(t)}`, comment), down: commentOn(`TABLE ${qualified(t)}`, previous) };
}

export function addColumn(t: TableName, c: ColumnSpec): SqlChange {
  const lines = [`ALTER TABLE ${qualified(t)} ADD COLUMN ${columnDefinition(c)};`];
  if (c.comment) lines.push(commentOn(`COLUMN ${qualified(t)}.${ident(c.name)}`, c.comment));
  return { up: lines.join('\n'), down: `ALTER TABLE ${qualified(t)} DROP COLUMN ${ident(c.name)};` };
}

/**
 * Drops a column; the down adds it back (its values are gone) when its definition is known. A NOT NULL
 * column without a default comes back nullable: the rows it had cannot be given values.
 */
export function dropColumn(t: TableName, column: string, known?: ColumnSpec, opts: { cascade?: boolean } = {}): SqlChange {
  const up = `ALTER TABLE ${qualified(t)} DROP COLUMN ${ident(column, 'column name')}${opts.cascade ? ' CASCADE' : ''};`;
  if (!known) return { up, down: null };
  // A column that generates its values (a default, an identity, a serial) can be NOT NULL again.
  const generates = Boolean(known.default || known.identity || /^(small|big)?serial$/i.test(known.type.trim()));
  const back: ColumnSpec = { ...known, name: column, unique: false, nullable: known.nullable || !generates };
  const down = [`ALTER TABLE ${qualified(t)} ADD COLUMN ${columnDefinition(back)};`];
  if (back.nullable && !known.nullable) down.push(`-- ${column} was NOT NULL; its values are not restored, so it comes back nullable`);
  if (known.comment) down.push(commentOn(`COLUMN ${qualified(t)}.${ident(column)}`, known.comment));
  return { up, down: down.join('\n') };
}

export function renameColumn(t: TableName, from: string, to: string): SqlChange {
  return {
    up: `ALTER TABLE ${qualified(t)} RENAME COLUMN ${ident(from, 'column name')} TO ${ident(to, 'new name')};`,
    down: `ALTER TABLE ${qualified(t)} RENAME COLUMN ${ident(to)} TO ${ident(from)};`,
  };
}

/** Changes a column's type with `USING col::type`; reversible when the old type is known. */
export function retypeColumn(t: TableName, column: string, to: string, from?: string): SqlChange {
  const c = ident(column, 'column name');
  const alter = (type: string) => `ALTER TABLE ${qualified(t)} ALTER COLUMN ${c} TYPE ${typeName(type)} USING ${c}::${typeName(type)};`;
  return { up: alter(to), down: from ? alter(from) : null };
}

export function setNullable(t: TableName, column: string, nullable: boolean): SqlChange {
  const alter = (n: boolean) => `ALTER TABLE ${qualified(t)} ALTER COLUMN ${ident(column, 'column name')} ${n ? 'DROP' : 'SET'} NOT NULL;`;
  return { up: alter(nullable), down: alter(!nullable) };
}

/**
 * Makes a column an identity column, changes how it generates, or makes it a plain column again. The
 * down of removing an identity adds one back (its sequence then starts afresh).
 */
export function setIdentity(t: TableName, column: string, to: ColumnSpec['identity'], from: ColumnSpec['identity']): SqlChange {
  const head = `ALTER TABLE ${qualified(t)} ALTER COLUMN ${ident(column, 'column name')}`;
  const gen = (i: 'always' | 'by default') => (i === 'always' ? 'ALWAYS' : 'BY DEFAULT');
  const step = (a: ColumnSpec['identity'], b: ColumnSpec['identity']): string => {
    if (a === b) throw new SqlGenError('the identity is unchanged', 'identity');
    if (!b) return `${head} DROP IDENTITY;`;
    if (!a) return `${head} ADD GENERATED ${gen(b)} AS IDENTITY;`;
    return `${head} SET GENERATED ${gen(b)};`;
  };
  return { up: step(from, to), down: step(to, from) };
}

/** Sets (or with `undefined` drops) a column's default; `previousSql` is the old default expression from the catalog. */
export function setDefault(t: TableName, column: string, d: ColumnDefault | undefined, previousSql: string | undefined): SqlChange {
  const head = `ALTER TABLE ${qualified(t)} ALTER COLUMN ${ident(column, 'column name')}`;
  return {
    up: d ? `${head} SET DEFAULT ${defaultSql(d)};` : `${head} DROP DEFAULT;`,
    down: previousSql ? `${head} SET DEFAULT ${previousSql};` : `${head} DROP DEFAULT;`,
  };
}

export function setColumnComment(t: TableName, column: string, comment: string, previous: string | undefined): SqlChange {
  const what = `COLUMN ${qualified(t)}.${ident(column, 'column name')}`;
  return { up: commentOn(what, comment), down: commentOn(what, previous) };
}

export function addConstraint(t: TableName, c: ConstraintSpec): SqlChange {
  const name = ident(constraintName(t.name, c), 'constraint name');
  return {
    up: `ALTER TABLE ${qualified(t)} ADD CONSTRAINT ${name} ${constraintBody(c)};`,
    down: `ALTER TABLE ${qualified(t)} DROP CONSTRAINT ${name};`,
  };
}

/** Drops a constraint; `definition` (pg_get_constraintdef) makes it reversible. */
export function dropConstraint(t: TableName, name: string, definition?: string): SqlChange {
  return {
    up: `ALTER TABLE ${qualified(t)} DROP CONSTRAINT ${ident(name, 'constraint name')};`,
    down: definition ? `ALTER TABLE ${qualified(t)} ADD CONSTRAINT ${ident(name)} ${definition};` : null,
  };
}

export function createIndex(i: IndexSpec): SqlChange {
  const method = i.method ?? 'btree';
  if (!INDEX_METHODS.includes(method)) throw new SqlGenError(`${method} is not an index method`, 'method');
  return {
    up: `CREATE ${i.unique ? 'UNIQUE ' : ''}INDEX ${ident(i.name, 'index name')} ON ${qualified(i.table)} USING ${method} (${cols(i.columns, 'index columns')});`,
    down: `DROP INDEX ${ident(i.table.schema, 'schema')}.${ident(i.name)};`,
  };
}

/** Drops an index; `definition` (pg_indexes.indexdef) makes it reversible. */
export function dropIndex(schema: string, name: string, definition?: string): SqlChange {
  return { up: `DROP INDEX ${ident(schema, 'schema')}.${ident(name, 'index name')};`, down: definition ? `${definition.replace(/;\s*$/, '')};` : null };
}

export function createView(v: TableName, querySql: string): SqlChange {
  return { up: `CREATE VIEW ${qualified(v)} AS\n${exprSql(querySql, 'query')};`, down: `DROP VIEW ${qualified(v)};` };
}

/**
 * Replaces a view's query (CREATE OR REPLACE VIEW, as Hasura's console: Postgres accepts new columns
 * at the end, not dropped or retyped ones). `previous` (pg_get_viewdef) makes it reversible; the down
 * drops and recreates the view, since the columns added cannot be taken away by a replace.
 */
export function replaceView(v: TableName, querySql: string, previous?: string): SqlChange {
  return {
    up: `CREATE OR REPLACE VIEW ${qualified(v)} AS\n${exprSql(querySql, 'query')};`,
    down: previous ? `DROP VIEW ${qualified(v)};\nCREATE VIEW ${qualified(v)} AS\n${exprSql(previous, 'query')};` : null,
  };
}

/** Drops a view; `definition` (pg_get_viewdef) makes it reversible. */
export function dropView(v: TableName, definition?: string): SqlChange {
  return { up: `DROP VIEW ${qualified(v)};`, down: definition ? `CREATE VIEW ${qualified(v)} AS\n${exprSql(definition, 'query')};` : null };
}

/** Several changes as one: ups in order, downs in reverse order; not reversible if any part is not. */
export function combine(changes: SqlChange[]): SqlChange {
  const downs = changes.map((c) => c.down).reverse();
  return { up: changes.map((c) => c.up).join('\n'), down: downs.every((d) => d !== null) ? downs.join('\n') : null };
}

/** A migration name in snake case: `create_table_public_author`. */
export function migrationName(...parts: string[]): string {
  const s = parts.join('_').toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return (s || 'console_change').slice(0, 100).replace(/_+$/, '');
}

/** Base64 of the UTF-8 bytes (HTTP header values are Latin-1: the down SQL travels encoded). */
export function base64Utf8(text: string): string {
  let bin = '';
  for (const b of new TextEncoder().encode(text)) bin += String.fromCharCode(b);
  return btoa(bin);
}

/**
 * The headers of a schema change that migrations mode turns into a migration: its name and, when the
 * change is reversible, its down SQL. The engine ignores them.
 */
export function migrationHeaders(name: string, down: string | null): Record<string, string> {
  const h: Record<string, string> = { 'x-svc-migration-name': migrationName(name) };
  if (down !== null) h['x-svc-migration-down'] = base64Utf8(down);
  return h;
}
