/**
 * Hasura v2's root-field namespace of a source (`customization.root_fields.namespace`): the source's root
 * fields of one root type under one field named after the namespace (not prefixed), non-null, of type
 * `<namespace>_query`, `<namespace>_mutation_frontend` or `<namespace>_subscription`, named with the
 * source's `type_names` prefix and suffix. A role with none of the source's fields there gets no namespace
 * field. The planner puts the fields chosen under it back among the root fields (`planner/planOperation.ts`),
 * and the answer nests them under the namespace's key again (`request/responseKeys.ts`).
 */
import { GraphQLNonNull, GraphQLObjectType, type GraphQLFieldConfig } from 'graphql';
import type { FieldEntry, SchemaContext } from './context.js';
import { LazyRootType } from './lazyRootType.js';
import { sortEntries } from './queryRoot.js';

/** The namespace type's name after the namespace, per root type (Hasura's `__query`, `__mutation_frontend`, `__subscription`). */
export const NAMESPACE_TYPE_SUFFIX = { query: '_query', mutation: '_mutation_frontend', subscription: '_subscription' } as const;

/** The namespace field of the context's source over `entries` (its root fields of `root`), or none. */
export function namespaceField(ctx: SchemaContext, root: keyof typeof NAMESPACE_TYPE_SUFFIX, entries: FieldEntry[]): FieldEntry[] {
  const ns = ctx.sc.sourceRootFields?.namespace;
  if (ns === undefined || entries.length === 0) return [];
  const name = ctx.sourceTypeName(`${ns}${NAMESPACE_TYPE_SUFFIX[root]}`);
  const extensions = { svc: { kind: 'source_namespace', source: ctx.sc.source } };
  const fields = sortEntries(entries);
  // A mutation namespace makes each field when first read, as mutation_root does.
  const type = root === 'mutation' ? new LazyRootType({ name, fields, extensions }) : new GraphQLObjectType({ name, fields: () => fields, extensions });
  return [[ns, { type: new GraphQLNonNull(type), extensions }]];
}

/** Whether a root field config is a source's namespace field. */
export const isNamespaceField = (f: Pick<GraphQLFieldConfig<unknown, unknown>, 'extensions'>): boolean =>
  (f.extensions as { svc?: { kind?: unknown } } | null | undefined)?.svc?.kind === 'source_namespace';
