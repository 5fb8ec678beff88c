// Shared helpers for the benchmark harness (no dependencies beyond peer/node_modules; `pg` also
// resolves from the repository's node_modules when the peer package is not installed).
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import path from "node:path";

export const BENCH_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const requirePeer = createRequire(path.join(BENCH_DIR, "peer", "package.json"));

export const DATABASE_URL =
  process.env.DATABASE_URL ?? `postgres://postgres@127.0.0.1:${process.env.PGPORT ?? 55432}/bench`;

/** Mutation shapes are named m_* (they write to the bench_* tables of mutations.sql). */
export const isMutationShape = (shape) => shape.startsWith("m_");

/**
 * Shape names (from queries/*.variables.json), filtered by $SHAPES unless everything=true.
 * $SHAPES is a comma list of shape names and/or the groups `queries` (the query shapes a_…f_),
 * `mutations` (the m_* shapes) and `all` (both). Unset or empty = `queries`, as before mutation
 * shapes existed. everything=true: every shape, mutations included.
 */
export function shapes(everything = false) {
  const all = readdirSync(path.join(BENCH_DIR, "queries"))
    .filter((f) => f.endsWith(".variables.json"))
    .map((f) => f.replace(/\.variables\.json$/, ""))
    .sort();
  if (everything) return all;
  const want = (process.env.SHAPES ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  if (!want.length) return all.filter((s) => !isMutationShape(s));
  return all.filter((s) => want.includes(s) || want.includes("all") ||
    (want.includes("queries") && !isMutationShape(s)) || (want.includes("mutations") && isMutationShape(s)));
}

export function hasQuery(shape, style) {
  return existsSync(path.join(BENCH_DIR, "queries", `${shape}.${style}.graphql`));
}

/**
 * The variable that varies per request (queries/<shape>.vary.json, e.g. {"id": [1, 10000]}):
 * {name, min, max}, or null when the shape sends the same body every time. Load tools cycle the
 * value through min..max (one value per request, in order), so concurrent requests never share it.
 */
export function readVary(shape) {
  const f = path.join(BENCH_DIR, "queries", `${shape}.vary.json`);
  if (!existsSync(f)) return null;
  const entries = Object.entries(JSON.parse(readFileSync(f, "utf8")));
  if (entries.length !== 1) throw new Error(`${f}: exactly one varying variable is supported`);
  const [name, [min, max]] = entries[0];
  return { name, min: Number(min), max: Number(max) };
}

/** A per-request cycling counter over vary.min..vary.max (the same sequence wrk and autocannon use). */
export function varyCounter(vary) {
  let n = vary.min - 1;
  return () => (n = n >= vary.max ? vary.min : n + 1);
}

export function readQuery(shape, style) {
  return readFileSync(path.join(BENCH_DIR, "queries", `${shape}.${style}.graphql`), "utf8");
}
export function readVariables(shape) {
  return JSON.parse(readFileSync(path.join(BENCH_DIR, "queries", `${shape}.variables.json`), "utf8"));
}

/**
 * Parse a pgbench-style script (sql/<shape>.sql): `\set name value` lines give defaults,
 * `:name` placeholders become $1..$n (in order of first appearance) for node-postgres.
 * A `\set` whose value is a pgbench expression rather than a number (e.g. `random(1, 10)`, used
 * by the mutation shapes to vary ids under pgbench) gives no default; it is kept in `exprs`, and
 * callers take that variable from queries/<shape>.variables.json instead.
 */
export function readSql(shape) {
  const src = readFileSync(path.join(BENCH_DIR, "sql", `${shape}.sql`), "utf8");
  const defaults = {}, exprs = {};
  const body = [];
  for (const line of src.split("\n")) {
    const m = line.match(/^\\set\s+(\w+)\s+(.+?)\s*$/);
    if (m) {
      if (/^-?\d+(\.\d+)?$/.test(m[2])) defaults[m[1]] = m[2];
      else exprs[m[1]] = m[2];
    } else if (!line.startsWith("--")) body.push(line);
  }
  const names = [];
  const text = body
    .join("\n")
    .trim()
    .replace(/;\s*$/, "")
    .replace(/(?<!:):([A-Za-z_]\w*)/g, (_, n) => {
      let i = names.indexOf(n);
      if (i < 0) i = names.push(n) - 1;
      return `$${i + 1}`;
    });
  return { shape, text, names, defaults, exprs };
}

/** node-postgres type override: return every column as the raw text Postgres sent. */
export const rawTypes = { getTypeParser: () => (v) => v };

export function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}
export const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
