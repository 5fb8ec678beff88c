/**
 * Metadata the engine does not act on yet. `replace_metadata` refuses a document that uses any of
 * it (400 `not-supported` naming every such key), instead of storing what it would then ignore:
 * a Hasura user who imports actions or event triggers must learn at once that they will not run.
 *
 * ONE list to edit: whoever implements a feature removes its entry below (and nothing else here).
 * Empty values (`[]`, `{}`, `null`, custom types with only empty lists) are always accepted, as
 * Hasura's own exports carry them.
 */
import { ApiError } from '../../core/index.js';

/** Top-level keys of Hasura's metadata not implemented yet → what they are, for the message. */
export const UNSUPPORTED_METADATA_KEYS: Readonly<Record<string, string>> = {
};

/** Keys of a table's metadata not implemented yet. */
export const UNSUPPORTED_TABLE_KEYS: Readonly<Record<string, string>> = {};

/**
 * Keys of other list entries not implemented (none now: function and remote schema permissions are).
 * A key listed here is refused rather than dropped, where dropping it would widen what a role may do.
 */
export const UNSUPPORTED_ENTRY_KEYS: Readonly<Record<string, Readonly<Record<string, string>>>> = {};

/** Every top-level key the engine knows; any other key with a non-empty value is refused too. */
const KNOWN_KEYS = new Set(['version', 'tables', 'functions', 'query_collections', 'rest_endpoints', 'allowlist', 'api_limits', 'graphql_schema_introspection', 'source_customization', 'remote_schemas', 'actions', 'custom_types', 'cron_triggers', 'inherited_roles', 'read_replicas', 'logical_models', 'native_queries', 'sources']);

function isEmpty(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.values(v as Record<string, unknown>).every(isEmpty);
  return false;
}

/** The keys of a metadata document the engine would not act on, e.g. `actions`, `tables[0].event_triggers`. */
export function unsupportedMetadataKeys(doc: unknown): string[] {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return [];
  const o = doc as Record<string, unknown>;
  const found: string[] = [];
  for (const [key, value] of Object.entries(o)) {
    if (isEmpty(value)) continue;
    if (key in UNSUPPORTED_METADATA_KEYS || !KNOWN_KEYS.has(key)) found.push(key);
  }
  for (const [list, keys] of Object.entries({ tables: UNSUPPORTED_TABLE_KEYS, ...UNSUPPORTED_ENTRY_KEYS })) {
    const entries = o[list];
    if (!Array.isArray(entries)) continue;
    entries.forEach((t, i) => {
      if (t === null || typeof t !== 'object') return;
      for (const key of Object.keys(keys)) {
        if (!isEmpty((t as Record<string, unknown>)[key])) found.push(`${list}[${i}].${key}`);
      }
    });
  }
  return found;
}

/** What an unsupported entry key (`remote_schemas[0].permissions`, `tables[1].x`) is, for messages; undefined for top-level keys. */
export function entryKeyLabel(key: string): string | undefined {
  const entry = /^(\w+)\[\d+\]\.(\w+)$/.exec(key);
  return entry ? ({ tables: UNSUPPORTED_TABLE_KEYS, ...UNSUPPORTED_ENTRY_KEYS } as Record<string, Record<string, string>>)[entry[1]]?.[entry[2]] : undefined;
}

/** Throws 400 `not-supported` listing every key of `doc` the engine would not act on. */
export function assertSupportedMetadata(doc: unknown, path = '$.args'): void {
  const keys = unsupportedMetadataKeys(doc);
  if (keys.length === 0) return;
  const what = keys.map((k) => {
    const label = entryKeyLabel(k) ?? UNSUPPORTED_METADATA_KEYS[k] ?? 'unknown key';
    return `${k} (${label})`;
  });
  throw new ApiError('not-supported', `this engine does not support yet, so refuses to store: ${what.join(', ')}`, { path, status: 400 });
}
