/**
 * The stored metadata document, decoded from its text and encoded into it. Every metadata operation
 * and every schema-sync reload reads the whole document, and every change writes it: for a document
 * of several MB (a query collection of 60,000 queries is 7 MB) that is 100–200 ms of JSON.parse or
 * JSON.stringify in one event-loop turn. From `OFF_THREAD_MIN_BYTES` (lib/offThread.ts) on, both run in a worker thread
 * (lib/offThread.ts); the main thread pays for handing the value over (V8's structured clone,
 * ~30 ms there). A failure of the thread does the work inline. A document of many tables is encoded on
 * this thread a slice of tables per event-loop turn instead (its structured clone costs more than its
 * encoding), and decoded on this thread likewise: its text parsed in pieces, its tables decoded a slice
 * per turn (`decodeStoredSliced`).
 */
import { OFF_THREAD_MIN_BYTES, offThreadRunner, parseJsonSliced, TurnBudget } from '../../lib/index.js';
import type { Metadata } from '../model/metadata.js';
import { decodeMetadata, decodeTablesAhead } from '../model/decodeMetadata.js';
import { encodeMetadata, encodeTable } from '../model/encodeMetadata.js';

/** The decoding itself (the document was checked when it was stored: see decodeMetadata's `stored`). */
export const decodeStoredInline = (text: string): Metadata => decodeMetadata(JSON.parse(text), '$', { stored: true });

/** The encoding itself. */
export const encodeStoredInline = (md: Metadata): string => JSON.stringify(encodeMetadata(md, { storage: true }));

export type StoredJob = { decode: string } | { encode: Metadata };

/** The worker side's job. */
export const storedJob = (job: StoredJob): Metadata | string => ('decode' in job ? decodeStoredInline(job.decode) : encodeStoredInline(job.encode));

const thread = offThreadRunner<StoredJob, Metadata | string>(new URL('./storedDocumentWorker.js', import.meta.url));

export async function decodeStoredMetadata(text: string): Promise<Metadata> {
  if (text.length < OFF_THREAD_MIN_BYTES) return decodeStoredInline(text);
  // Many tables: decoded here a slice per event-loop turn (receiving thousands of decoded tables from the
  // thread, by structured clone, costs this thread more than decoding them, in one turn).
  if (manyTables(text)) return decodeStoredSliced(text);
  const md = await thread.run({ decode: text }, text.length);
  return typeof md === 'object' ? md : decodeStoredInline(text);
}

/** `decodeStoredInline`'s document, its text parsed in pieces and its tables decoded a slice per turn. */
export async function decodeStoredSliced(text: string): Promise<Metadata> {
  const budget = new TurnBudget();
  const json = await parseJsonSliced(text, budget);
  if (typeof json === 'object' && json !== null) await decodeTablesAhead((json as { tables?: unknown }).tables, budget);
  return decodeMetadata(json, '$', { stored: true });
}

/** Whether the text names a table at least TABLES_PER_TURN times (tables, and the tables relationships name). */
function manyTables(text: string): boolean {
  let n = 0;
  for (let at = text.indexOf('"table"'); at >= 0; at = text.indexOf('"table"', at + 7)) if (++n >= TABLES_PER_TURN) return true;
  return false;
}

export async function encodeStoredMetadata(md: Metadata): Promise<string> {
  if (estimatedLength(md) < OFF_THREAD_MIN_BYTES) return encodeStoredInline(md);
  // Many tables: encoded here, a slice of tables per event-loop turn (handing thousands of tables to
  // the thread costs more, in structured clone on this thread, than encoding them).
  if (md.tables.length >= TABLES_PER_TURN) return encodeStoredChunked(md);
  const text = await thread.run({ encode: md }, estimatedLength(md));
  return typeof text === 'string' ? text : encodeStoredInline(md);
}

const TABLES_PER_TURN = 250;

/**
 * Each table's encoded text, per table object: a metadata operation's next document shares every table it
 * did not edit with the current one (copy-on-write drafts), and a stored or live document is never edited
 * in place, so only the edited tables are encoded again.
 */
const encodedTables = new WeakMap<Metadata['tables'][number], string>();
/** One table's stored text (`encodeTable` with `storage`), made once per table object. */
export function encodedTable(t: Metadata['tables'][number]): string {
  let text = encodedTables.get(t);
  if (text === undefined) encodedTables.set(t, (text = JSON.stringify(encodeTable(t, { storage: true }))));
  return text;
}
const EMPTY_TABLES = '{"version":2,"tables":[]';

/** `encodeStoredInline`'s text, built a slice of tables at a time with a turn of the event loop between. */
export async function encodeStoredChunked(md: Metadata): Promise<string> {
  const rest = encodeStoredInline({ ...md, tables: [] });
  if (!rest.startsWith(EMPTY_TABLES)) return encodeStoredInline(md);
  const parts: string[] = [];
  // A turn of the event loop every TABLES_PER_TURN tables, or sooner when encoding them takes over ~10 ms
  // (tables seen before are texts already: only new ones cost).
  const budget = new TurnBudget(10);
  for (let i = 0; i < md.tables.length; i++) {
    if (i > 0 && (i % TABLES_PER_TURN === 0 || budget.due)) await budget.next();
    parts.push(encodedTable(md.tables[i]));
  }
  return `{"version":2,"tables":[${parts.join(',')}]${rest.slice(EMPTY_TABLES.length)}`;
}

/** Each table's stored text as UTF-8 bytes, per table object (what a write sends: see `encodeStoredBytes`). */
const encodedTableBytes = new WeakMap<Metadata['tables'][number], Buffer>();
function tableBytes(t: Metadata['tables'][number]): Buffer {
  let bytes = encodedTableBytes.get(t);
  if (bytes === undefined) encodedTableBytes.set(t, (bytes = Buffer.from(encodedTable(t))));
  return bytes;
}
const COMMA = Buffer.from(',');

/**
 * The stored text of `md` as it is written to Postgres: for a document of many tables its UTF-8 bytes, put together
 * from each table's bytes (made once per table object, like its text) with a turn of the event loop every few
 * milliseconds, so a write copies the 11 MB of 5,000 tables once instead of joining them into one string and
 * encoding that again (tens of milliseconds, and an 11 MB string for the collector); else `encodeStoredMetadata`'s text.
 */
export async function encodeStoredBytes(md: Metadata): Promise<string | Buffer> {
  if (md.tables.length < TABLES_PER_TURN || estimatedLength(md) < OFF_THREAD_MIN_BYTES) return encodeStoredMetadata(md);
  const rest = encodeStoredInline({ ...md, tables: [] });
  if (!rest.startsWith(EMPTY_TABLES)) return encodeStoredInline(md);
  const parts: Buffer[] = [Buffer.from('{"version":2,"tables":[')];
  const budget = new TurnBudget(10);
  for (let i = 0; i < md.tables.length; i++) {
    if (i > 0 && (i % TABLES_PER_TURN === 0 || budget.due)) await budget.next();
    if (i > 0) parts.push(COMMA);
    parts.push(tableBytes(md.tables[i]));
  }
  parts.push(Buffer.from(`]${rest.slice(EMPTY_TABLES.length)}`));
  return Buffer.concat(parts);
}

/**
 * Encodes the tables of `md` (a live document) into the per-table texts `encodeStoredChunked` reuses, in the
 * background: a few milliseconds at a time, then a pause of several times that, so what the engine serves
 * meanwhile barely notices. Run after start-up and reloads: the first metadata operation then encodes only what
 * it edits, as every later one does, instead of every table of the document. Timers never keep the process alive.
 */
export function warmStoredEncoding(md: Metadata, sliceMs = 4, pauseMs = 16): Promise<void> {
  if (md.tables.length < TABLES_PER_TURN) return Promise.resolve();
  return new Promise((resolve) => {
    let i = 0;
    const step = () => {
      const start = performance.now();
      while (i < md.tables.length && performance.now() - start < sliceMs) encodedTable(md.tables[i++]);
      if (i < md.tables.length) setTimeout(step, pauseMs).unref();
      else resolve();
    };
    setTimeout(step, pauseMs).unref();
  });
}

/** A cheap lower estimate of the document's text length: its query texts and ~300 characters a table. */
function estimatedLength(md: Metadata): number {
  let n = md.tables.length * 300;
  for (const c of md.query_collections ?? []) for (const q of c.definition.queries) n += q.query.length + q.name.length;
  return n;
}

/** How many jobs the thread answered, and how many it could not (done inline instead). */
export const storedDocumentThreadCounts = (): { answered: number; failed: number } => thread.counts();
