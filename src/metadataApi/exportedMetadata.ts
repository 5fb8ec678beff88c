/**
 * `export_metadata`'s answer written as JSON text a slice of tables per event-loop turn. A document of
 * 5,000 tables is ~11 MB of text: encoding it as one object and `JSON.stringify` of it held the event
 * loop for a third of a second and more. Here each table's text is made once per table object
 * (`exportedTableText`: a metadata operation's next document shares every table it did not edit, so an
 * export after a change encodes only the changed tables; and it is the stored document's text of the
 * table, metadata/catalog/storedDocument.ts, unless the table keeps what only storage writes) and the rest of the document (functions,
 * remote schemas, collections, the other sources…) is encoded at once with a marker where the tables
 * go. The text is the same, byte for byte, as `JSON.stringify` of the whole document.
 */
import { TurnBudget } from '../lib/index.js';
import { encodeMetadata, encodeTable, storedTableText } from '../metadata/index.js';
import type { Metadata } from '../metadata/index.js';
import { RawJson } from './dml/index.js';

type J = Record<string, unknown>;

/** What stands for the tables in the encoded rest of the document until the texts are spliced in. */
const TABLES_MARK: readonly string[] = Object.freeze(['\u0000export_metadata.tables\u0000']);
const MARK_TEXT = JSON.stringify(TABLES_MARK);

/**
 * An exported document: `document` is the encoded document whose `tables` is the marker, `tablesText`
 * the tables' texts joined by commas; `text` (RawJson's) is the whole JSON text.
 */
export class ExportedMetadata extends RawJson {
  constructor(readonly document: J, readonly tablesText: string) {
    super(splice(document, tablesText));
  }

  /** The document reshaped by `reshape` (which may move the marker, e.g. into `sources[0].tables`). */
  map(reshape: (document: J) => J): ExportedMetadata {
    return new ExportedMetadata(reshape(this.document), this.tablesText);
  }
}

function splice(document: J, tablesText: string): string {
  const text = JSON.stringify(document);
  const at = text.indexOf(MARK_TEXT);
  if (at >= 0 && text.indexOf(MARK_TEXT, at + 1) < 0) return `${text.slice(0, at)}[${tablesText}]${text.slice(at + MARK_TEXT.length)}`;
  // The marker's text found twice (a value of the document spells it): the tables put in by value.
  const tables = JSON.parse(`[${tablesText}]`) as unknown[];
  return JSON.stringify(document, (_k, v: unknown) => (v === TABLES_MARK ? tables : v));
}

const tableTexts = new WeakMap<Metadata['tables'][number], string>();

/** Whether the table's stored text differs from its exported one (a pre-1.0 `allow_upsert`, which only storage keeps). */
const storedDiffers = (t: Metadata['tables'][number]): boolean => (t.insert_permissions ?? []).some((p) => p.permission.allow_upsert === true);

/**
 * One table's exported text, made once per table object (documents are never edited in place): the
 * stored text when they are the same (almost always: the stored document's texts are already made
 * for every table a change saved), else a text of its own.
 */
export function exportedTableText(t: Metadata['tables'][number]): string {
  if (!storedDiffers(t)) return storedTableText(t);
  let text = tableTexts.get(t);
  if (text === undefined) tableTexts.set(t, (text = JSON.stringify(encodeTable(t))));
  return text;
}

/**
 * `md` as `export_metadata` answers it, with `cronTriggers` (already encoded) as its `cron_triggers`
 * (last; none: no key), the tables encoded in ~10 ms slices with a turn of the event loop between.
 */
export async function exportMetadata(md: Metadata, cronTriggers: readonly unknown[]): Promise<ExportedMetadata> {
  const document = encodeMetadata({ ...md, tables: [] }) as J;
  delete document.cron_triggers;
  if (cronTriggers.length > 0) document.cron_triggers = cronTriggers;
  document.tables = TABLES_MARK;
  const texts: string[] = new Array(md.tables.length);
  const budget = new TurnBudget();
  for (let i = 0; i < md.tables.length; i++) {
    if (budget.due) await budget.next();
    texts[i] = exportedTableText(md.tables[i]);
  }
  return new ExportedMetadata(document, texts.join(','));
}
