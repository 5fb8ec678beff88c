/**
 * The one way SQL text is made. A fragment is a list of parts: raw text written by the engine,
 * quoted identifiers, and parameters. Values never enter the text: each becomes `$n`, and its
 * source is recorded so a compiled statement can be cached and re-run with new variables.
 *
 *   const q = sql`SELECT ${sql.ident('name')} FROM ${sql.table(t)} WHERE id = ${sql.param(sql.variable('id'), 'int4')}`;
 *   compile(q) → { text: 'SELECT "name" FROM "public"."author" WHERE id = $1::"int4"',
 *                  params: [{ source: {kind:'variable', name:'id'}, pgType: 'int4' }] }
 *
 * Raw text only enters through `sql.unsafeRaw`, whose name says so.
 */
import type { QualifiedName } from "../core/index.js";
import type { ValueSource } from "../ir/index.js";

/**
 * Where a parameter's value comes from at execution time: one value (see ir/value.ts), or one
 * Postgres array made of several values, one per element (`params.ts` writes its literal text;
 * `element` is the type each element is written for, as an `IrValue.pgType`).
 */
export type ParamSource = ValueSource | ArrayParamSource;

/** A parameter holding one array: element i is `items[i]`'s value (a multi-row insert's column). */
export interface ArrayParamSource {
  kind: 'array';
  items: readonly ValueSource[];
  element: string;
  /**
   * When item i is the variable `name` at path `[...prefix, i, ...suffix]` (one field of every
   * object of a list variable: `$objects`' `author`), that list, so the values are read by one walk
   * over it instead of one path walk per item (the same values).
   */
  column?: ListColumn;
}

/** One field (`suffix`) of every item of the list at `prefix` in variable `name`. */
export interface ListColumn {
  name: string;
  prefix: ReadonlyArray<string | number>;
  suffix: ReadonlyArray<string | number>;
}

export interface Param {
  source: ParamSource;
  /** The cast written after `$n` (udt name, e.g. `int4`, `jsonb`, `_text`); json/jsonb values are JSON-encoded. */
  pgType?: string;
}

type Part =
  | { t: 'raw'; text: string }
  | { t: 'ident'; names: string[] }
  | { t: 'param'; param: Param };

const FRAG = Symbol('sql.fragment');
export interface SqlFragment {
  readonly [FRAG]: true;
  readonly parts: readonly Part[];
}

function frag(parts: Part[]): SqlFragment {
  return { [FRAG]: true, parts };
}

export const isFragment = (x: unknown): x is SqlFragment =>
  typeof x === 'object' && x !== null && (x as Record<symbol, unknown>)[FRAG] === true;

/** Tagged template: interpolations must be fragments (use sql.value / sql.ident to wrap anything else). */
export function sql(strings: TemplateStringsArray, ...values: SqlFragment[]): SqlFragment {
  const parts: Part[] = [];
  strings.forEach((s, i) => {
    if (s) parts.push({ t: 'raw', text: s });
    if (i < values.length) {
      const v = values[i];
      if (!isFragment(v)) throw new TypeError(`sql: interpolation ${i} is not a fragment; wrap it with sql.value() or sql.ident()`);
      parts.push(...v.parts);
    }
  });
  return frag(parts);
}

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;
const typeRe = /^[A-Za-z_][A-Za-z0-9_ ]*(\[\])*$/;

sql.ident = (...names: string[]): SqlFragment => frag([{ t: 'ident', names }]);
sql.table = (q: QualifiedName): SqlFragment => frag([{ t: 'ident', names: [q.schema, q.name] }]);
/** A bound parameter with a value known now. */
sql.value = (value: unknown, pgType?: string): SqlFragment => frag([{ t: 'param', param: { source: { kind: 'value', value }, pgType } }]);
/** A bound parameter from any source, cast to `pgType` when given: `$n::"pgType"`. */
sql.param = (source: ParamSource, pgType?: string): SqlFragment => frag([{ t: 'param', param: { source, pgType } }]);
sql.variable = (name: string, path?: ReadonlyArray<string | number>): ParamSource => ({ kind: 'variable', name, path });
sql.session = (name: string): ParamSource => ({ kind: 'session', name: name.toLowerCase() });
/** A type name for casts: `int4` → `"int4"`, `_text`, `public.complex` via schema. */
sql.type = (name: string, schema?: string): SqlFragment => {
  if (!schema && !typeRe.test(name)) throw new TypeError(`sql.type: bad type name ${name}`);
  return frag([{ t: 'ident', names: schema ? [schema, name] : [name] }]);
};
/** A type written as a parameter's cast writes it (`int4[]` → `"int4"[]`, `s.t` → `"s"."t"`): for `expr::type`. */
sql.castType = (pgType: string): SqlFragment => frag([{ t: 'raw', text: castText(pgType) }]);
/** An integer literal written into the text (LIMIT/OFFSET: a literal keeps the generic plan). */
sql.int = (n: number): SqlFragment => {
  if (!Number.isSafeInteger(n)) throw new TypeError(`sql.int: not an integer: ${n}`);
  return frag([{ t: 'raw', text: String(n) }]);
};
/** A string literal written into the text, escaped (for JSON keys in json_build_object, etc.). */
sql.literal = (s: string): SqlFragment => frag([{ t: 'raw', text: `'${s.replace(/'/g, "''")}'` }]);
sql.join = (items: readonly SqlFragment[], separator = ', '): SqlFragment => {
  const parts: Part[] = [];
  items.forEach((f, i) => {
    if (i > 0 && separator) parts.push({ t: 'raw', text: separator });
    parts.push(...f.parts);
  });
  return frag(parts);
};
/** Raw SQL text. Only for text the engine itself wrote (run_sql passes user SQL through it on purpose). */
sql.unsafeRaw = (text: string): SqlFragment => frag([{ t: 'raw', text }]);
sql.empty = frag([]);

export interface CompiledSql {
  text: string;
  params: Param[];
}

/**
 * Turns a fragment into text + parameter list. Identical variable/session sources share one `$n`,
 * and so does one literal (or array) parameter written twice (a fragment repeated, such as a DISTINCT ON
 * expression that must match its ORDER BY expression exactly).
 */
export function compile(f: SqlFragment): CompiledSql {
  let text = '';
  const params: Param[] = [];
  const shared = new Map<string, number>();
  const sameParam = new Map<Param, number>();
  for (const p of f.parts) {
    if (p.t === 'raw') text += p.text;
    else if (p.t === 'ident') text += p.names.map(quoteIdent).join('.');
    else {
      const { source, pgType } = p.param;
      const key = source.kind === 'value' || source.kind === 'array' ? undefined : JSON.stringify([source, pgType ?? '']);
      let idx = key !== undefined ? shared.get(key) : sameParam.get(p.param);
      if (idx === undefined) {
        params.push(p.param);
        idx = params.length;
        if (key !== undefined) shared.set(key, idx);
        else sameParam.set(p.param, idx);
      }
      text += `$${idx}`;
      if (pgType) text += `::${castText(pgType)}`;
    }
  }
  return { text, params };
}

function castText(pgType: string): string {
  const m = /^(.*?)((\[\])*)$/.exec(pgType)!;
  const base = m[1];
  const dot = base.indexOf('.');
  const name = dot > 0 ? `${quoteIdent(base.slice(0, dot))}.${quoteIdent(base.slice(dot + 1))}` : quoteIdent(base);
  return name + m[2];
}
