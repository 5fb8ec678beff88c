/**
 * Migrations mode: the console served by `svc-graphql-engine console --project DIR`, which writes each
 * schema change into the project as a migration. The local server says so in a `<meta
 * name="svc-console-project">` of the page; a form that changes the schema names its migration (and
 * gives its down SQL when it knows one) with `migrationHeaders`, which api.ts sends along.
 */
export interface ConsoleProject {
  /** The database whose migrations folder the changes go to. */
  database: string;
}

let cached: ConsoleProject | null | undefined;

/** The project when the console runs in migrations mode, else undefined (served by the engine itself). */
export function consoleProject(): ConsoleProject | undefined {
  if (cached === undefined) {
    const content = document.querySelector('meta[name="svc-console-project"]')?.getAttribute('content');
    try {
      const v = content ? (JSON.parse(content) as ConsoleProject) : null;
      cached = v && typeof v.database === 'string' ? v : null;
    } catch {
      cached = null;
    }
  }
  return cached ?? undefined;
}

/** Base64 of the UTF-8 bytes of `text` (a header value carries any SQL). */
function base64(text: string): string {
  let bin = '';
  for (const b of new TextEncoder().encode(text)) bin += String.fromCharCode(b);
  return btoa(bin);
}

/**
 * The headers that make a schema change a migration named `name` (snake_case) with `down` as its
 * down.sql; `false`: not a migration. Nothing outside migrations mode.
 */
export function migrationHeaders(m: { name: string; down?: string } | false): Record<string, string> {
  if (!consoleProject()) return {};
  if (m === false) return { 'x-svc-migration': 'false' };
  const h: Record<string, string> = { 'x-svc-migration-name': m.name };
  if (m.down && m.down.trim() !== '') h['x-svc-migration-down'] = base64(m.down);
  return h;
}

/** SQL that looks like it changes the schema: the SQL page ticks "This is a migration" for it, as Hasura's does. */
export const looksLikeSchemaChange = (sql: string): boolean => /(^|;|\n)\s*(create|alter|drop|comment\s+on|grant|revoke|do)\b/i.test(sql);

/** A migration name from free text: lower-case letters, digits and `_`. */
export const snakeName = (s: string): string => s.trim().toLowerCase().replace(/[^a-z0-9_]+/g, '_').replace(/^_+|_+$/g, '');
