/**
 * What an operation costs once its fragments are expanded, measured WITHOUT expanding them: each
 * fragment is measured once and its figures reused at every spread (memoised), so a document
 * whose fragments spread each other exponentially (a fragment bomb: 24 levels, 2^24 expansions)
 * is measured in time linear in its text. This runs before anything walks the selection set, so
 * the bounds below hold for everything downstream (validation, planning, SQL).
 *
 * Figures (after expansion, `@skip`/`@include` ignored, i.e. counted as if included):
 * - `nodes`: field selections (each field, `__typename` included, counts 1);
 * - `work`: what planning it costs, in units: 1 per leaf field, fragment spread or inline fragment,
 *   `OBJECT_FIELD_WORK` per field with a sub-selection;
 * - `depth`: the deepest field (a root field has depth 1);
 * - `introspectionNesting`: under `__schema` / `__type`, the most `fields` / `inputFields` /
 *   `interfaces` / `possibleTypes` along one path (graphql-js' MaxIntrospectionDepthRule idea:
 *   each such level multiplies the response by the schema's size).
 * Counts saturate at `SATURATED` so a bomb never overflows to Infinity. A spread that closes a
 * cycle counts 1 and is not followed: the walker reports the cycle with Hasura's message, and
 * also keeps its own work budget (see `selectionSet.ts`).
 */
import { Kind, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';

export interface DocumentCost {
  nodes: number;
  work: number;
  depth: number;
  introspectionNesting: number;
}

const SATURATED = Number.MAX_SAFE_INTEGER;
const add = (a: number, b: number): number => Math.min(SATURATED, a + b);
const INTROSPECTION_LISTS = new Set(['fields', 'inputFields', 'interfaces', 'possibleTypes']);
const INTROSPECTION_ROOTS = new Set(['__schema', '__type']);
/**
 * Work units of a field with a sub-selection: it becomes a SQL subquery (or a graphql-js
 * introspection object), measured at ~20-60 µs of planning + SQL building against ~2 µs for a
 * leaf field (docs/HARDENING.md).
 */
export const OBJECT_FIELD_WORK = 20;

const EMPTY: SetCost = Object.freeze({ nodes: 0, work: 0, depth: 0, lists: 0, introspection: 0 });

interface SetCost {
  nodes: number;
  work: number;
  depth: number;
  /** The most introspection list fields along one path inside the set. */
  lists: number;
  /** The worst `lists` found below any `__schema` / `__type` field inside the set. */
  introspection: number;
}

/** The cost of `operation` in a document with these fragment definitions (linear in the document). */
export function measureOperation(operation: OperationDefinitionNode, fragments: readonly FragmentDefinitionNode[]): DocumentCost {
  const defs = new Map<string, FragmentDefinitionNode>();
  for (const f of fragments) if (!defs.has(f.name.value)) defs.set(f.name.value, f);
  const memo = new Map<string, SetCost>();
  const inProgress = new Set<string>();

  const fragmentCost = (name: string): SetCost => {
    const known = memo.get(name);
    if (known) return known;
    const def = defs.get(name);
    if (!def || inProgress.has(name)) return EMPTY;
    inProgress.add(name);
    const c = setCost(def.selectionSet);
    inProgress.delete(name);
    memo.set(name, c);
    return c;
  };

  const setCost = (set: SelectionSetNode): SetCost => {
    const acc: SetCost = { nodes: 0, work: 0, depth: 0, lists: 0, introspection: 0 };
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        const name = sel.name.value;
        const inner = sel.selectionSet ? setCost(sel.selectionSet) : EMPTY;
        const lists = inner.lists + (INTROSPECTION_LISTS.has(name) ? 1 : 0);
        acc.nodes = add(acc.nodes, add(1, inner.nodes));
        acc.work = add(acc.work, add(inner.work, sel.selectionSet ? OBJECT_FIELD_WORK : 1));
        acc.depth = Math.max(acc.depth, 1 + inner.depth);
        acc.lists = Math.max(acc.lists, lists);
        acc.introspection = Math.max(acc.introspection, inner.introspection, INTROSPECTION_ROOTS.has(name) ? lists : 0);
      } else {
        const c = sel.kind === Kind.FRAGMENT_SPREAD ? fragmentCost(sel.name.value) : setCost(sel.selectionSet);
        acc.nodes = add(acc.nodes, c.nodes);
        acc.work = add(acc.work, add(c.work, 1));
        acc.depth = Math.max(acc.depth, c.depth);
        acc.lists = Math.max(acc.lists, c.lists);
        acc.introspection = Math.max(acc.introspection, c.introspection);
      }
    }
    return acc;
  };

  const c = setCost(operation.selectionSet);
  return { nodes: c.nodes, work: c.work, depth: c.depth, introspectionNesting: c.introspection };
}
