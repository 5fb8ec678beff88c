/**
 * The conformance corpus' schema as test data: the `run_sql` statements of every group's
 * setup.json (tests/conformance/cases), each group in a schema of its own (`c_<category>_<group>`,
 * through search_path) so that groups that reuse table names do not collide. Groups whose SQL does
 * not apply on its own (it names `public.` objects or the engine's catalog) are left out: the
 * result says which applied.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

const CASES = new URL('../conformance/cases/', import.meta.url);

/** Each group's setup SQL, in the corpus' order. */
export function conformanceSetupSql(): { name: string; sql: string }[] {
  const root = CASES.pathname;
  const out: { name: string; sql: string }[] = [];
  for (const cat of readdirSync(root).sort()) {
    if (!statSync(join(root, cat)).isDirectory()) continue;
    for (const group of readdirSync(join(root, cat)).sort()) {
      const file = join(root, cat, group, 'setup.json');
      if (!existsSync(file)) continue;
      const sqls: string[] = [];
      const walk = (b: any): void => {
        if (b?.type === 'run_sql') sqls.push(b.args.sql);
        else if (b?.type === 'bulk') b.args.forEach(walk);
      };
      for (const step of JSON.parse(readFileSync(file, 'utf8')).steps ?? []) walk(step.body);
      if (sqls.length > 0) out.push({ name: `c_${cat}_${group}`.toLowerCase().replace(/[^a-z0-9_]/g, '_'), sql: sqls.join(';\n') });
    }
  }
  return out;
}

/** Applies the groups to the database at `url`, each in its own schema; the names that applied. */
export async function applyConformanceSchema(url: string): Promise<string[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const applied: string[] = [];
  try {
    for (const g of conformanceSetupSql()) {
      await c.query('BEGIN');
      try {
        await c.query(`CREATE SCHEMA ${g.name}; SET LOCAL search_path TO ${g.name}, public`);
        await c.query(g.sql);
        await c.query('COMMIT');
        applied.push(g.name);
      } catch {
        await c.query('ROLLBACK');
      }
    }
  } finally {
    await c.end();
  }
  return applied;
}
