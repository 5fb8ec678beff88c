/**
 * Relationships of a remote schema's types to tables (Hasura v2's remote schema remote
 * relationships) in a remote root field: each relationship field the client selected
 * (`NField.remoteTypeRels`, walked as fields by the validator) is planned over the target source's
 * cache with the role's permission there, as a join over a set of keys (`sourceJoin`); the document
 * sent to the remote is the client's with those fields taken out and, in their place, the type's
 * join fields under aliases of their own (`__svc_j<n>_<field>`, fetched even when not selected;
 * fragment spreads are inlined so each place is rewritten once). typeRelJoin.ts puts the rows in.
 */
import { Kind, type FieldNode, type FragmentDefinitionNode, type SelectionNode, type SelectionSetNode } from 'graphql';
import { qualifiedKey } from '../core/index.js';
import { outputMeta, vf, type NField, type NormalizedOperation } from '../graphql/index.js';
import type { RemoteSchemaInfo, RemoteTypeRelInfo } from '../metadata/index.js';
import { planSelect, sourceJoin, type PlanContext, type SourceJoinField } from '../planner/index.js';
import type { SourceJoinNode } from '../sql/index.js';

/** One relationship field of a remote type in a remote root field's selection. */
export interface TypeRelJoin {
  /** Its response key. */
  alias: string;
  /** The aliases its join fields are fetched under, in the order of `join.rel.mapping`. */
  phantoms: string[];
  join: SourceJoinField;
}

const phantomAlias = (n: number, field: string): string => `__svc_j${n}_${field}`;

/**
 * The relationship fields of `field` (a remote root field) planned, and the field nodes to send
 * in place of the client's; undefined when it selects none.
 */
export function planTypeRels(field: NField, ctx: PlanContext, op: NormalizedOperation, remote: RemoteSchemaInfo | undefined): { nodes: FieldNode[]; joins: TypeRelJoin[] } | undefined {
  const found = field.remoteTypeRels;
  if (!found || found.length === 0) return undefined;
  const joins: TypeRelJoin[] = [];
  const byNode = new Map<FieldNode, FieldNode[]>();
  // The target rows' own joins are run from their IR by the join executor: not this root field's.
  const before = ctx.remoteJoins;
  found.forEach(({ node, field: f }, n) => {
    if (!f) {
      byNode.set(node, []);
      return;
    }
    const rel = (outputMeta(f.def) as unknown as { rel: RemoteTypeRelInfo }).rel;
    const target = ctx.onSource(rel.source, f.path);
    const table = target.cache.tables.get(qualifiedKey(rel.target));
    if (!table) throw vf(`table ${JSON.stringify(rel.target.name)} of source ${JSON.stringify(rel.source)} is not available`, f.path);
    const select = planSelect(target, table, f, { noArgs: rel.type === 'object' });
    const joinNode: SourceJoinNode = rel.type === 'object' ? { kind: 'object', ir: { ...select, limit: 1 } } : { kind: 'array', ir: select };
    // The join fields in the names the client's document uses (a customized remote's, translated when sent).
    const names = remote?.customizer?.fieldNames.get(rel.typeName);
    const phantoms = rel.mapping.map((m) => phantomAlias(n, m.local));
    byNode.set(node, rel.mapping.map((m, i) => phantomField(phantoms[i], names?.get(m.local) ?? m.local)));
    joins.push({ alias: f.alias, phantoms, join: sourceJoin(target, table, rel, joinNode, f.path) });
  });
  ctx.remoteJoins = before;
  const fragments = new Map(op.fragments.map((d) => [d.name.value, d]));
  const nodes = field.nodes.map((node) => (node.selectionSet ? { ...node, selectionSet: rewrite(node.selectionSet, byNode, fragments, []) } : node));
  return { nodes, joins };
}

function phantomField(alias: string, name: string): FieldNode {
  return { kind: Kind.FIELD, alias: { kind: Kind.NAME, value: alias }, name: { kind: Kind.NAME, value: name } };
}

/** `set` with each relationship field replaced by its join fields, fragment spreads inlined. */
function rewrite(set: SelectionSetNode, byNode: ReadonlyMap<FieldNode, FieldNode[]>, fragments: ReadonlyMap<string, FragmentDefinitionNode>, visited: readonly string[]): SelectionSetNode {
  const selections: SelectionNode[] = [];
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) {
      const phantoms = byNode.get(s);
      if (phantoms) selections.push(...phantoms);
      else selections.push(s.selectionSet ? { ...s, selectionSet: rewrite(s.selectionSet, byNode, fragments, visited) } : s);
    } else if (s.kind === Kind.FRAGMENT_SPREAD) {
      const frag = fragments.get(s.name.value);
      if (!frag || visited.includes(s.name.value)) continue;
      selections.push({
        kind: Kind.INLINE_FRAGMENT, typeCondition: frag.typeCondition, directives: s.directives,
        selectionSet: rewrite(frag.selectionSet, byNode, fragments, [...visited, s.name.value]),
      });
    } else {
      selections.push({ ...s, selectionSet: rewrite(s.selectionSet, byNode, fragments, visited) });
    }
  }
  // Only skipped relationship fields were selected here: the set still selects something.
  if (selections.length === 0) selections.push(phantomField('__svc_t', '__typename'));
  return { kind: Kind.SELECTION_SET, selections };
}
