/**
 * Narrowing reruns by changed rows: the cohorts of a keyed live query (planner/liveKey.ts: its
 * root filter holds `column = $value`) indexed by their value, so the changed rows' old and new
 * images (read from `hdb_catalog.svc_live_log` by changeWatcher.ts) name the cohorts a change to
 * the root table can concern: those whose value equals an image's `column`. Lookups cost one map
 * access per image, whatever the number of cohorts.
 *
 * Values are compared as Postgres compares them, on a canonical text: integers as decimal
 * digits, text exactly, uuids in lower-case hyphenated form. A cohort whose value has no canonical
 * text (NULL, or text Postgres would read differently than this code) is kept aside and reruns on
 * every change of the table; an image whose value cannot be made canonical (an int8 beyond 2^53
 * after JSON) makes the whole change undecidable: every cohort reruns.
 */
import type { LiveKey, LiveKeyKind } from '../planner/index.js';

/** The canonical text of a key value given as parameter text, or undefined when there is none. */
export function canonicalParam(text: unknown, kind: LiveKeyKind): string | undefined {
  if (typeof text !== 'string') return undefined;
  switch (kind) {
    case 'text':
      return text;
    case 'int': {
      const t = text.trim();
      return /^[+-]?\d{1,20}$/.test(t) ? BigInt(t).toString() : undefined;
    }
    case 'uuid':
      return canonicalUuid(text);
  }
}

/**
 * The canonical text of an image's column value (parsed JSON): null for SQL NULL (equal to no
 * value), undefined when it cannot be decided.
 */
export function canonicalImage(v: unknown, kind: LiveKeyKind): string | null | undefined {
  if (v === null) return null;
  switch (kind) {
    case 'text':
      return typeof v === 'string' ? v : undefined;
    case 'int':
      return typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : undefined;
    case 'uuid':
      return typeof v === 'string' ? canonicalUuid(v) : undefined;
  }
}

function canonicalUuid(s: string): string | undefined {
  let t = s.trim().toLowerCase();
  if (t.startsWith('{') && t.endsWith('}')) t = t.slice(1, -1);
  t = t.replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/.test(t)) return undefined;
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-${t.slice(12, 16)}-${t.slice(16, 20)}-${t.slice(20)}`;
}

interface Keyed {
  readonly varsJson: string;
}

/** The cohorts of one keyed poller, by key value. */
export class CohortIndex<C extends Keyed> {
  private readonly byValue = new Map<string, Set<C>>();
  /** Cohorts without a canonical value: concerned by every change. */
  private readonly aside = new Set<C>();
  private readonly valueOf = new Map<C, string | undefined>();

  constructor(readonly key: LiveKey) {}

  add(c: C): void {
    const vars = JSON.parse(c.varsJson) as unknown[];
    const v = canonicalParam(vars[this.key.param], this.key.kind);
    this.valueOf.set(c, v);
    if (v === undefined) return void this.aside.add(c);
    let set = this.byValue.get(v);
    if (!set) this.byValue.set(v, (set = new Set()));
    set.add(c);
  }

  delete(c: C): void {
    if (!this.valueOf.has(c)) return;
    const v = this.valueOf.get(c);
    this.valueOf.delete(c);
    if (v === undefined) return void this.aside.delete(c);
    const set = this.byValue.get(v);
    set?.delete(c);
    if (set?.size === 0) this.byValue.delete(v);
  }

  /** The cohorts `images` (changed rows of the root table) concern; undefined: all of them. */
  concerned(images: readonly Record<string, unknown>[]): Set<C> | undefined {
    const out = new Set<C>(this.aside);
    for (const img of images) {
      if (!Object.hasOwn(img, this.key.column)) return undefined;
      const v = canonicalImage(img[this.key.column], this.key.kind);
      if (v === undefined) return undefined;
      if (v === null) continue;
      const set = this.byValue.get(v);
      if (set) for (const c of set) out.add(c);
    }
    return out;
  }
}
