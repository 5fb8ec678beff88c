/**
 * An error path written in `hasura-default` names (the planner reads arguments and input objects
 * by them, see schema/graphqlCase.ts) rewritten in the names of the operation's schema:
 * `$.selectionSet.appUsers.args.distinct_on` → `$.selectionSet.appUsers.args.distinctOn`. Response
 * keys and list indices are kept; a part that cannot be followed is left as it is. Called only for
 * an error planned under `graphql-default`.
 */
import { GraphQLInputObjectType, GraphQLList, GraphQLNonNull, type GraphQLInputType } from 'graphql';
import { pathKey } from '../../core/index.js';
import { canonicalName } from '../schema/fieldMeta.js';
import type { NField, NormalizedOperation } from './types.js';

const SEGMENT = /\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\['([^']*)'\]/y;

function segments(path: string): Array<string | number> | undefined {
  if (!path.startsWith('$')) return undefined;
  const out: Array<string | number> = [];
  SEGMENT.lastIndex = 1;
  while (SEGMENT.lastIndex < path.length) {
    const m = SEGMENT.exec(path);
    if (!m) return undefined;
    out.push(m[2] !== undefined ? Number(m[2]) : (m[1] ?? m[3]));
  }
  return out;
}

const unwrap = (t: GraphQLInputType): GraphQLInputType => (t instanceof GraphQLNonNull ? unwrap(t.ofType) : t);

export function chosenPath(op: NormalizedOperation, path: string): string {
  const parts = segments(path);
  if (!parts) return path;
  let fields: NField[] | null = op.fields;
  let field: NField | undefined;
  let input: GraphQLInputType | undefined;
  let mode: 'selection' | 'field' | 'args' | 'input' = 'selection';
  let out = '$';
  for (const part of parts) {
    let key: string | number = part;
    if (typeof part === 'number') {
      if (input) {
        const t = unwrap(input);
        input = t instanceof GraphQLList ? t.ofType : t;
      }
    } else if (mode === 'selection' && part !== 'selectionSet') {
      field = fields?.find((f) => f.alias === part);
      mode = 'field';
    } else if (mode === 'field' && part === 'args') {
      mode = 'args';
    } else if (mode === 'field' && part === 'selectionSet') {
      fields = field?.selection ?? null;
      mode = 'selection';
    } else if (mode === 'args') {
      const arg = field?.def.args.find((a) => canonicalName(a) === part);
      if (arg) [key, input] = [arg.name, arg.type];
      mode = 'input';
    } else if (mode === 'input' && input) {
      const t = unwrap(input);
      const f = t instanceof GraphQLInputObjectType ? Object.values(t.getFields()).find((x) => canonicalName(x) === part) : undefined;
      if (f) [key, input] = [f.name, f.type];
      else input = undefined;
    }
    out = pathKey(out, key);
  }
  return out;
}
