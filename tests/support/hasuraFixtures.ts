/**
 * Hasura's catalogs as test data (fixtures/hasura-v1.3, fixtures/hasura-v2: see their READMEs) and a
 * one-shot query on a database, for tests that build a database the way Hasura leaves it.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';

/** Hasura v1.3's hdb_catalog (catalog version 43). */
export const HASURA_V13_CATALOG = readFileSync(new URL('./fixtures/hasura-v1.3/catalog.sql', import.meta.url), 'utf8');
/** Hasura v2's hdb_catalog (version 48), run after the v1.3 one. */
export const HASURA_V2_CATALOG = readFileSync(new URL('./fixtures/hasura-v2/catalog.sql', import.meta.url), 'utf8');
/** The hdb_catalog Hasura v2 keeps in the database of a further source (event log, invocation logs). */
export const HASURA_V2_SOURCE_CATALOG = readFileSync(new URL('./fixtures/hasura-v2/source.sql', import.meta.url), 'utf8');

/** The user tables both Hasura test projects serve: two authors, three articles (a1, a2 by author 1; g1 by 2). */
export const AUTHORS_AND_ARTICLES = `CREATE TABLE public.author (id serial PRIMARY KEY, name text NOT NULL);
     CREATE TABLE public.article (id serial PRIMARY KEY, title text NOT NULL, author_id int NOT NULL REFERENCES public.author (id));
     INSERT INTO public.author (name) VALUES ('ada'), ('grace');
     INSERT INTO public.article (title, author_id) VALUES ('a1', 1), ('a2', 1), ('g1', 2);`;

/** Runs `text` on its own connection to `url`; the rows. */
export async function sql<T = any>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text, params)).rows as T[];
  } finally {
    await c.end();
  }
}
