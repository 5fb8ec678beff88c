/**
 * The allow-list as a set of normalised query texts (Hasura v1.3's `scAllowlist`): every query of
 * every collection named in `allowlist`, parsed, stripped of `__typename` fields (as Hasura's
 * `stripTypenames`: fields of operations, fragments and nested fields; inline fragments are kept
 * as written) and printed canonically, so formatting and whitespace never matter (the shorthand
 * `{ ... }` and `query { ... }` stay different, as in Hasura's AST comparison). Built once per
 * schema cache; the request check is then one Set lookup.
 */
import { Kind, parse, print, type DocumentNode, type OperationDefinitionNode, type SelectionSetNode, type SelectionNode } from 'graphql';
import type { Metadata } from '../model/metadata.js';

/** The canonical text of a GraphQL document for allow-list matching; undefined when it does not parse. */
export function normalizeAllowlistQuery(query: string): string | undefined {
  let doc: DocumentNode;
  try {
    doc = parse(query);
  } catch {
    return undefined;
  }
  return normalizeAllowlistDocument(doc);
}

/** The canonical text of an already parsed document (see normalizeAllowlistQuery). */
export function normalizeAllowlistDocument(doc: DocumentNode): string {
  return stripTypenames(doc).definitions.map((d) => {
    // Hasura's AST tells `{ ... }` (shorthand) from `query { ... }`; print() writes both as `{ ... }`.
    if (d.kind === Kind.OPERATION_DEFINITION && !isShorthand(d) && print(d).startsWith('{')) return `query ${print(d)}`;
    return print(d);
  }).join('\n\n');
}

/** A `{ ... }` operation (no `query` keyword); needs the parse locations (kept by stripTypenames). */
const isShorthand = (op: OperationDefinitionNode): boolean => op.loc?.startToken.kind === '{';

function stripTypenames(doc: DocumentNode): DocumentNode {
  return {
    ...doc,
    definitions: doc.definitions.map((d) =>
      d.kind === Kind.OPERATION_DEFINITION || d.kind === Kind.FRAGMENT_DEFINITION
        ? { ...d, selectionSet: stripSelectionSet(d.selectionSet) }
        : d),
  };
}

function stripSelectionSet(set: SelectionSetNode): SelectionSetNode {
  const selections: SelectionNode[] = [];
  for (const s of set.selections) {
    if (s.kind !== Kind.FIELD) selections.push(s);
    else if (s.name.value !== '__typename') selections.push(s.selectionSet ? { ...s, selectionSet: stripSelectionSet(s.selectionSet) } : s);
  }
  return { ...set, selections };
}

/** The normalised texts of every query in a collection that is on the allow-list. */
export function buildAllowlist(metadata: Metadata): ReadonlySet<string> {
  const allowed = new Set<string>();
  const listed = new Set((metadata.allowlist ?? []).map((a) => a.collection));
  if (listed.size === 0) return allowed;
  for (const c of metadata.query_collections ?? []) {
    if (!listed.has(c.name)) continue;
    for (const q of c.definition?.queries ?? []) {
      const n = normalizeAllowlistQuery(q.query);
      if (n !== undefined) allowed.add(n);
    }
  }
  return allowed;
}
