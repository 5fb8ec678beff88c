/**
 * Introspection texts of named types, shared between role schemas (and between the introspections of
 * one): per structure key (`structureKey`: what every role's schema reads besides permissions), per type
 * key (`typeKeys.ts`: the type's name and the role permissions that decide it), the names of the types it
 * refers to in `new GraphQLSchema`'s order (so a walk of the schema's types can pass it without making it)
 * and its JSON text under each selection of `__Type` (a canonical text of the selection: fields, aliases,
 * arguments) whose nested type references read no more than names (`kind`, `name`, `ofType`…).
 *
 * Two roles whose permissions on a table coincide share that table's texts: a role allowed to aggregate
 * and one that is not share every input type; roles with one more column on a table differ in that
 * table's types and in its neighbours' object types only. An introspection answer is then a list of these
 * texts (plus the roots' own, written each time), so answers kept for several roles hold each shared
 * text once.
 *
 * The texts of the last `SCOPES` structures are kept (a structural change starts a new scope; the old one
 * goes when no longer among the last ones).
 */

const SCOPES = 2;

export interface TypeEntry {
  /** The named types it refers to, in `new GraphQLSchema`'s order (interfaces, field types, argument types). */
  refs?: readonly string[];
  /** Selection key → the type's text under it. */
  texts?: Map<string, string>;
}

export class TypeTexts {
  private readonly entries = new Map<string, TypeEntry>();

  entry(key: string): TypeEntry {
    let e = this.entries.get(key);
    if (!e) this.entries.set(key, (e = {}));
    return e;
  }

  text(key: string, selection: string): string | undefined {
    return this.entries.get(key)?.texts?.get(selection);
  }

  setText(key: string, selection: string, text: string): void {
    const e = this.entry(key);
    (e.texts ??= new Map()).set(selection, text);
  }

  /** How many types and texts are kept (tests, benchmarks). */
  get size(): { types: number; texts: number } {
    let texts = 0;
    for (const e of this.entries.values()) texts += e.texts?.size ?? 0;
    return { types: this.entries.size, texts };
  }
}

/** The scopes by structure key; a Map iterates oldest first (a scope used again moves to the end). */
const scopes = new Map<string, TypeTexts>();

/** The shared texts of the schemas of one structure key. */
export function typeTextsFor(structure: string): TypeTexts {
  let t = scopes.get(structure);
  if (t) {
    scopes.delete(structure);
    scopes.set(structure, t);
    return t;
  }
  t = new TypeTexts();
  scopes.set(structure, t);
  while (scopes.size > SCOPES) scopes.delete(scopes.keys().next().value!);
  return t;
}
