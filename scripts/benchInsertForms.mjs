#!/usr/bin/env node
/**
 * `node scripts/benchInsertForms.mjs [--pg postgres://postgres@127.0.0.1:55432/bench] [--n 3000] [--rounds 4]`
 *
 * The statement forms a 100-row insert could be bound in, side by side on one connection (prepared,
 * the m_insert_100 rows of bench/queries, the engine's statement shape around them): per statement,
 * the CPU of the Postgres backend running it (/proc of its pid: the machine must be the database's)
 * and this Node process's own CPU (making the parameters and the driver's messages, reading the
 * answer), over `--n` statements per form and round, forms interleaved, the order reversed every
 * other round. Forms:
 *
 *   values       VALUES ($1, $2, $3), … : one parameter per value (300), the engine's form before
 *   unnest       SELECT unnest($1::text[]), unnest($2::text[]), unnest($3::int4[]): the engine's form now
 *   from_unnest  SELECT * FROM unnest($1::text[], $2::text[], $3::int4[]) (expands composite values: not usable)
 *   json         SELECT … FROM json_to_recordset($1::json) AS u(author text, body text, score int4)
 *   jsonb        the same over jsonb_to_recordset($1::jsonb)
 *
 * Needs the bench database (bench/pg-up.sh, bench/mutations.sql): bench_note is emptied before each run.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    pg: { type: 'string', default: 'postgres://postgres@127.0.0.1:55432/bench' },
    n: { type: 'string', default: '3000' },
    rounds: { type: 'string', default: '4' },
    forms: { type: 'string', default: 'values,unnest,from_unnest,json,jsonb' },
  },
});
const N = Number(args.n);
const objs = JSON.parse(readFileSync(join(root, 'bench/queries/m_insert_100.variables.json'), 'utf8')).objects;
const client = new pg.Client(args.pg);
await client.connect();
const pid = (await client.query('SELECT pg_backend_pid() AS p')).rows[0].p;
const backendTicks = () => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(f[11]) + Number(f[12]);
};
const HZ = 100;

const head = 'WITH "_svc_m" AS (INSERT INTO "public"."bench_note" AS "_svc_t" ("author", "body", "score") ';
const tail = ' RETURNING *, NULL::text AS "svc_check") SELECT json_build_object(\'affected_rows\', (SELECT count(*) FROM "_svc_m"))';
const arrayText = (vals) => `{"${vals.map((v) => String(v).replace(/[\\"]/g, '\\$&')).join('","')}"}`;
const columns = () => [arrayText(objs.map((o) => o.author)), arrayText(objs.map((o) => o.body)), arrayText(objs.map((o) => o.score))];
const json = () => [JSON.stringify(objs.map((o) => ({ author: o.author, body: o.body, score: o.score })))];
const forms = {
  values: {
    text: `${head}VALUES ${objs.map((_, i) => `($${3 * i + 1}::"text", $${3 * i + 2}::"text", $${3 * i + 3}::"int4")`).join(', ')}${tail}`,
    values: () => objs.flatMap((o) => [o.author, o.body, o.score]),
  },
  unnest: { text: `${head}SELECT unnest($1::"text"[]), unnest($2::"text"[]), unnest($3::"int4"[])${tail}`, values: columns },
  from_unnest: { text: `${head}SELECT * FROM unnest($1::"text"[], $2::"text"[], $3::"int4"[])${tail}`, values: columns },
  json: { text: `${head}SELECT "author", "body", "score" FROM json_to_recordset($1::json) AS "_svc_u"("author" "text", "body" "text", "score" "int4")${tail}`, values: json },
  jsonb: { text: `${head}SELECT "author", "body", "score" FROM jsonb_to_recordset($1::jsonb) AS "_svc_u"("author" "text", "body" "text", "score" "int4")${tail}`, values: json },
};
const names = args.forms.split(',');
for (const n of names) if (!forms[n]) throw new Error(`unknown form ${n}`);
const results = Object.fromEntries(names.map((n) => [n, []]));
for (let round = 0; round < Number(args.rounds); round++) {
  for (const name of round % 2 ? [...names].reverse() : names) {
    const f = forms[name];
    await client.query('TRUNCATE public.bench_note');
    for (let i = 0; i < 50; i++) await client.query({ name, text: f.text, values: f.values() });
    const pg0 = backendTicks();
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < N; i++) await client.query({ name, text: f.text, values: f.values() });
    const cpu = process.cpuUsage(cpu0);
    results[name].push({ pg: ((backendTicks() - pg0) * 1e6) / HZ / N, node: (cpu.user + cpu.system) / N });
  }
}
await client.query('TRUNCATE public.bench_note');
await client.end();
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
console.log(`| form | Postgres CPU µs/statement (median; rounds) | Node CPU µs/statement (median; rounds) |`);
console.log('|---|---:|---:|');
for (const name of names) {
  const r = results[name];
  console.log(`| ${name} | ${median(r.map((x) => x.pg)).toFixed(0)} (${r.map((x) => x.pg.toFixed(0)).join(', ')}) | ${median(r.map((x) => x.node)).toFixed(0)} (${r.map((x) => x.node.toFixed(0)).join(', ')}) |`);
}
