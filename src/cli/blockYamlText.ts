/**
 * JSON data as YAML text, the same text as `YAML.stringify(v, { lineWidth: 0, aliasDuplicateObjects: false })`
 * of the `yaml` package, written directly: block mappings and sequences (sequences indented under their key),
 * `[]` / `{}` for empty ones, scalars plain where `yaml` writes them plain. The `yaml` package builds a
 * document of nodes first and takes ~2.5 s per 1,000 tables of metadata; this takes milliseconds.
 *
 * Only what is certain to come out as `yaml` writes it is written here: keys and strings of a safe
 * character class (letter first, not a core-schema word such as `null` or `true`), safe integers,
 * booleans and null; any other string or number is written by `yaml` itself, alone, when that gives one
 * line; for anything else (a multi-line string, a key outside the class, a value that is not JSON)
 * `undefined` is returned, for the caller to write the value with `yaml`. tests/unit/cli/blockYaml.test.ts
 * compares the two on random documents.
 */
import YAML from 'yaml';

const OPTIONS = { lineWidth: 0, aliasDuplicateObjects: false } as const;

/** Strings `yaml` writes plain in block context (as keys and as values), and that read back as strings. */
const SAFE = /^[A-Za-z_$][A-Za-z0-9_.\-/$+ ]*$/;
/** Words of the YAML 1.2 core schema that read back as null or booleans. */
const CORE_WORDS = new Set(['null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE']);

class NotBlock extends Error {}

export function isSafePlain(s: string): boolean {
  return SAFE.test(s) && s.charCodeAt(s.length - 1) !== 32 && !CORE_WORDS.has(s);
}

function scalar(v: unknown): string {
  switch (typeof v) {
    case 'string': {
      if (isSafePlain(v)) return v;
      const t = YAML.stringify(v, OPTIONS);
      const line = t.endsWith('\n') ? t.slice(0, -1) : t;
      if (line.includes('\n') || line.startsWith('|') || line.startsWith('>')) throw new NotBlock();
      return line;
    }
    case 'number':
      if (Number.isSafeInteger(v) && !Object.is(v, -0)) return String(v);
      if (!Number.isFinite(v)) throw new NotBlock();
      return YAML.stringify(v, OPTIONS).slice(0, -1);
    case 'boolean':
      return v ? 'true' : 'false';
    default:
      if (v === null) return 'null';
      throw new NotBlock();
  }
}

function isPlainObject(v: object): boolean {
  const p = Object.getPrototypeOf(v);
  return p === Object.prototype || p === null;
}

type KeyOrder = (keys: string[]) => string[];

/**
 * Appends `v` starting at the current position; its further lines are indented by `indent` spaces. An
 * object's keys are written in the order `order` gives (default: their own).
 */
function write(v: unknown, indent: number, out: string[], order: KeyOrder | undefined): void {
  if (v === null || typeof v !== 'object') {
    out.push(scalar(v));
    return;
  }
  const pad = '\n' + ' '.repeat(indent);
  if (Array.isArray(v)) {
    if (v.length === 0) {
      out.push('[]');
      return;
    }
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out.push(pad);
      out.push('- ');
      write(v[i], indent + 2, out, order);
    }
    return;
  }
  if (!isPlainObject(v)) throw new NotBlock();
  const keys = order === undefined ? Object.keys(v) : order(Object.keys(v));
  if (keys.length === 0) {
    out.push('{}');
    return;
  }
  const inner = '\n' + ' '.repeat(indent + 2);
  let first = true;
  for (const k of keys) {
    const x = (v as Record<string, unknown>)[k];
    // (`yaml` writes a key of more than 1,024 characters as an explicit `? key`)
    if (x === undefined || k.length > 1000 || !isSafePlain(k)) throw new NotBlock();
    if (!first) out.push(pad);
    first = false;
    out.push(k, ':');
    if (x !== null && typeof x === 'object' && (Array.isArray(x) ? x.length > 0 : Object.keys(x).length > 0)) {
      out.push(inner);
      write(x, indent + 2, out, order);
    } else {
      out.push(' ');
      write(x, indent + 2, out, order);
    }
  }
}

/**
 * `YAML.stringify(v, { lineWidth: 0, aliasDuplicateObjects: false })` for JSON data, objects' keys in the
 * order `order` gives; `undefined` when `v` holds what only `yaml` writes.
 */
export function blockYamlText(v: unknown, order?: KeyOrder): string | undefined {
  const out: string[] = [];
  try {
    write(v, 0, out, order);
  } catch (e) {
    if (!(e instanceof NotBlock)) throw e;
    return undefined;
  }
  out.push('\n');
  return out.join('');
}
