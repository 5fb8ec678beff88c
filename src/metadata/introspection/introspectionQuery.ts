/**
 * THE introspection query: one statement, one JSON document describing every user relation
 * (tables, views, materialized views, foreign and partitioned tables) with columns, keys and
 * comments, and every user function. System schemas and the engine's own `hdb_catalog` are left out.
 * Requires PostgreSQL 11+ (`pg_proc.prokind`).
 */

/**
 * Functions of a stored expression tree (`pg_node_tree` as text: defaults, generated columns, CHECK
 * and domain constraints) that could read the session: any outside pg_catalog, and the built-ins
 * that read settings or run SQL text.
 */
const SESSION_READING_CALL = (tree: string) => `EXISTS (
          SELECT 1 FROM regexp_matches(${tree}, ':(?:func|opfunc|hashfunc)id (\\d+)', 'g') AS m(id)
          JOIN pg_catalog.pg_proc fp ON fp.oid = m.id[1]::oid
          JOIN pg_catalog.pg_namespace fn ON fn.oid = fp.pronamespace
          WHERE fn.nspname <> 'pg_catalog' OR fp.proname IN ('current_setting', 'set_config') OR fp.proname LIKE '%xml%')`;

/**
 * The relations a write to which could run something that reads the session variables
 * (`set_config('svc.user', …)`), each catalog read in one pass: those with inheritance children,
 * with triggers (the engine's own change-counter triggers aside: they read no setting), with a
 * foreign key of another table that cascades into them, or with a default, generated column, CHECK
 * or domain constraint calling a function that could read it. For a query's `WITH session_readers AS (…)`.
 */
export const SESSION_READERS = sessionReaders();

/** SESSION_READERS, among the relations `only` names (a condition on a relation oid column), or all. */
function sessionReaders(only: (oid: string) => string = () => 'true'): string {
  return `SELECT i.inhparent AS oid FROM pg_catalog.pg_inherits i WHERE ${only('i.inhparent')}
  UNION SELECT tg.tgrelid FROM pg_catalog.pg_trigger tg
    JOIN pg_catalog.pg_proc tp ON tp.oid = tg.tgfoid
    JOIN pg_catalog.pg_namespace tn ON tn.oid = tp.pronamespace
    WHERE NOT tg.tgisinternal AND NOT (tn.nspname = 'hdb_catalog' AND tp.proname IN ('svc_live_change', 'svc_live_rows')) AND ${only('tg.tgrelid')}
  UNION SELECT fk.confrelid FROM pg_catalog.pg_constraint fk
    WHERE fk.contype = 'f' AND (fk.confdeltype NOT IN ('a', 'r') OR fk.confupdtype NOT IN ('a', 'r')) AND ${only('fk.confrelid')}
  UNION SELECT d.adrelid FROM pg_catalog.pg_attrdef d WHERE ${only('d.adrelid')} AND ${SESSION_READING_CALL('d.adbin::text')}
  UNION SELECT ck.conrelid FROM pg_catalog.pg_constraint ck WHERE ck.contype = 'c' AND ${only('ck.conrelid')} AND ${SESSION_READING_CALL('ck.conbin::text')}
  UNION SELECT a.attrelid FROM pg_catalog.pg_attribute a
    JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
    LEFT JOIN pg_catalog.pg_type et ON et.oid = t.typelem AND t.typcategory = 'A'
    WHERE a.attnum > 0 AND NOT a.attisdropped AND ${only('a.attrelid')}
      AND (et.typtype = 'd' OR (t.typtype = 'd' AND (
        EXISTS (SELECT 1 FROM pg_catalog.pg_type bt WHERE bt.oid = t.typbasetype AND bt.typtype = 'd')
        OR EXISTS (SELECT 1 FROM pg_catalog.pg_constraint dc WHERE dc.contypid = t.oid AND dc.conbin IS NOT NULL
                   AND ${SESSION_READING_CALL('dc.conbin::text')}))))`;
}

/**
 * Whether a write to the relation `r` runs nothing that could read the session variables: an
 * ordinary table without row security or rules, not among `session_readers` (SESSION_READERS). The
 * planner skips setting the session for a mutation that only writes such tables (planner/sessionFree.ts).
 */
export const SESSION_FREE_WRITES = `(r.relkind = 'r' AND NOT r.relrowsecurity AND NOT r.relhasrules
        AND NOT EXISTS (SELECT 1 FROM session_readers sr WHERE sr.oid = r.oid))`;

const USER_SCHEMA = (alias: string) => `${alias}.nspname NOT IN ('pg_catalog', 'information_schema', 'hdb_catalog', 'hdb_views')
    AND ${alias}.nspname NOT LIKE 'pg\\_toast%' AND ${alias}.nspname NOT LIKE 'pg\\_temp\\_%'`;

/** The description of `objoid`'s sub-object `subid` (what `obj_description` / `col_description` read), joined once. */
const DESCRIPTION = (alias: string, objoid: string, subid: string) => `LEFT JOIN pg_catalog.pg_description ${alias}
    ON ${alias}.objoid = ${objoid} AND ${alias}.classoid = 'pg_catalog.pg_class'::regclass AND ${alias}.objsubid = ${subid}`;

/**
 * Relations, columns and constraints are each read in one pass over their catalog (joined, grouped per
 * relation), not by a subquery per relation, per constraint and per key: at 5,000 tables those were most of
 * the query's time. A constraint's columns are their numbers (`conkey`, `confkey`), named from the columns
 * read (introspect.ts). Each table, column and constraint is a JSON array (positions named in
 * introspect.ts), not an object with its keys repeated: half the text to send and parse.
 */
const introspectionQuery = (only: boolean) => `
WITH session_readers AS MATERIALIZED (${only ? sessionReaders((oid) => `${oid} = ANY($1::oid[])`) : SESSION_READERS}),
rels AS (
  SELECT c.oid, n.nspname AS schema, c.relname AS name, c.relkind, c.relrowsecurity, c.relhasrules
  FROM pg_catalog.pg_class c
  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'v', 'm', 'f', 'p') AND ${USER_SCHEMA('n')}${only ? ' AND c.oid = ANY($1::oid[])' : ''}
),
cols AS (
  SELECT a.attrelid AS rel, json_agg(json_build_array(
      a.attname,
      a.attnum,
      t.typname,
      tn.nspname,
      t.typtype,
      t.typcategory = 'A',
      CASE WHEN t.typtype = 'e' THEN (SELECT json_agg(e.enumlabel ORDER BY e.enumsortorder)
        FROM pg_catalog.pg_enum e WHERE e.enumtypid = t.oid) END,
      pg_catalog.format_type(a.atttypid, NULL),
      NOT a.attnotnull,
      a.atthasdef,
      a.attidentity <> '',
      a.attgenerated <> '',
      d.description
    ) ORDER BY a.attnum) AS columns
  FROM rels r
  JOIN pg_catalog.pg_attribute a ON a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped
  JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
  JOIN pg_catalog.pg_namespace tn ON tn.oid = t.typnamespace
  ${DESCRIPTION('d', 'a.attrelid', 'a.attnum')}
  GROUP BY a.attrelid
),
constraints AS (
  SELECT con.conrelid AS rel, json_agg(json_build_array(
      con.conname,
      con.oid::int8,
      con.contype,
      con.conkey,
      rn.nspname,
      rc.relname,
      con.confrelid::int8,
      con.confkey,
      -- the referenced columns' names when the referenced table is not one of rels (whose columns are read)
      CASE WHEN con.contype = 'f' AND con.confrelid NOT IN (SELECT oid FROM rels) THEN (
        SELECT json_agg(att.attname ORDER BY k.ord)
        FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, ord)
        JOIN pg_catalog.pg_attribute att ON att.attrelid = con.confrelid AND att.attnum = k.attnum) END
    ) ORDER BY con.conname) AS constraints
  FROM rels r
  JOIN pg_catalog.pg_constraint con ON con.conrelid = r.oid AND con.contype IN ('p', 'u', 'f')
  LEFT JOIN pg_catalog.pg_class rc ON rc.oid = con.confrelid
  LEFT JOIN pg_catalog.pg_namespace rn ON rn.oid = rc.relnamespace
  GROUP BY con.conrelid
)
SELECT json_build_object(
  'tables', COALESCE((
    SELECT json_agg(json_build_array(
      r.oid::int8,
      r.schema,
      r.name,
      r.relkind,
      d.description,
      CASE WHEN r.relkind IN ('r', 'p') THEN 0 ELSE pg_catalog.pg_relation_is_updatable(r.oid, false) END,
      COALESCE(c.columns, '[]'),
      COALESCE(k.constraints, '[]'),
      ${SESSION_FREE_WRITES}
    ) ORDER BY r.schema, r.name)
    FROM rels r
    LEFT JOIN cols c ON c.rel = r.oid
    LEFT JOIN constraints k ON k.rel = r.oid
    ${DESCRIPTION('d', 'r.oid', '0')}
  ), '[]'),
  'functions', COALESCE((
    SELECT json_agg(json_build_object(
      'oid', p.oid::int8,
      'schema', n.nspname,
      'name', p.proname,
      'kind', p.prokind,
      'volatility', p.provolatile,
      'returns_set', p.proretset,
      'return_type', rt.typname,
      'return_type_schema', rtn.nspname,
      'return_typtype', rt.typtype,
      'return_rel_schema', CASE WHEN rr.relkind IN ('r', 'v', 'm', 'f', 'p') THEN rrn.nspname END,
      'return_rel_name', CASE WHEN rr.relkind IN ('r', 'v', 'm', 'f', 'p') THEN rr.relname END,
      'comment', pg_catalog.obj_description(p.oid, 'pg_proc'),
      'n_defaults', p.pronargdefaults,
      'arg_names', p.proargnames,
      'arg_modes', p.proargmodes,
      'arg_types', COALESCE((
        SELECT json_agg(json_build_object('type', t.typname, 'type_schema', tn.nspname, 'typtype', t.typtype) ORDER BY a.ord)
        FROM unnest(COALESCE(p.proallargtypes, p.proargtypes::oid[])) WITH ORDINALITY AS a(typ, ord)
        JOIN pg_catalog.pg_type t ON t.oid = a.typ
        JOIN pg_catalog.pg_namespace tn ON tn.oid = t.typnamespace
      ), '[]')
    ) ORDER BY n.nspname, p.proname, p.oid)
    FROM pg_catalog.pg_proc p
    JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
    JOIN pg_catalog.pg_type rt ON rt.oid = p.prorettype
    JOIN pg_catalog.pg_namespace rtn ON rtn.oid = rt.typnamespace
    LEFT JOIN pg_catalog.pg_class rr ON rr.oid = rt.typrelid
    LEFT JOIN pg_catalog.pg_namespace rrn ON rrn.oid = rr.relnamespace
    WHERE ${USER_SCHEMA('n')}
  ), '[]')
)::text AS snapshot`;

export const INTROSPECTION_QUERY = introspectionQuery(false);

/**
 * The same query for the relations whose oids are its one parameter (`oid[]`), and every function: what a
 * re-introspection after DDL reads (relationFingerprints.ts), the other relations kept from the last snapshot.
 * A key of such a relation that references one outside the set is named by the query itself.
 */
export const RELATIONS_INTROSPECTION_QUERY = introspectionQuery(true);

/**
 * Each user relation's own catalog rows, as a fingerprint: its `pg_class` and schema rows, its columns and
 * their types (with their schemas and enum labels), defaults, the constraints on it and those referencing
 * it (their rows: a cascade into it, a default or CHECK calling a function, which `session_readers` reads),
 * the constraints of its columns' domains, triggers, comments, rules and inheritance children; and the relations
 * its foreign keys reference (whose names and column names its introspection carries). Row versions are
 * counted and summed by `xmin`, as in catalogFingerprint.ts; a relation's fingerprint is compared with the one
 * taken beside the last snapshot, never stored elsewhere.
 * One JSON array of `[oid, md5 of the parts, referenced oids]`.
 */
export const RELATION_FINGERPRINT_QUERY = `
WITH rels AS MATERIALIZED (
  SELECT c.oid, c.xmin::text || '.' || n.xmin::text AS cls
  FROM pg_catalog.pg_class c
  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'v', 'm', 'f', 'p') AND ${USER_SCHEMA('n')}
),
enums AS (SELECT enumtypid, count(*) || '.' || sum(xmin::text::bigint) AS e FROM pg_catalog.pg_enum GROUP BY enumtypid),
domains AS (SELECT contypid, count(*) || '.' || sum(xmin::text::bigint) AS d FROM pg_catalog.pg_constraint WHERE contypid <> 0 GROUP BY contypid),
attrs AS (
  SELECT a.attrelid AS rel, count(*) || '.' || sum(a.xmin::text::bigint) || '.' || sum(t.xmin::text::bigint) || '.' || sum(tn.xmin::text::bigint)
      || coalesce(':' || string_agg(e.e, ',' ORDER BY a.attnum), '') || coalesce(':' || string_agg(d.d, ',' ORDER BY a.attnum), '') AS a
  FROM rels r
  JOIN pg_catalog.pg_attribute a ON a.attrelid = r.oid AND a.attnum > 0
  JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
  JOIN pg_catalog.pg_namespace tn ON tn.oid = t.typnamespace
  LEFT JOIN enums e ON e.enumtypid = t.oid
  LEFT JOIN domains d ON d.contypid = t.oid OR d.contypid = t.typbasetype
  GROUP BY a.attrelid
),
sums AS (
  SELECT rel, string_agg(what || count || '.' || total, ',' ORDER BY what) AS s FROM (
    SELECT rel, what, count(*) AS count, sum(x) AS total FROM (
      SELECT conrelid AS rel, 'k' AS what, xmin::text::bigint AS x FROM pg_catalog.pg_constraint WHERE conrelid <> 0
      UNION ALL SELECT confrelid, 'r', xmin::text::bigint FROM pg_catalog.pg_constraint WHERE confrelid <> 0
      UNION ALL SELECT adrelid, 'd', xmin::text::bigint FROM pg_catalog.pg_attrdef
      UNION ALL SELECT tgrelid, 't', xmin::text::bigint FROM pg_catalog.pg_trigger
      UNION ALL SELECT objoid, 'c', xmin::text::bigint FROM pg_catalog.pg_description WHERE classoid = 'pg_catalog.pg_class'::regclass
      UNION ALL SELECT ev_class, 'w', xmin::text::bigint FROM pg_catalog.pg_rewrite
      UNION ALL SELECT inhparent, 'i', xmin::text::bigint FROM pg_catalog.pg_inherits
    ) x GROUP BY rel, what
  ) y GROUP BY rel
),
refs AS (
  SELECT conrelid AS rel, array_agg(DISTINCT confrelid::int8) AS refs FROM pg_catalog.pg_constraint
  WHERE contype = 'f' AND confrelid <> conrelid GROUP BY conrelid
)
SELECT COALESCE(json_agg(json_build_array(
    r.oid::int8,
    md5(r.cls || '/' || coalesce(a.a, '') || '/' || coalesce(s.s, '')),
    COALESCE(f.refs, '{}')
  )), '[]')::text AS fingerprints
FROM rels r
LEFT JOIN attrs a ON a.rel = r.oid
LEFT JOIN sums s ON s.rel = r.oid
LEFT JOIN refs f ON f.rel = r.oid`;
